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

# full_fs CMD...: run CMD (in ./full, a 256 KiB tmpfs in a private mount
# namespace) and print its exit code; "skip" where no such mount can be made.
full_fs() {
    mkdir -p full
    unshare -r -m sh -c 'mount -t tmpfs -o size=256k none full' 2>/dev/null || { echo skip; return 0; }
    set +e
    unshare -r -m sh -c 'mount -t tmpfs -o size=256k none full && dd if=/dev/zero of=full/pad bs=1k count=250 2>/dev/null; "$@" >out 2>err; echo $?' sh "$@"
    set -e
}

# A GIF whose write failed skipped av_write_trailer, and FFmpeg's GIF
# muxer frees its held packet only there: LeakSanitizer reported 60 KB and
# the exit became 1.  Run with the LeakSanitizer runtime preloaded.
test_hostile_gif_full_disk_frees_the_muxer() {
    lsan=$(ls /usr/lib/*/liblsan.so.0 2>/dev/null | head -n 1)
    [ -n "$lsan" ] || return 0
    # Moving frames, large enough that a write fails before the trailer.
    photo_scene s.yaml 1.5
    sed -i 's/width: 96, height: 72/width: 480, height: 360/' s.yaml
    ln -s /dev/full full.gif
    LD_PRELOAD=$lsan LSAN_OPTIONS=exitcode=23 expect_exit 3 "$WOBBLE" render s.yaml -o full.gif
    expect_grep "full.gif" err
    ! grep -q LeakSanitizer err || fail "leak reported"
}
