# Photo inputs: animated GIFs and videos play, "-" is standard input, and a
# photo's own alpha reaches the outputs that keep alpha (and a warning names
# them when the output drops it).  The inputs are made here by ffmpeg.

# anim_scene FILE INPUT FPS SECONDS: a still photo scene (no timeline) at the
# input's own size, so an unmoved mesh shows each input frame exactly.
anim_scene() {
    cat > "$1" <<YAML
wobble: 1
kind: photo
output: {fps: $3, duration: $4}
photo: {image: $2}
YAML
}

test_animated_gif_plays_its_frames() {
    ffmpeg -v error -f lavfi -i testsrc=size=64x48:rate=10:duration=1 anim.gif
    anim_scene s.yaml anim.gif 10 1.5
    expect_exit 0 "$WOBBLE" info s.yaml
    expect_grep "# photo.image: 10 frames at 10 fps, 1 s a play, looped" out
    expect_exit 0 "$WOBBLE" render s.yaml -o 'g_%02d.png'
    # Frame i of the output is input frame i, exactly as the same picture
    # given as a still; after the last frame the input starts over.
    for i in 0 1 4 9; do
        ffmpeg -v error -i anim.gif -vf "select=eq(n\\,$i)" -frames:v 1 "f$i.png"
        anim_scene "s$i.yaml" "f$i.png" 10 0.1
        expect_exit 0 "$WOBBLE" render "s$i.yaml" -o "still$i.png"
        cmp -s "still$i.png" "g_0$i.png" || fail "output frame $i is not input frame $i"
    done
    [ "$(md5sum g_0*.png | cut -c1-32 | sort -u | wc -l)" = 10 ] || fail "frames repeat"
    cmp -s g_10.png g_00.png || fail "no loop back to the first frame at 1 s"
    cmp -s g_13.png g_03.png || fail "the second play differs"
    # A range decodes to the same pictures as the whole run.
    expect_exit 0 "$WOBBLE" render s.yaml --frames 12:14 -o 'c_%02d.png'
    cmp -s c_12.png g_12.png && cmp -s c_13.png g_13.png || fail "a frame range differs"
}

test_video_input_follows_its_rate() {
    ffmpeg -v error -f lavfi -i testsrc=size=64x48:rate=5:duration=0.8 -pix_fmt yuv420p v.mp4
    anim_scene s.yaml v.mp4 10 1
    expect_exit 0 "$WOBBLE" info s.yaml
    expect_grep "# photo.image: 4 frames at 5 fps" out
    expect_exit 0 "$WOBBLE" render s.yaml -o 'v_%02d.png'
    # Input frames last 0.2 s: two output frames each.
    cmp -s v_00.png v_01.png && cmp -s v_02.png v_03.png || fail "an input frame is not held"
    cmp -s v_01.png v_02.png && fail "the picture does not change at 0.2 s"
    cmp -s v_03.png v_04.png && fail "the picture does not change at 0.4 s"
    cmp -s v_08.png v_00.png || fail "no loop at 0.8 s"
    # The mesh wobbles over the moving picture.
    cat >> s.yaml <<'YAML'
timeline:
  - time: 0
    grab: {at: [0.5, 0.5], path: [{time: 0.3, to: [0.7, 0.4]}]}
YAML
    expect_exit 0 "$WOBBLE" render s.yaml -o 'w_%02d.png'
    cmp -s w_03.png v_03.png && fail "the grab does not move the video"
    return 0
}

test_image_from_stdin() {
    photo_scene s.yaml 0.3
    expect_exit 0 "$WOBBLE" render s.yaml -o file.mkv
    "$WOBBLE" render s.yaml --set photo.image=- -o set.mkv < photo.png 2>err || fail "--set photo.image=-"
    cmp -s file.mkv set.mkv || fail "stdin differs from the file"
    sed 's/image: photo.png/image: -/' s.yaml > in.yaml
    "$WOBBLE" render in.yaml -o scene.mkv < photo.png 2>err || fail "image: - in the scene"
    cmp -s file.mkv scene.mkv || fail "stdin (scene key) differs from the file"
    ffmpeg -v error -f lavfi -i testsrc=size=64x48:rate=10:duration=1 anim.gif
    anim_scene a.yaml - 10 0.5
    "$WOBBLE" render a.yaml -o 'a_%02d.png' < anim.gif 2>err || fail "animated stdin"
    cmp -s a_00.png a_03.png && fail "an animated stdin does not play"
    # The scene itself on stdin leaves no picture there.
    expect_exit 2 "$WOBBLE" render - -o x.mkv < in.yaml
    expect_grep "photo.image" err
}

