# photo.fill: what the still background shows under a masked object.

# fill_scene FILE FILL: the example's jelly block (a segment) grabbed and
# swung, small and short, with photo.fill = FILL.
fill_scene() {
    cp "$ROOT/examples/photo.png" photo.png
    cat > "$1" <<YAML
wobble: 1
kind: photo
output: {width: 160, height: 120, fps: 10, duration: 1}
photo:
  image: photo.png
  grid: 48
  segment: {at: [0.835, 0.36], tolerance: 0.15}
  preset: jelly
  grip: 5
  fill: $2
timeline:
  - time: 0.0
    grab: {at: [0.835, 0.36], radius: 0.5, path: [{time: 0.6, to: [0.65, 0.55]}]}
YAML
}

test_fill_none_gives_the_frames_of_before() {
    # The masked examples' goldens were made before the fill existed.
    . "$ROOT/tests/golden/settings.sh"
    for scene in photo-mask photo-segment; do
        cp -r "$ROOT/tests/golden/$scene" "g_$scene"
        expect_exit 0 "$WOBBLE" check "$ROOT/examples/$scene.yaml" --golden "g_$scene" \
            $GOLDEN_OPTIONS --set photo.fill=none
        # The default fills: the frames differ once the object moves.
        expect_exit 1 "$WOBBLE" check "$ROOT/examples/$scene.yaml" --golden "g_$scene" \
            $GOLDEN_OPTIONS
    done
}

test_fill_leaves_unmasked_scenes_alone() {
    photo_scene a.yaml 0.6
    render_md5 plain a.yaml
    render_md5 none a.yaml --set photo.fill=none
    render_md5 red a.yaml --set 'photo.fill=#ff0000'
    cmp plain.md5 none.md5 || fail "photo.fill changed a scene without a mask"
    cmp plain.md5 red.md5 || fail "photo.fill changed a scene without a mask"
}

test_fill_colour_shows_where_the_object_was() {
    fill_scene s.yaml '"#13f7a9"'
    expect_exit 0 "$WOBBLE" render s.yaml -o g.png --frames 9:10 -q
    fill_scene s.yaml none
    expect_exit 0 "$WOBBLE" render s.yaml -o n.png --frames 9:10 -q
    # The fill's colour (which the test card does not hold) shows only with
    # it; within 30 levels: the moving pass's faint trail lies over it.
    fill_colour() {
        raw_pixels "$1" rgb24 | od -An -v -tu1 -w3 |
            awk '$1 <= 49 && $2 >= 217 && $3 >= 139 && $3 <= 199 { n++ }
                 END { print n + 0 }'
    }
    [ "$(fill_colour n.png)" -eq 0 ] || fail "fill_colour without the fill: $(fill_colour n.png)"
    [ "$(fill_colour g.png)" -gt 20 ] || fail "no fill behind the moved block: $(fill_colour g.png)"
}

test_fill_same_on_every_thread_count() {
    fill_scene s.yaml inpaint
    expect_same_on_threads s.yaml "2 3"
}

test_fill_bad_values_point_at_the_value() {
    photo_scene bad.yaml 1
    printf '  - time: 0.5\n    release: {}\n' >> bad.yaml
    sed -i 's/preset: jelly}/preset: jelly, fill: blue}/' bad.yaml
    expect_render_error 4 58 "'photo.fill' expects inpaint, none or a colour (\"#rrggbb\", \"#rrggbbaa\", [r, g, b] or [r, g, b, a]), found 'blue'"
    sed -i 's/fill: blue/fill: inpant/' bad.yaml
    expect_render_error 4 58 "'photo.fill' expects inpaint, none or a colour (\"#rrggbb\", \"#rrggbbaa\", [r, g, b] or [r, g, b, a]), found 'inpant' (did you mean 'inpaint'?)"
    sed -i 's/fill: inpant/fill: [1, 2, 0]/' bad.yaml
    expect_render_error 4 62 "'photo.fill' channels must be in [0, 1], found 2"
    sed -i 's/fill: \[1, 2, 0\]/fill: "#12345"/' bad.yaml
    expect_render_error 4 58 "'photo.fill' expects a colour (\"#rrggbb\", \"#rrggbbaa\", [r, g, b] or [r, g, b, a]), found the string \"#12345\""
    photo_scene ok.yaml 1
    expect_exit 2 "$WOBBLE" render ok.yaml -o x.mkv --set photo.fill=nope
    expect_grep "'photo.fill' expects inpaint, none or a colour" err
    # Printed back as given.
    expect_exit 0 "$WOBBLE" info ok.yaml --set 'photo.fill=[0.5, 0.25, 1]'
    expect_grep "fill: [0.5, 0.25, 1, 1]" out
    expect_exit 0 "$WOBBLE" info ok.yaml
    expect_grep "fill: inpaint" out
}
