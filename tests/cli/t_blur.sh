# output.motion_blur end to end (the averages themselves: tests/unit/test_blur.c).

blur_scene() {
    cat > b.yaml <<YAML
wobble: 1
kind: jiggle
output: {width: 96, height: 64, fps: 10, duration: 1, motion_blur: {samples: $1, shutter: 0.5}}
jiggle: {view: 2d, shape: disc, drive: {walk: {bob: 0.3}, gain: 3}}
YAML
}

# The same bytes on 1 and 2 threads, and in two chunks.
test_blur_same_bytes_on_threads_and_chunks() {
    blur_scene 6
    expect_exit 0 "$WOBBLE" render b.yaml -q --threads 1 -o one_%02d.png
    expect_exit 0 "$WOBBLE" render b.yaml -q --threads 2 -o two_%02d.png
    expect_exit 0 "$WOBBLE" render b.yaml -q --threads 2 --frames 0:4 -o ch_%02d.png
    expect_exit 0 "$WOBBLE" render b.yaml -q --threads 1 --frames 4:10 -o ch_%02d.png
    for f in 00 01 02 03 04 05 06 07 08 09; do
        cmp -s one_$f.png two_$f.png || fail "frame $f differs between 1 and 2 threads"
        cmp -s one_$f.png ch_$f.png || fail "frame $f differs in chunks"
    done
}

# samples 1 is no blur: the bytes of a render without the key; more
# samples change the moving frames.
test_blur_one_sample_is_the_sharp_render() {
    blur_scene 1
    expect_exit 0 "$WOBBLE" render b.yaml -q -o one_%02d.png
    sed 's/, motion_blur: {samples: 1, shutter: 0.5}//' b.yaml > plain.yaml
    expect_exit 0 "$WOBBLE" render plain.yaml -q -o plain_%02d.png
    blur_scene 4
    expect_exit 0 "$WOBBLE" render b.yaml -q -o four_%02d.png
    for f in 00 03 07; do
        cmp -s one_$f.png plain_$f.png || fail "frame $f: samples 1 is not the sharp render"
    done
    cmp -s four_05.png plain_05.png && fail "frame 5 is not blurred"
    true
}

test_blur_keys_are_checked() {
    blur_scene 0
    expect_exit 2 "$WOBBLE" render b.yaml -o x.png
    expect_grep "b.yaml:3:" err
    expect_grep "samples" err
    blur_scene 4
    expect_exit 2 "$WOBBLE" render b.yaml -o x.png --set output.motion_blur.shutter=0
    expect_grep "shutter" err
}