# The alpha of the first pixel of a PNG, read back by ffmpeg.
png_alpha() {
    ffmpeg -v error -i "$1" -vf alphaextract,crop=1:1:0:0 -f rawvideo -pix_fmt gray - | od -An -tu1 | tr -d ' '
}

test_photo_alpha_reaches_the_output() {
    ffmpeg -v error -f lavfi -i "color=red@0.5:size=64x48,format=rgba" -frames:v 1 a.png
    anim_scene s.yaml a.png 10 0.2
    expect_exit 0 "$WOBBLE" render s.yaml --frames 0:1 -o out.png
    want=$(png_alpha a.png)
    [ "$want" -lt 255 ] || fail "the input has no alpha"
    [ "$(png_alpha out.png)" = "$want" ] || fail "the photo's alpha $want is lost: $(png_alpha out.png)"
    expect_exit 0 "$WOBBLE" info s.yaml
    expect_grep "background: transparent" out
    # A background given is painted under the photo: opaque RGB.
    expect_exit 0 "$WOBBLE" render s.yaml --set 'output.background=#000000' --frames 0:1 -o b.png
    [ "$(probe b.png pix_fmt)" = rgb24 ] || fail "pix_fmt $(probe b.png pix_fmt)"
    expect_exit 0 "$WOBBLE" render s.yaml -o t.webm
    [ -s err ] && fail "a warning for .webm: $(cat err)"
    ffprobe -v error -show_streams t.webm | grep -q 'alpha_mode=1' || fail "webm without alpha"
    expect_exit 0 "$WOBBLE" render s.yaml -o t.mp4
    expect_grep "warning: the scene is transparent, but 'libx264' (yuv420p) has no alpha channel" err
    expect_grep ".webm, .mov, .mkv, .webp, .apng and PNG keep it" err
    expect_exit 0 "$WOBBLE" render s.yaml --set 'output.background=#000000' -o o.mp4
    [ -s err ] && fail "a warning for an opaque scene: $(cat err)"
    return 0
}

# FFmpeg 5 decodes no animated WebP; wobble cuts its frames out itself and
# draws them on the canvas (sub-rectangles, blending): each output frame is
# the source frame exactly (lossless), with and without alpha.
test_animated_webp_plays_its_frames() {
    for src in "testsrc=size=64x48:rate=10:duration=1" \
               "testsrc=size=64x48:rate=10:duration=1,format=rgba,colorchannelmixer=aa=0.5"; do
        rm -f ./*.png
        ffmpeg -v error -y -f lavfi -i "$src" -c:v libwebp_anim -lossless 1 -loop 0 anim.webp
        if command -v webpmux >/dev/null; then
            webpmux -info anim.webp | grep -q ' 36 ' || fail "the WebP has no sub-rectangle frame"
        fi
        anim_scene s.yaml anim.webp 10 1.2
        expect_exit 0 "$WOBBLE" info s.yaml
        expect_grep "# photo.image: 10 frames at 10 fps, 1 s a play, looped" out
        expect_exit 0 "$WOBBLE" render s.yaml -o 'w_%02d.png'
        for i in 0 1 5 9; do
            ffmpeg -v error -f lavfi -i "$src" -vf "select=eq(n\\,$i)" -frames:v 1 "f$i.png"
            anim_scene "s$i.yaml" "f$i.png" 10 0.1
            expect_exit 0 "$WOBBLE" render "s$i.yaml" -o "still$i.png"
            cmp -s "still$i.png" "w_0$i.png" || fail "output frame $i is not WebP frame $i ($src)"
        done
        cmp -s w_10.png w_00.png || fail "no loop"
        expect_exit 0 "$WOBBLE" render s.yaml --frames 11:12 -o c.png
        cmp -s c.png w_11.png || fail "a frame range differs"
    done
}
