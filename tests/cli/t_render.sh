# End-to-end tests of `wobble render`: outputs read back by ffprobe/ffmpeg,
# exit codes, nothing-lost guarantees, determinism.

# A small, fast scene (10 frames) next to a copy of the example picture.
small_scene() { photo_scene s.yaml 1; }

test_help_and_version() {
    expect_exit 0 "$WOBBLE" --help
    expect_grep "Usage: wobble COMMAND" out
    expect_exit 0 "$WOBBLE" render --help
    expect_grep "--frames A:B" out
    expect_exit 0 "$WOBBLE" --version
    expect_grep "wobble " out
    expect_exit 2 "$WOBBLE" render
    expect_grep "missing SCENE" err
    expect_grep "Try 'wobble render --help'" err
    expect_exit 2 "$WOBBLE" frobnicate
    expect_exit 2 "$WOBBLE" render s.yaml --aa 3
    expect_grep "--aa: 3 samples per pixel is not supported" err
    expect_exit 2 "$WOBBLE" render s.yaml --frames 5:2
    expect_exit 2 "$WOBBLE" render s.yaml --threads x
}

test_mp4_readback() {
    small_scene
    expect_exit 0 "$WOBBLE" render s.yaml -o a.mp4 --json
    expect_grep '"frames": 10' out
    [ "$(probe a.mp4 codec_name)" = h264 ] || fail "codec $(probe a.mp4 codec_name)"
    [ "$(probe a.mp4 pix_fmt)" = yuv420p ] || fail "pix_fmt"
    [ "$(probe a.mp4 width)x$(probe a.mp4 height)" = 96x72 ] || fail "size"
    [ "$(count_frames a.mp4)" = 10 ] || fail "frames $(count_frames a.mp4)"
    ls -a | grep -q '\.tmp' && fail "temporary file left behind"
    true
}

test_odd_size_mp4() {
    small_scene
    expect_exit 0 "$WOBBLE" render s.yaml --size 95x71 -o odd.mp4
    [ "$(count_frames odd.mp4)" = 10 ] || fail "frames"
}

test_png_sequence_and_frames_range() {
    small_scene
    mkdir frames
    expect_exit 0 "$WOBBLE" render s.yaml -o frames/f_%04d.png --frames 3:7
    ls frames > list
    [ "$(cat list | tr '\n' ' ')" = "f_0003.png f_0004.png f_0005.png f_0006.png " ] || fail "files: $(cat list)"
    # Chunks equal the single render, frame for frame.
    mkdir whole
    expect_exit 0 "$WOBBLE" render s.yaml -o whole/f_%04d.png
    for i in 3 4 5 6; do
        cmp "frames/f_000$i.png" "whole/f_000$i.png" || fail "frame $i differs from the single render"
    done
}

