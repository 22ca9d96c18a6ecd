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

# --- sizing

size_of() { echo "$(probe "$1" width)x$(probe "$1" height)"; }

test_zero_side_follows_the_photo() {
    photo_scene p.yaml 0.2
    sed -i 's/output: {width: 96, height: 72,/output: {/' p.yaml
    expect_exit 0 "$WOBBLE" render p.yaml -o a.mp4 --size 480x0
    [ "$(size_of a.mp4)" = 480x360 ] || fail "480x0: $(size_of a.mp4)"
    expect_exit 0 "$WOBBLE" render p.yaml -o b.mkv --set output.width=240
    [ "$(size_of b.mkv)" = 240x180 ] || fail "width alone: $(size_of b.mkv)"
    # 0x101 on 4:3: 134.67 wide, rounded to even; the given odd side is
    # kept (FFV1) or padded by the mp4 sink
    expect_exit 0 "$WOBBLE" render p.yaml -o c.mkv --size 0x101
    [ "$(size_of c.mkv)" = 134x101 ] || fail "0x101: $(size_of c.mkv)"
    expect_exit 0 "$WOBBLE" render p.yaml -o d.mkv --frames 0:1
    [ "$(size_of d.mkv)" = 960x720 ] || fail "photo's own: $(size_of d.mkv)"
}

test_scale() {
    photo_scene p.yaml 0.2
    expect_exit 0 "$WOBBLE" render p.yaml -o a.mp4 --scale 2.5
    [ "$(size_of a.mp4)" = 240x180 ] || fail "96x72 x2.5: $(size_of a.mp4)"
    expect_exit 0 "$WOBBLE" render p.yaml -o b.mp4 --scale 0.5 --size 0x100
    [ "$(size_of b.mp4)" = 68x50 ] || fail "0x100 x0.5: $(size_of b.mp4)"
    # Other kinds: the view's aspect, then the scale.
    expect_exit 0 "$WOBBLE" render "$ROOT/examples/rope-cut.yaml" -o r.mkv --frames 0:1 --scale 0.25 --size 640x0
    [ "$(probe r.mkv width)" = 160 ] || fail "rope: $(size_of r.mkv)"
    expect_exit 2 "$WOBBLE" render p.yaml -o c.mp4 --scale 0
    expect_grep "--scale: 0 is out of range" err
    expect_exit 0 "$WOBBLE" info p.yaml --set output.scale=0.5
    expect_grep "scale: 0.5" out
}

# --- GIF, WebP, APNG, a single PNG

test_gif_above_50_fps_warns() {
    photo_scene p.yaml 1
    expect_exit 0 "$WOBBLE" render p.yaml -o a.gif --fps 60
    expect_grep "wobble: warning: GIF stores frame delays in whole centiseconds" err
    expect_grep "40 of every 60 frames are kept" err
    [ "$(count_frames a.gif)" = 40 ] || fail "frames: $(count_frames a.gif)"
    expect_exit 0 "$WOBBLE" render p.yaml -o b.gif --fps 50
    [ ! -s err ] || fail "50 fps warned: $(cat err)"
}

test_loop_count() {
    photo_scene p.yaml 0.5
    expect_exit 0 "$WOBBLE" render p.yaml -o forever.gif
    expect_exit 0 "$WOBBLE" render p.yaml -o three.gif --loop-count 3
    expect_exit 0 "$WOBBLE" render p.yaml -o once.gif --set output.loop_count=1
    # GIF's NETSCAPE block counts repeats after the first play; none = once.
    python3 - <<'PY' || fail "GIF loop blocks"
import struct
def reps(f):
    d = open(f, "rb").read(); i = d.find(b"NETSCAPE2.0")
    return None if i < 0 else struct.unpack("<H", d[i + 13:i + 15])[0]
assert reps("forever.gif") == 0, reps("forever.gif")
assert reps("three.gif") == 2, reps("three.gif")
assert reps("once.gif") is None
PY
    expect_exit 0 "$WOBBLE" render p.yaml -o three.webp --loop-count 3
    webpmux -info three.webp > info
    expect_grep "Loop Count : 3" info
    expect_exit 0 "$WOBBLE" render p.yaml -o three.apng --loop-count 3
    python3 - <<'PY' || fail "APNG acTL"
import struct
d = open("three.apng", "rb").read(); i = d.find(b"acTL")
frames, plays = struct.unpack(">II", d[i + 4:i + 12])
assert (frames, plays) == (5, 3), (frames, plays)
PY
    expect_exit 2 "$WOBBLE" render p.yaml -o x.gif --loop-count -1
}

test_apng_output() {
    photo_scene p.yaml 0.5
    expect_exit 0 "$WOBBLE" render p.yaml -o a.apng
    [ "$(probe a.apng codec_name)" = apng ] || fail "codec $(probe a.apng codec_name)"
    [ "$(probe a.apng pix_fmt)" = rgb24 ] || fail "pix_fmt $(probe a.apng pix_fmt)"
    [ "$(count_frames a.apng)" = 5 ] || fail "frames $(count_frames a.apng)"
    expect_exit 0 "$WOBBLE" render p.yaml -o t.apng --set output.background=transparent
    [ "$(probe t.apng pix_fmt)" = rgba ] || fail "alpha pix_fmt $(probe t.apng pix_fmt)"
    # Lossless: the frames are the PNG sequence's pixels.
    mkdir seq
    expect_exit 0 "$WOBBLE" render p.yaml -o seq/%04d.png
    ffmpeg -v error -i a.apng -f framemd5 -pix_fmt rgb24 a.md5
    ffmpeg -v error -i seq/%04d.png -f framemd5 -pix_fmt rgb24 s.md5
    [ "$(grep -v '^#' a.md5 | awk '{print $NF}')" = "$(grep -v '^#' s.md5 | awk '{print $NF}')" ] ||
        fail "APNG frames differ from the PNGs"
}

test_single_png_for_one_frame() {
    photo_scene p.yaml 1
    expect_exit 0 "$WOBBLE" render p.yaml -o still.png --frames 4:5
    [ "$(size_of still.png)" = 96x72 ] || fail "size $(size_of still.png)"
    mkdir seq
    expect_exit 0 "$WOBBLE" render p.yaml -o seq/%04d.png --frames 4:5
    cmp still.png seq/0004.png || fail "still.png is not frame 4"
    expect_exit 2 "$WOBBLE" render p.yaml -o many.png
    expect_grep "'many.png' is one picture but 10 frames are to be rendered" err
    [ ! -e many.png ] || fail "many.png written"
}

test_crf_and_preset_ignored_warn() {
    photo_scene p.yaml 0.2
    expect_exit 0 "$WOBBLE" render p.yaml -o a.mkv --crf 20
    expect_grep "wobble: warning: --crf is ignored by 'ffv1'" err
    expect_exit 0 "$WOBBLE" render p.yaml -o a.apng --preset fast
    expect_grep "wobble: warning: --preset is ignored by 'apng'" err
    mkdir seq
    expect_exit 0 "$WOBBLE" render p.yaml -o seq/%04d.png --crf 3 --preset slow
    expect_grep "--crf and --preset ignored: PNG" err
    expect_exit 0 "$WOBBLE" render p.yaml -o a.mp4 --crf 20 --preset fast
    [ ! -s err ] || fail "mp4 warned: $(cat err)"
}
