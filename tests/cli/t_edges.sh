# Edge cases a user meets with the documented options and scene keys: each
# test pins a defect that was found by trying what README, --help and the
# man page promise.

# output.background "#rrggbbaa" (or [r, g, b, a]) is a see-through
# background: alpha-capable outputs keep its alpha, as with `transparent`.
test_edges_background_alpha_kept() {
    photo_scene s.yaml 0.2
    # 200x72 around a 4:3 picture: bars of background left and right.
    expect_exit 0 "$WOBBLE" render s.yaml --set 'output.background="#ff000080"' \
        --set output.width=200 --frames 0:1 -o 'f_%d.png'
    [ "$(pixel f_0.png 1 1 rgba)" = "255 0 0 128" ] || fail "bar pixel: $(pixel f_0.png 1 1 rgba)"
    expect_exit 0 "$WOBBLE" render s.yaml --set 'output.background=[1, 0, 0, 0.5]' \
        --set output.width=200 -o a.webm
    [ "$(ffprobe -v error -show_entries stream_tags=alpha_mode -of default=nw=1:nk=1 a.webm)" = 1 ] ||
        fail "the WebM has no alpha"
    # An opaque colour stays RGB.
    expect_exit 0 "$WOBBLE" render s.yaml --set 'output.background="#ff0000"' \
        --set output.width=200 --frames 0:1 -o 'o_%d.png'
    [ "$(pixel o_0.png 1 1 rgba)" = "255 0 0 255" ] || fail "opaque bar: $(pixel o_0.png 1 1 rgba)"
}

# --frames A:B never renders past the scene's end (output.duration): B is
# cut there, like an open end; an A there is an error.
test_edges_frames_stop_at_the_scene_end() {
    photo_scene s.yaml 1
    expect_exit 0 "$WOBBLE" render s.yaml --frames 8:20 -o a.mkv --json
    expect_grep '"frames": 2, "first_frame": 8, "end_frame": 10,' out
    [ "$(count_frames a.mkv)" = 2 ] || fail "frames: $(count_frames a.mkv)"
    expect_exit 2 "$WOBBLE" render s.yaml --frames 10:20 -o b.mkv
    expect_grep "--frames 10: the scene has only 10 frames" err
    [ ! -e b.mkv ] || fail "output for an empty range"
    # check cuts B the same way: no golden for a frame the scene never has.
    expect_exit 0 "$WOBBLE" check s.yaml --golden g --update --frames 8:12
    [ "$(ls g | tr '\n' ' ')" = "0008.png 0009.png " ] || fail "goldens: $(ls g | tr '\n' ' ')"
}

# The documented `-o frames/f_%04d.png` works without making frames/ first;
# a render that keeps nothing takes the folders it made away again.
test_edges_png_sequence_makes_its_folder() {
    photo_scene s.yaml 0.3
    expect_exit 0 "$WOBBLE" render s.yaml -o frames/f_%04d.png
    [ "$(ls frames | tr '\n' ' ')" = "f_0000.png f_0001.png f_0002.png " ] || fail "files: $(ls frames)"
    expect_exit 0 "$WOBBLE" render s.yaml -o a/b/c/f_%02d.png --frames 1:2
    [ -f a/b/c/f_01.png ] || fail "no a/b/c/f_01.png"
    expect_exit 2 "$WOBBLE" render s.yaml -o new/f_%04d.png --pix-fmt gray
    [ ! -e new ] || fail "a folder was made for a render that failed its checks"
    expect_exit 3 "$WOBBLE" render s.yaml -o photo.png/x/f_%04d.png
    expect_grep "cannot write 'photo.png/x/f_0000.png'" err
}

# A JPEG cut short is a corrupt image: exit 2 naming it, no output (the
# decoder would otherwise make up the missing rows and render them).
test_edges_truncated_jpeg_is_refused() {
    photo_scene s.yaml 0.2
    ffmpeg -v error -i photo.png -vf scale=160:120 -q:v 3 whole.jpg
    head -c 3000 whole.jpg > cut.jpg
    expect_exit 0 "$WOBBLE" render s.yaml --set photo.image=whole.jpg -o ok.mkv
    expect_exit 2 "$WOBBLE" render s.yaml --set photo.image=cut.jpg -o bad.mkv
    expect_grep "cannot read image 'cut.jpg'" err
    [ ! -e bad.mkv ] || fail "output for a corrupt image"
}