test_determinism_threads() {
    small_scene
    mkdir t1 t2 t4
    expect_exit 0 "$WOBBLE" render s.yaml -o t1/f_%02d.png --threads 1
    expect_exit 0 "$WOBBLE" render s.yaml -o t2/f_%02d.png --threads 2
    expect_exit 0 "$WOBBLE" render s.yaml -o t4/f_%02d.png --threads 4
    a=$(cat t1/* | md5sum); b=$(cat t2/* | md5sum); c=$(cat t4/* | md5sum)
    [ "$a" = "$b" ] && [ "$a" = "$c" ] || fail "frames depend on --threads"
    mkdir again
    expect_exit 0 "$WOBBLE" render s.yaml -o again/f_%02d.png --threads 2
    [ "$(cat again/* | md5sum)" = "$b" ] || fail "two runs differ"
}

test_y4m_pipe() {
    small_scene
    "$WOBBLE" render s.yaml -o - -q | ffmpeg -v error -i - -f framemd5 - > md5 || fail "pipe"
    [ "$(grep -vc '^#' md5)" = 10 ] || fail "decoded $(grep -vc '^#' md5) frames"
}

test_partly_converted_frames_equal_whole_ones() {
    # The sink converts to YUV only the tiles a frame redrew in its buffer,
    # over what it converted from that buffer last time; a render of one
    # frame converts it whole.  Each frame of one render must equal that
    # frame rendered alone.  A small grab dragged across the picture: each
    # frame redraws part of it, and not the part the frame before did.
    cp "$ROOT/examples/photo.png" photo.png
    cat > c.yaml <<YAML
wobble: 1
kind: photo
output: {width: 320, height: 240, fps: 10, duration: 2}
photo: {image: photo.png, grid: 64, preset: jelly}
timeline:
  - time: 0.0
    grab: {at: [0.1, 0.5], radius: 0.04, path: [{time: 1.5, to: [0.9, 0.45]}]}
  - time: 1.5
    release: {}
YAML
    expect_exit 0 "$WOBBLE" render c.yaml -o all.y4m -q
    ffmpeg -v error -i all.y4m -f framemd5 - | grep -v '^#' | awk -F, '{ print $6 }' > all.md5
    : > one.md5
    f=0
    while [ $f -lt 20 ]; do
        expect_exit 0 "$WOBBLE" render c.yaml --frames $f:$((f + 1)) -o one.y4m -q
        ffmpeg -v error -i one.y4m -f framemd5 - | grep -v '^#' | awk -F, '{ print $6 }' >> one.md5
        f=$((f + 1))
    done
    [ "$(wc -l < all.md5)" = 20 ] || fail "$(wc -l < all.md5) frames"
    cmp -s all.md5 one.md5 || fail "frames converted in part differ from frames converted whole"
}

test_every_container() {
    small_scene
    for ext in webm mov mkv gif webp; do
        expect_exit 0 "$WOBBLE" render s.yaml -o "o.$ext"
        if [ $ext = webp ]; then
            # FFmpeg 5.1 cannot decode animated WebP; libwebp's own tool reads it.
            webpmux -info o.webp > info
            expect_grep "Number of frames: 10" info
            expect_grep "Loop Count : 0" info
            continue
        fi
        n=$(count_frames "o.$ext")
        [ "$n" = 10 ] || fail "$ext: $n frames"
    done
    [ "$(probe o.webm codec_name)" = vp9 ] || fail webm
    [ "$(probe o.mov codec_name)" = prores ] || fail mov
    [ "$(probe o.mkv codec_name)" = ffv1 ] || fail mkv
    [ "$(probe o.gif codec_name)" = gif ] || fail gif
}

test_transparent_outputs_keep_alpha() {
    small_scene
    expect_exit 0 "$WOBBLE" render s.yaml --set output.background=transparent \
        --set output.width=96 --set output.height=96 -o t_%02d.png
    python3 - <<'PY' || fail "no transparent pixel in the letterbox"
import struct, zlib
d = open("t_00.png", "rb").read()
# IHDR colour type 6 = RGBA
assert d[25] == 6, "not RGBA"
PY
    expect_exit 0 "$WOBBLE" render s.yaml --set output.background=transparent \
        --size 96x96 -o t.webm
    ffprobe -v error -show_streams t.webm | grep -q 'alpha_mode=1\|TAG:alpha_mode=1' || fail "webm without alpha"
}

test_bad_input_leaves_nothing() {
    small_scene
    expect_exit 2 "$WOBBLE" render s.yaml --set photo.bounce=3 -o x.mp4
    [ -e x.mp4 ] && fail "output created on bad input"
    expect_exit 2 "$WOBBLE" render s.yaml --set photo.image=missing.png -o x.mp4
    expect_grep "missing.png" err
    expect_exit 2 "$WOBBLE" render s.yaml -o x.unknownext
    [ -z "$(ls -A | grep -v -e '^s.yaml$' -e '^photo.png$' -e '^out$' -e '^err$')" ] || fail "left: $(ls -A)"
}

test_write_errors_exit_3() {
    small_scene
    expect_exit 3 "$WOBBLE" render s.yaml -o /dev/full
    expect_grep "/dev/full" err
    mkdir ro && chmod 555 ro
    if [ "$(id -u)" -ne 0 ]; then
        expect_exit 3 "$WOBBLE" render s.yaml -o ro/x.mp4
    fi
    expect_exit 3 "$WOBBLE" render s.yaml -o no/such/dir/x.mp4
    expect_grep "no/such/dir" err
}

test_sigint_finalizes() {
    cp "$ROOT/examples/photo.png" photo.png
    cat > long.yaml <<YAML
wobble: 1
kind: photo
output: {width: 320, height: 240, fps: 30, duration: 600}
photo: {image: photo.png, grid: 256}
timeline:
  - time: 0.0
    grab: {at: [0.5, 0.5], path: [{time: 599, to: [0.6, 0.4]}]}
YAML
    "$WOBBLE" render long.yaml -o long.mp4 -q & pid=$!
    sleep 2
    kill -INT $pid
    set +e; wait $pid; rc=$?; set -e
    [ $rc -eq 130 ] || fail "exit $rc, expected 130"
    n=$(count_frames long.mp4)
    [ "$n" -gt 0 ] || fail "interrupted file has no frames"
}

test_stats_csv_and_until_settled() {
    small_scene
    expect_exit 0 "$WOBBLE" render s.yaml --duration 20 --until-settled --stats st.csv -o a.mkv --json
    head -1 st.csv | grep -q '^frame,time,moving,max_displacement,max_speed,hash,limited,folded$' || fail "header"
    rows=$(($(wc -l < st.csv) - 1))
    [ "$rows" -lt 200 ] || fail "did not stop when settled ($rows frames)"
    tail -1 st.csv | cut -d, -f3 | grep -q '^0$' || fail "last frame still moving"
    grep -q '"settled_at": [0-9]' out || fail "no settle time in JSON"
}

test_dry_run_writes_nothing() {
    small_scene
    expect_exit 0 "$WOBBLE" render s.yaml --dry-run -o a.mp4
    [ -e a.mp4 ] && fail "dry run wrote output"
    expect_exit 2 "$WOBBLE" render s.yaml --dry-run -o a.mp4 --pix-fmt nonsense
    true
}

test_info_prints_effective_scene() {
    expect_exit 0 "$WOBBLE" info "$ROOT/examples/photo-pins.yaml"
    expect_grep "grid: 512" out
    cp out eff.yaml
    # The printout loads back to the same scene (paths are already absolute or relative to it).
    expect_exit 0 "$WOBBLE" info eff.yaml
    cmp out eff.yaml || fail "info output does not round-trip"
}

test_examples_render() {
    for s in "$ROOT"/examples/*.yaml; do
        # a coarse mesh for photo scenes; other kinds have no photo block
        case $(basename "$s") in photo-*) grid="--set photo.grid=64" ;; *) grid="" ;; esac
        expect_exit 0 "$WOBBLE" render "$s" --size 160x120 $grid --fps 10 -q -o "$(basename "$s" .yaml).mkv"
    done
}

test_unwritable_path_as_any_user() {
    small_scene
    # /proc refuses new files even to root, so this holds wherever CI runs.
    expect_exit 3 "$WOBBLE" render s.yaml -o /proc/wobble-test.mp4
    expect_grep "/proc/wobble-test.mp4" err
}

test_progress_only_on_a_terminal() {
    small_scene
    expect_exit 0 "$WOBBLE" render s.yaml -o a.mkv
    [ -s err ] && fail "progress written to a non-terminal stderr: $(cat err)"
    command -v script >/dev/null || return 0
    # script(1) gives the command a pseudo-terminal.
    script -qec "$WOBBLE render s.yaml -o b.mkv" /dev/null > tty.txt
    grep -q "frame 10/10" tty.txt || fail "no progress line on a terminal: $(cat tty.txt)"
    grep -q "fps" tty.txt || fail "progress line without fps"
    script -qec "$WOBBLE render s.yaml -q -o c.mkv" /dev/null > quiet.txt
    grep -q "frame" quiet.txt && fail "--quiet still shows progress"
    true
}

# --stats -: the rows on stdout (the --json summary then on stderr); refused
# with the stream on stdout, with the output file itself (the finished
# output, renamed over it, replaced the CSV) and with an empty path.
test_stats_on_stdout_and_refused_paths() {
    photo_scene s.yaml 0.3
    "$WOBBLE" render s.yaml -o a.mkv --stats - --json -q >rows 2>sum || fail "exit $?"
    [ "$(sed -n 1p rows)" = "frame,time,moving,max_displacement,max_speed,hash,limited,folded" ] || fail "header: $(sed -n 1p rows)"
    [ "$(wc -l < rows)" -eq 4 ] || fail "$(wc -l < rows) lines on stdout"
    expect_grep '"frames": 3' sum
    expect_exit 2 "$WOBBLE" render s.yaml -o - --stats -
    expect_grep "--stats '-' and the output both go to standard output" err
    expect_exit 2 "$WOBBLE" render s.yaml -o b.mkv --stats b.mkv
    expect_grep "--stats 'b.mkv' is the output file too" err
    [ ! -e b.mkv ] || fail "output created"
    expect_exit 2 "$WOBBLE" render s.yaml -o b.mkv --stats ""
    expect_grep "--stats: the path is empty" err
}
