# Helpers for the CLI tests (sourced by tests/cli/run.sh).
fail() { echo "fail: $*" >&2; exit 1; }

# expect_exit N cmd...: run cmd with stdout/stderr captured in ./out and ./err.
expect_exit() {
    want=$1; shift
    set +e
    "$@" >out 2>err
    got=$?
    set -e
    if [ "$got" -ne "$want" ]; then
        echo "command: $*" >&2
        echo "--- stdout"; head -c 2000 out; echo "--- stderr"; head -c 2000 err
        fail "exit $got, expected $want"
    fi
}

# expect_grep PATTERN FILE: fail unless FILE contains the fixed string.
expect_grep() {
    grep -qF -- "$1" "$2" || { echo "--- $2:"; head -c 2000 "$2"; fail "'$1' not in $2"; }
}

# probe FILE ENTRY: one ffprobe stream field of the first video stream.
probe() {
    ffprobe -v error -select_streams v:0 -show_entries "stream=$2" \
        -of default=noprint_wrappers=1:nokey=1 "$1"
}

# count_frames FILE: decoded frame count of the first video stream.
count_frames() {
    ffprobe -v error -select_streams v:0 -count_frames \
        -show_entries stream=nb_read_frames -of default=noprint_wrappers=1:nokey=1 "$1"
}

# The helpers below keep their own variables under a leading underscore: a
# test's shell variables are global and must not be overwritten by them.

# photo_scene FILE SECONDS: write FILE, a small, fast photo scene (96x72 at
# 10 fps, SECONDS long: a grab dragged for 0.3 s, then released) next to a
# copy of the example picture, photo.png.
photo_scene() {
    cp "$ROOT/examples/photo.png" photo.png
    cat > "$1" <<YAML
wobble: 1
kind: photo
output: {width: 96, height: 72, fps: 10, duration: $2}
photo: {image: photo.png, grid: 32, preset: jelly}
timeline:
  - time: 0.0
    grab: {at: [0.5, 0.5], path: [{time: 0.3, to: [0.6, 0.4]}]}
  - time: 0.3
    release: {}
YAML
}

# expect_render_error LINE COL MESSAGE: `wobble render bad.yaml -o bad.mkv`
# must exit 2, print "bad.yaml:LINE:COL: error: MESSAGE" as the first line of
# stderr and create no output.
expect_render_error() {
    expect_exit 2 "$WOBBLE" render bad.yaml -o bad.mkv
    _first=$(sed -n 1p err)
    [ "$_first" = "bad.yaml:$1:$2: error: $3" ] ||
        fail "first line of stderr: '$_first', expected 'bad.yaml:$1:$2: error: $3'"
    [ ! -e bad.mkv ] || fail "output created for a bad scene"
}

# render_md5 NAME SCENE [ARGS...]: render SCENE with ARGS to NAME.mkv (must
# exit 0) and write the MD5 of each decoded frame to NAME.md5 (framemd5).
render_md5() {
    _name=$1 _scene=$2
    shift 2
    expect_exit 0 "$WOBBLE" render "$_scene" -o "$_name.mkv" "$@"
    ffmpeg -v error -y -i "$_name.mkv" -f framemd5 "$_name.md5"
}

# expect_same_on_threads SCENE "N..." [ARGS...]: render SCENE with ARGS and
# --threads 1, then with each N; fail unless each decodes to the very frames
# of --threads 1 (the renderer splits work into fixed bands, never per
# thread).  Leaves threadsN.mkv and threadsN.md5.
expect_same_on_threads() {
    _scene=$1 _counts=$2
    shift 2
    render_md5 threads1 "$_scene" --threads 1 "$@"
    for _n in $_counts; do
        render_md5 "threads$_n" "$_scene" --threads "$_n" "$@"
        cmp threads1.md5 "threads$_n.md5" ||
            fail "$(basename "$_scene"): --threads 1 and $_n differ"
    done
}