# --json is one line of valid JSON whatever the output is called, and it
# never lands in the stream when the output is standard output by another
# name (/dev/stdout): appended to the y4m stream it corrupted it.
test_edges_json_stays_valid_and_apart() {
    photo_scene s.yaml 0.2
    name=$(printf 'a\tb\n.mkv')
    expect_exit 0 "$WOBBLE" render s.yaml -o "$name" --json
    python3 -c 'import json, sys; o = json.load(open("out")); sys.exit(o["output"] != "a\tb\n.mkv")' ||
        fail "not valid JSON: $(cat out)"
    set +e
    "$WOBBLE" render s.yaml -o /dev/stdout --json -q 2>json.txt | ffmpeg -v error -i - -f framemd5 stream.md5
    set -e
    expect_grep '"output": "/dev/stdout", "frames": 2,' json.txt
    [ "$(grep -vc '^#' stream.md5)" = 2 ] || fail "the y4m stream did not decode to 2 frames"
    "$WOBBLE" render s.yaml -o /dev/stdout --json -q 2>/dev/null | cat > stream.y4m
    ! grep -q '"output"' stream.y4m || fail "the JSON summary went into the y4m stream"
}

# An unsupported --pix-fmt for the y4m stream names the format the user
# chose, not FFmpeg's internal encoder ('wrapped_avframe').
test_edges_y4m_pix_fmt_error_names_y4m() {
    photo_scene s.yaml 0.2
    expect_exit 2 "$WOBBLE" render s.yaml -o - --pix-fmt rgb24
    expect_grep "pixel format 'rgb24' is not supported by 'y4m'; supported: yuv420p yuv422p yuv444p" err
    expect_exit 0 "$WOBBLE" render s.yaml -o a.y4m --pix-fmt yuv422p
    [ "$(probe a.y4m pix_fmt)" = yuv422p ] || fail "pix_fmt $(probe a.y4m pix_fmt)"
}

# GIF above 50 fps keeps its speed: no frame delay under 2 cs (players show
# those as 10 cs; a 1 s clip at 60 fps lasted 2.88 s), the length stays 1 s.
test_edges_gif_above_50_fps_keeps_its_speed() {
    photo_scene s.yaml 1
    expect_exit 0 "$WOBBLE" render s.yaml --fps 60 -o a.gif
    python3 - <<'PY' || fail "GIF delays or length wrong"
d = open("a.gif", "rb").read()
delays = [d[i + 4] | d[i + 5] << 8 for i in range(len(d) - 6)
          if d[i] == 0x21 and d[i + 1] == 0xF9 and d[i + 2] == 4]
print("delays", delays)
assert min(delays) >= 2, delays
assert 98 <= sum(delays) <= 102, sum(delays)
PY
    len=$(ffprobe -v error -show_entries format=duration -of default=nw=1:nk=1 a.gif)
    python3 -c "import sys; sys.exit(not 0.97 <= $len <= 1.03)" || fail "GIF lasts $len s"
}

