# The command line, outputs and inputs as users of ffmpeg-like tools expect.

# --- the command line

test_mistyped_command_gets_a_suggestion() {
    expect_exit 2 "$WOBBLE" rendr x.yaml
    expect_grep "unknown command 'rendr' (did you mean 'render'?)" err
    expect_exit 2 "$WOBBLE" wieghts export orb
    expect_grep "(did you mean 'weights'?)" err
    expect_exit 2 "$WOBBLE" zzzzzz
    ! grep -q "did you mean" err || fail "a suggestion for a word close to nothing"
}

test_mistyped_option_gets_a_suggestion() {
    expect_exit 2 "$WOBBLE" render x.yaml --fsp 30
    expect_grep "render: unrecognized option '--fsp' (did you mean '--fps'?)" err
    expect_grep "Try 'wobble render --help'" err
    expect_exit 2 "$WOBBLE" info --kyes
    expect_grep "(did you mean '--keys'?)" err
    expect_exit 2 "$WOBBLE" render x.yaml --dry-rnu=1
    expect_grep "(did you mean '--dry-run'?)" err
    expect_exit 2 "$WOBBLE" render x.yaml --fps
    expect_grep "render: option '--fps' needs a value" err
}

test_help_names_the_man_page_in_the_source_tree() {
    "$WOBBLE" --help > h
    expect_grep "man ./man/wobble.1" h
    [ -f "$ROOT/man/wobble.1" ] || fail "man/wobble.1 missing"
    if command -v man >/dev/null; then
        (cd "$ROOT" && MANWIDTH=80 man ./man/wobble.1 2>/dev/null | grep -q "wobble") ||
            fail "man ./man/wobble.1 shows nothing"
    fi
}

test_man_synopsis_lists_every_command() {
    sed -n '/^\.SH SYNOPSIS/,/^\.SH DESCRIPTION/p' "$ROOT/man/wobble.1" > syn
    for c in render check presets info testcard weights; do
        grep -q "^\.B wobble $c" syn || fail "$c not in the SYNOPSIS"
    done
}

test_closed_pipe_is_quiet() {
    "$WOBBLE" info --keys 2>err | head -n 2 > out
    [ "$(wc -l < out)" = 2 ] || fail "head saw $(wc -l < out) lines"
    [ ! -s err ] || fail "stderr: $(cat err)"
    # The exit status of wobble itself, not of head.
    { "$WOBBLE" info --keys 2>err2; echo $? > rc; } | head -n 1 > /dev/null
    [ "$(cat rc)" = 0 ] || fail "exit $(cat rc) on a closed pipe"
    [ ! -s err2 ] || fail "stderr: $(cat err2)"
}

# --- scripts

runaway_scene() {
    # gravity 1000 m/s^2, no damping, no floor: the watchdog stops it at frame 29
    cat > fall.yaml <<'YAML'
wobble: 1
kind: cloth
output: {width: 32, height: 18, fps: 2, duration: 20}
cloth: {grid: 4, size: [1, 1], gravity: 1000, damping: 1, floor: false}
YAML
}

test_json_error_object_on_failure() {
    expect_exit 2 "$WOBBLE" render nope.yaml --json
    python3 -c 'import json,sys; e=json.load(open("out"))["error"]; assert e["code"]==2, e; assert "nope.yaml" in e["message"], e' ||
        fail "stdout: $(cat out)"
    expect_grep "cannot open scene 'nope.yaml'" err
    printf 'wobble: 1\nkind: photo\noutput: {fsp: 3}\n' > bad.yaml
    expect_exit 2 "$WOBBLE" render bad.yaml --json -o x.mkv
    python3 -c 'import json; e=json.load(open("out"))["error"]; assert (e["file"],e["line"],e["col"])==("bad.yaml",3,10), e' ||
        fail "stdout: $(cat out)"
    # A usage error before --json is reached still answers in JSON.
    expect_exit 2 "$WOBBLE" render bad.yaml --fsp 3 --json
    expect_grep '"message": "render: unrecognized option' out
    expect_exit 2 "$WOBBLE" check bad.yaml --golden g --json
    expect_grep '{"error": {"code": 2' out
}

test_progress_json_lines() {
    photo_scene p.yaml 1
    expect_exit 0 "$WOBBLE" render p.yaml -o p.mkv --progress json
    python3 - <<'PY' || fail "events: $(cat err)"
import json
ev = [json.loads(l) for l in open("err")]
assert ev[0]["event"] == "start" and ev[0]["total"] == 10, ev[0]
assert [e["frame"] for e in ev[1:-1]] == list(range(10)), ev
assert all(e["event"] == "frame" for e in ev[1:-1])
assert ev[-1]["event"] == "end" and ev[-1]["status"] == "done" and ev[-1]["code"] == 0, ev[-1]
assert ev[-1]["frames"] == 10
PY
    # To a descriptor of the caller's, not stderr.
    expect_exit 0 sh -c '"$WOBBLE" render p.yaml -o q.mkv --frames 2:5 --progress-fd 3 3>ev.txt'
    [ "$(wc -l < ev.txt)" = 5 ] || fail "ev.txt: $(cat ev.txt)"
    [ ! -s err ] || fail "stderr: $(cat err)"
    expect_exit 2 "$WOBBLE" render p.yaml -o r.mkv --progress-fd 9
    expect_grep "--progress-fd 9: not a descriptor open for writing" err
    [ ! -e r.mkv ] || fail "output created"
    expect_exit 2 "$WOBBLE" render p.yaml --progress yes
}

test_watchdog_stop_keeps_the_frames() {
    runaway_scene
    expect_exit 4 "$WOBBLE" render fall.yaml -o f.mkv --progress json --json
    expect_grep "diverged" err
    expect_grep "the 29 frames before it were kept in 'f.mkv'" err
    [ "$(count_frames f.mkv)" = 29 ] || fail "frames kept: $(count_frames f.mkv)"
    expect_grep '"event": "end", "status": "diverged", "code": 4, "frames": 29' err
    expect_grep '{"error": {"code": 4' out
    # A PNG sequence keeps its frames too.
    mkdir seq
    expect_exit 4 "$WOBBLE" render fall.yaml -o seq/%04d.png
    [ "$(ls seq | wc -l)" = 29 ] || fail "PNGs kept: $(ls seq | wc -l)"
}
