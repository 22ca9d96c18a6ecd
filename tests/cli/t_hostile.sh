# What a hostile user tries (issue 26): outputs over inputs, signals in
# long work, step sizes that break the clock, small files that cost
# gigabytes, finite explosions, full disks.  Each test failed before its fix.

# first_err TEXT: the first line of ./err starts with TEXT.
first_err() {
    _first=$(sed -n 1p err)
    case "$_first" in
    "$1"*) ;;
    *) fail "first line of stderr: '$_first', expected it to start with '$1'" ;;
    esac
}

# tiny_rope FILE STEP: a small rope scene with rope.step STEP on line 5.
tiny_rope() {
    cat > "$1" <<YAML
wobble: 1
kind: rope
output: {width: 64, height: 48, fps: 10, duration: 0.5}
rope:
  step: $2
  view: {width: 4, height: 3}
  ropes:
    - {from: [1, 0.5], to: [2.2, 0.5], nodes: 8}
YAML
}

# rope.step 1e-300 passed `info` and failed `render` with no place; 1e-44
# overflowed floorl(f·rate/fps) into int64_t (undefined behaviour, a rope
# that never moved); 1e-20 never finished a frame.  Each is now refused
# where it is written, by info and render alike.
test_hostile_tiny_rope_step() {
    for s in 1e-300 1e-44 1e-20 1e-9 0.000009; do
        tiny_rope bad.yaml "$s"
        expect_exit 2 "$WOBBLE" info bad.yaml
        first_err "bad.yaml:5:9: error: 'rope.step' must be"
        expect_grep "1e-05" err
        expect_render_error 5 9 "$(sed -n 1p err | sed 's/^bad.yaml:5:9: error: //')"
    done
    tiny_rope ok.yaml 1e-5
    expect_exit 0 "$WOBBLE" render ok.yaml -o ok.mkv --size 32x24 --duration 0.2
}