# Interrupting a y4m render on stdout: exit 130, a stream that decodes, and
# a message that says where the frames went (not "in '-'").
# (The grab keeps moving for the whole hour, so no frame is a cheap settled
# one and the render cannot end before the signal; the signal goes once
# the first frames are out.)
test_edges_interrupt_on_stdout_names_it() {
    cp "$ROOT/examples/photo.png" photo.png
    cat > s.yaml <<YAML
wobble: 1
kind: photo
output: {width: 96, height: 72, fps: 10, duration: 3600}
photo: {image: photo.png, grid: 32, preset: jelly}
timeline:
  - time: 0.0
    grab: {at: [0.5, 0.5], path: [{time: 3599, to: [0.6, 0.4]}]}
YAML
    "$WOBBLE" render s.yaml -o - 2>err >stream.y4m &
    pid=$!
    n=0
    while [ ! -s stream.y4m ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
    sleep 0.2
    kill -INT $pid || fail "the render ended before the signal"
    set +e
    wait $pid
    rc=$?
    set -e
    [ $rc = 130 ] || fail "exit $rc, expected 130"
    expect_grep "frames finalized on standard output" err
    ffmpeg -v error -i stream.y4m -f null - || fail "the stream does not decode"
}

# An output path too long to keep is refused as such, not as "cannot tell
# what to write" (cut short, it had lost its .mp4).
test_edges_long_output_path_is_named_as_such() {
    photo_scene s.yaml 0.2
    long=$(python3 -c 'print("a" * 2000)')
    expect_exit 2 "$WOBBLE" render s.yaml -o "$long.mp4"
    expect_grep "output path is too long (2004 bytes" err
}

# --codec libx265 stays quiet (x265 printed its banner and settings past
# FFmpeg's log level), and a codec the container cannot hold is named
# against the extension the user typed, not the muxer (".matroska").
test_edges_codec_messages_and_quiet_x265() {
    photo_scene s.yaml 0.2
    expect_exit 2 "$WOBBLE" render s.yaml --codec libx264 -o a.webm
    expect_grep "encoder 'libx264' cannot be stored in a .webm file ('a.webm')" err
    if ffmpeg -hide_banner -encoders 2>/dev/null | grep -q libx265; then
        # libx265 keeps one allocation of its own to the end (not wobble's):
        # under `make asan` LeakSanitizer is told so, quietly.
        echo "leak:x265_malloc" > x265.supp
        LSAN_OPTIONS="suppressions=$PWD/x265.supp:print_suppressions=0" \
            expect_exit 0 "$WOBBLE" render s.yaml --codec libx265 -o h.mp4 -q
        [ ! -s err ] || fail "stderr not empty: $(head -c 300 err)"
        [ "$(probe h.mp4 codec_name)" = hevc ] || fail "codec $(probe h.mp4 codec_name)"
    fi
}

# The y4m stream is not written to a terminal (binary noise): exit 2 with
# a hint; a pipe on the same command line still gets it.
test_edges_no_y4m_to_a_terminal() {
    command -v script >/dev/null || return 0
    photo_scene s.yaml 0.2
    set +e
    script -qec "$WOBBLE render s.yaml -o -; echo rc=\$?" /dev/null > tty.txt
    set -e
    expect_grep "not writing the y4m stream to a terminal" tty.txt
    expect_grep "rc=2" tty.txt
    ! grep -q YUV4MPEG2 tty.txt || fail "the stream went to the terminal"
    script -qec "$WOBBLE render s.yaml -q -o - | wc -c > n.txt" /dev/null > /dev/null
    [ "$(cat n.txt)" -gt 1000 ] || fail "piped stream: $(cat n.txt) bytes"
}

# .mov with a 4:2:2 --pix-fmt is ProRes 422 HQ, not a "4444" stream with
# 4:2:2 chroma; the default stays 4444.
test_edges_prores_profile_follows_pix_fmt() {
    photo_scene s.yaml 0.2
    expect_exit 0 "$WOBBLE" render s.yaml -o a.mov --pix-fmt yuv422p10le
    [ "$(probe a.mov codec_tag_string)/$(probe a.mov pix_fmt)" = apch/yuv422p10le ] ||
        fail "422: $(probe a.mov codec_tag_string)/$(probe a.mov pix_fmt)"
    expect_exit 0 "$WOBBLE" render s.yaml -o b.mov
    [ "$(probe b.mov codec_tag_string)" = ap4h ] || fail "default: $(probe b.mov codec_tag_string)"
}

# Animated WebP above ~90 fps keeps its speed: no frame of 10 ms or less
# (browsers show those as 100 ms), the whole still lasts its second.
test_edges_webp_above_90_fps_keeps_its_speed() {
    command -v webpmux >/dev/null || return 0
    photo_scene s.yaml 1
    expect_exit 0 "$WOBBLE" render s.yaml --fps 100 -o a.webp
    webpmux -info a.webp | awk 'NR > 5 { print $7 }' > durations
    [ "$(sort -n durations | head -1)" -ge 11 ] || fail "durations: $(sort -n durations | uniq -c | tr '\n' ' ')"
    total=$(awk '{ s += $1 } END { print s }' durations)
    [ "$total" -ge 990 ] && [ "$total" -le 1010 ] || fail "lasts $total ms"
}

# info --tsv belongs to --keys; with a scene it was silently ignored.
test_edges_info_tsv_needs_keys() {
    photo_scene s.yaml 0.2
    expect_exit 2 "$WOBBLE" info --tsv s.yaml
    expect_grep "info: --tsv goes with --keys" err
    expect_exit 0 "$WOBBLE" info --keys --tsv
    [ "$(sed -n 1p out)" = "$(printf 'key\ttype\tdefault\tmeaning')" ] || fail "header: $(sed -n 1p out)"
}

# "Try 'wobble CMD --help'" follows a usage error (an option that does not
# parse, a missing argument) and nothing else: after a missing scene or a
# corrupt image the help has nothing to say.
test_edges_help_hint_only_for_usage_errors() {
    expect_exit 2 "$WOBBLE" render --no-such-option s.yaml -o a.mkv
    expect_grep "Try 'wobble render --help' for more information." err
    expect_exit 2 "$WOBBLE" render -o a.mkv
    expect_grep "Try 'wobble render --help' for more information." err
    expect_exit 2 "$WOBBLE" render missing.yaml -o a.mkv
    expect_grep "cannot open scene" err
    ! grep -q -- "--help" err || fail "a hint after a missing scene: $(cat err)"
    photo_scene s.yaml 0.2
    printf 'not a picture' > bad.png
    expect_exit 2 "$WOBBLE" render s.yaml --set photo.image=bad.png -o a.mkv
    expect_grep "cannot read image" err
    ! grep -q -- "--help" err || fail "a hint after a corrupt image: $(cat err)"
}
