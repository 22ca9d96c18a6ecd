# The example picture and mask are made by wobble itself, byte for byte.

test_testcard_reproduces_the_example_picture() {
    expect_exit 0 "$WOBBLE" testcard -o card.png
    cmp card.png "$ROOT/examples/photo.png" || fail "examples/photo.png is not what 'wobble testcard' makes"
    expect_exit 0 "$WOBBLE" testcard --mask -o mask.png
    cmp mask.png "$ROOT/examples/photo-mask.png" || fail "examples/photo-mask.png is not 'wobble testcard --mask'"
}

test_testcard_sizes_and_errors() {
    expect_exit 0 "$WOBBLE" testcard --size 320x200 -o small.png
    [ "$(probe small.png width)x$(probe small.png height)" = 320x200 ] || fail "size"
    expect_exit 2 "$WOBBLE" testcard
    expect_grep "missing -o" err
    expect_exit 2 "$WOBBLE" testcard --size 3x3 -o x.png
    expect_exit 3 "$WOBBLE" testcard -o /proc/card.png
}
