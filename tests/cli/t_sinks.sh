# Output sinks through the command line: codec knobs, colour tags, y4m
# files and devices, what errors say and what they leave behind.

sinks_scene() {
    cp "$ROOT/examples/photo.png" photo.png
    cat > s.yaml <<YAML
wobble: 1
kind: photo
output: {width: 64, height: 48, fps: 12, duration: 0.5}
photo: {image: photo.png, grid: 16, preset: jelly}
timeline:
  - time: 0.0
    grab: {at: [0.5, 0.5], path: [{time: 0.4, to: [0.6, 0.4]}]}
YAML
}

# only_files NAME...: the folder holds exactly these (plus the test's own).
only_files() {
    want=$(printf '%s\n' s.yaml photo.png out err "$@" | sort | tr '\n' ' ')
    got=$(ls -A | sort | tr '\n' ' ')
    [ "$got" = "$want" ] || fail "folder holds: $got (expected $want)"
}

test_sinks_mp4_tags_and_duration() {
    sinks_scene
    expect_exit 0 "$WOBBLE" render s.yaml -o a.mp4 -q
    [ "$(probe a.mp4 color_space)" = bt709 ] || fail "color_space $(probe a.mp4 color_space)"
    [ "$(probe a.mp4 color_range)" = tv ] || fail "color_range"
    [ "$(probe a.mp4 color_primaries)" = bt709 ] || fail "color_primaries"
    [ "$(probe a.mp4 r_frame_rate)" = 12/1 ] || fail "rate $(probe a.mp4 r_frame_rate)"
    [ "$(count_frames a.mp4)" = 6 ] || fail "frames $(count_frames a.mp4)"
    d=$(ffprobe -v error -show_entries format=duration -of default=nw=1:nk=1 a.mp4)
    awk -v d="$d" 'BEGIN { exit !(d > 0.49 && d < 0.51) }' || fail "duration $d"
    only_files a.mp4
}

# Same scene, same bytes, container and all: Matroska and WebM used to
# carry a random segment UID.
test_sinks_files_repeat_byte_for_byte() {
    sinks_scene
    for ext in mp4 mkv webm mov gif webp; do
        expect_exit 0 "$WOBBLE" render s.yaml -o "one.$ext" -q
        expect_exit 0 "$WOBBLE" render s.yaml -o "two.$ext" -q --threads 1
        cmp -s "one.$ext" "two.$ext" || fail ".$ext files differ between two renders"
        rm -f "one.$ext" "two.$ext"
    done
}

test_sinks_codec_knobs() {
    sinks_scene
    expect_exit 0 "$WOBBLE" render s.yaml -o k.mp4 -q --crf 0 --preset ultrafast --pix-fmt yuv444p
    [ "$(probe k.mp4 pix_fmt)" = yuv444p ] || fail "pix_fmt $(probe k.mp4 pix_fmt)"
    expect_exit 0 "$WOBBLE" render s.yaml -o k.mkv -q --codec libx264
    [ "$(probe k.mkv codec_name)" = h264 ] || fail "codec override"
    expect_exit 0 "$WOBBLE" render s.yaml -o k.webm -q --preset veryfast --crf 40
    [ "$(count_frames k.webm)" = 6 ] || fail "webm frames"
}

test_sinks_bad_knobs_exit_2_and_leave_nothing() {
    sinks_scene
    expect_exit 2 "$WOBBLE" render s.yaml -o x.mp4 --codec nosuchcodec
    expect_grep "nosuchcodec" err
    expect_exit 2 "$WOBBLE" render s.yaml -o x.mp4 --pix-fmt yuva420p
    expect_grep "yuva420p" err
    expect_grep "yuv420p" err
    expect_exit 2 "$WOBBLE" render s.yaml -o x.mp4 --preset ludicrous
    expect_grep "veryfast" err
    expect_exit 2 "$WOBBLE" render s.yaml -o x.mp4 --codec ffv1
    expect_exit 2 "$WOBBLE" render s.yaml -o x.gif --codec libx264
    expect_exit 2 "$WOBBLE" render s.yaml -o - --pix-fmt rgba
    expect_exit 2 "$WOBBLE" render s.yaml -o x.png
    expect_grep "sequence pattern such as frame_%04d.png" err
    expect_exit 2 "$WOBBLE" render s.yaml -o x.avi
    expect_grep ".mp4" err
    expect_exit 2 "$WOBBLE" render s.yaml -o 'f_%s.png'
    only_files
}

test_sinks_y4m_file_and_fifo() {
    sinks_scene
    expect_exit 0 "$WOBBLE" render s.yaml -o a.y4m -q
    head -c 40 a.y4m | grep -q '^YUV4MPEG2 W64 H48 F12:1' || fail "y4m header"
    [ "$(count_frames a.y4m)" = 6 ] || fail "y4m frames"
    mkfifo pipe
    ffmpeg -nostdin -v error -i pipe -f framemd5 - > md5 &
    reader=$!
    expect_exit 0 "$WOBBLE" render s.yaml -o pipe -q
    wait $reader || fail "reader failed"
    [ "$(grep -vc '^#' md5)" = 6 ] || fail "fifo: $(grep -vc '^#' md5) frames"
}

test_sinks_gif_and_webp_loop_forever() {
    sinks_scene
    expect_exit 0 "$WOBBLE" render s.yaml -o a.gif -q
    grep -q NETSCAPE2.0 a.gif || fail "gif without loop extension"
    [ "$(count_frames a.gif)" = 6 ] || fail "gif frames"
    # Moving frames: libwebp merges identical neighbours (a still clip
    # becomes a single-frame, still WebP).
    expect_exit 0 "$WOBBLE" render s.yaml -o a.webp -q
    python3 - <<'PY' || fail "webp structure"
import struct
d = open("a.webp", "rb").read()
assert d[:4] == b"RIFF" and d[8:12] == b"WEBP"
i, frames, loop = 12, 0, None
while i + 8 <= len(d):
    tag, n = d[i:i+4], struct.unpack("<I", d[i+4:i+8])[0]
    if tag == b"ANIM": loop = struct.unpack("<H", d[i+12:i+14])[0]
    if tag == b"ANMF": frames += 1
    i += 8 + n + (n & 1)
assert frames == 6, frames
assert loop == 0, loop
PY
}

test_sinks_dev_full_and_unwritable() {
    sinks_scene
    expect_exit 3 "$WOBBLE" render s.yaml -o /dev/full
    expect_grep "/dev/full" err
    touch plainfile
    expect_exit 3 "$WOBBLE" render s.yaml -o plainfile/x.mp4
    expect_grep "plainfile/x.mp4" err
    mkdir adir.mkv
    expect_exit 3 "$WOBBLE" render s.yaml -o adir.mkv
    only_files plainfile adir.mkv
}