# render_pngs DIR COUNT WxH SCENE [ARGS...]: render SCENE with ARGS to
# DIR/NNNN.png; fail unless it writes exactly COUNT files of WxH pixels.
render_pngs() {
    _dir=$1 _count=$2 _size=$3 _scene=$4
    shift 4
    mkdir "$_dir"
    expect_exit 0 "$WOBBLE" render "$_scene" -o "$_dir/%04d.png" "$@"
    [ "$(ls "$_dir" | wc -l)" = "$_count" ] || fail "files: $(ls "$_dir")"
    [ "$(probe "$_dir/0000.png" width)x$(probe "$_dir/0000.png" height)" = "$_size" ] ||
        fail "size $(probe "$_dir/0000.png" width)x$(probe "$_dir/0000.png" height)"
}

# raw_pixels IMAGE PIX_FMT > FILE: the decoded pixels, row by row, as raw
# bytes in PIX_FMT (rgb24, rgba, gray ...), for a python check to read.
raw_pixels() {
    ffmpeg -v error -i "$1" -f rawvideo -pix_fmt "$2" -
}

# pixel IMAGE X Y [PIX_FMT]: one pixel's channels as "r g b" (rgb24, the
# default) or "r g b a" (rgba).
pixel() {
    ffmpeg -v error -i "$1" -vf "crop=1:1:$2:$3" -f rawvideo -pix_fmt "${4:-rgb24}" - |
        od -An -tu1 | tr -s ' ' | sed 's/^ //;s/ $//'
}

# capsule_scene [LINE...]: cap.yaml, a jiggle disc painted all red (red.png:
# one weight region, so every bone rests at the disc's centre) under an
# accel drive that throws its bones down and sideways through a capsule
# collider (axis y = -0.3, x in [-0.3, 0.3], radius 0.15), the body staying
# at the origin; free.yaml the same without the collider.  Each LINE is one
# more key of the jiggle block.
capsule_scene() {
    python3 - <<'PY'
import struct, zlib
w = h = 16
raw = b"".join(b"\0" + b"\xff\x00\x00" * w for _ in range(h))
def chunk(t, d):
    return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
open("red.png", "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
PY
    {
        printf 'wobble: 1\nkind: jiggle\n'
        printf 'output: {width: 64, height: 36, fps: 30, duration: 3}\n'
        printf 'jiggle:\n  view: 2d\n  shape: disc\n  weights: red.png\n'
        for line in "$@"; do printf '  %s\n' "$line"; done
        printf '  capsule_collider: {a: [-0.3, -0.3], b: [0.3, -0.3], radius: 0.15}\n'
        printf '  drive:\n    accel:\n'
        printf '      - {time: 0.0, to: [0.0, 0.0]}\n'
        printf '      - {time: 0.3, to: [3.0, -30.0]}\n'
        printf '      - {time: 1.5, to: [-8.0, -30.0]}\n'
        printf '      - {time: 2.0, to: [0.0, 0.0]}\n'
    } > cap.yaml
    grep -v capsule_collider cap.yaml > free.yaml
}

# expect_teleport_keeps_state SCENE: SCENE (a jiggle scene at 10 fps whose
# timeline teleports the body between frames 5 and 10) rendered with and
# without its timeline: the same state every frame (offsets and velocities:
# --stats columns 4 and 6), the same frame 5, another frame 10.
expect_teleport_keeps_state() {
    expect_exit 0 "$WOBBLE" render "$1" -q -o t_%03d.png --stats t.csv
    sed '/^timeline:/,$d' "$1" > no_timeline.yaml
    expect_exit 0 "$WOBBLE" render no_timeline.yaml -q -o n_%03d.png --stats n.csv
    cut -d, -f4,6 t.csv > a; cut -d, -f4,6 n.csv > b
    cmp a b || fail "a teleport changed the offsets or velocities"
    cmp -s t_005.png n_005.png || fail "frame 5 differs before any teleport"
    cmp -s t_010.png n_010.png && fail "the teleport did not move the body"
    true
}
