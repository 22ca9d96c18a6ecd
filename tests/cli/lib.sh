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
