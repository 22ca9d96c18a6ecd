# Real photographs (scikit-image's data, Debian package python3-skimage:
# astronaut, chelsea the cat, coffee), pulled hard: the stress cases of the
# photo mesh.  The test card stays in the other tests.

SKIMAGE_DATA=/usr/lib/python3/dist-packages/skimage/data

# (Debian's own python3, which has PIL from the same package, draws the masks.)
# real_photo NAME: copy $SKIMAGE_DATA/NAME.png here, installing the package
# through scripts/deps.sh when it is missing.
real_photo() {
    if [ ! -f "$SKIMAGE_DATA/$1.png" ]; then
        sh "$ROOT/scripts/deps.sh" python3-skimage >/dev/null 2>&1 || true
    fi
    [ -f "$SKIMAGE_DATA/$1.png" ] ||
        fail "$SKIMAGE_DATA/$1.png missing (scripts/deps.sh python3-skimage installs it)"
    cp "$SKIMAGE_DATA/$1.png" "$1.png"
}

# stress_scene CASE: write CASE.yaml, one stress case on a real photo,
# small and short (160x120, grid 48, 2 s at 10 fps) with a grip that never
# lets go, so the pull goes all the way.
stress_scene() {
    case $1 in
    far)    # a grab dragged far past the right border
        real_photo chelsea
        img=chelsea.png; extra=""
        events="  - time: 0.0
    grab: {at: [0.55, 0.5], path: [{time: 0.8, to: [1.0, 0.45]}, {time: 1.2, to: [1.0, 0.9]}]}
  - time: 1.3
    release: {}" ;;
    pin)    # a pin on the chin, a grab above it pulled down across it
        real_photo astronaut
        img=astronaut.png; extra=""
        events="  - time: 0.0
    pin: {at: [0.5, 0.42], radius: 0.05}
  - time: 0.0
    grab: {at: [0.5, 0.3], radius: 0.12, path: [{time: 1.0, to: [0.5, 0.62]}]}
  - time: 1.3
    release: {}" ;;
    holes)  # a mask with holes
        real_photo coffee
        img=coffee.png; extra="mask: holes.png"
        /usr/bin/python3 - <<'PY'
from PIL import Image, ImageDraw
m = Image.new("L", (600, 400), 0)
d = ImageDraw.Draw(m)
d.ellipse((150, 60, 450, 340), fill=255)
for x, y in ((230, 150), (330, 220), (270, 260)):
    d.ellipse((x - 25, y - 25, x + 25, y + 25), fill=0)
m.save("holes.png")
PY
        events="  - time: 0.0
    grab: {at: [0.5, 0.45], radius: 0.1, path: [{time: 0.8, to: [0.9, 0.2]}]}
  - time: 1.0
    release: {}" ;;
    border) # a mask touching the border
        real_photo chelsea
        img=chelsea.png; extra="mask: border.png"
        /usr/bin/python3 - <<'PY'
from PIL import Image, ImageDraw
m = Image.new("L", (451, 300), 0)
ImageDraw.Draw(m).rectangle((0, 80, 200, 299), fill=255)
m.save("border.png")
PY
        events="  - time: 0.0
    grab: {at: [0.3, 0.7], radius: 0.1, path: [{time: 0.8, to: [0.0, 0.05]}]}
  - time: 1.0
    release: {}" ;;
    edge)   # a grab near a corner pulled inwards: the border comes in
        real_photo chelsea
        img=chelsea.png; extra=""
        events="  - time: 0.0
    grab: {at: [0.97, 0.1], radius: 0.3, path: [{time: 0.8, to: [0.55, 0.45]}]}
  - time: 1.3
    release: {}" ;;
    alpha)  # an image with alpha
        real_photo coffee
        /usr/bin/python3 - <<'PY'
from PIL import Image
im = Image.open("coffee.png").convert("RGBA")
w, h = im.size
a = Image.linear_gradient("L").resize((w, h)).rotate(90, expand=False)
im.putalpha(a)
im.save("alpha.png")
PY
        img=alpha.png; extra=""
        events="  - time: 0.0
    grab: {at: [0.4, 0.5], radius: 0.1, path: [{time: 0.8, to: [1.0, 0.5]}]}
  - time: 1.0
    release: {}" ;;
    esac
    cat > "$1.yaml" <<YAML
wobble: 1
kind: photo
output: {width: 160, height: 120, fps: 10, duration: 2}
photo: {image: $img, grid: 48, grip: 10, $extra}
timeline:
$events
YAML
}

# folded_rows STATS: rows (frames) of a --stats CSV with a turned-over triangle.
folded_rows() {
    awk -F, 'NR > 1 && $8 > 0' "$1" | wc -l
}

# folded_total STATS: turned-over corner triangles summed over every frame.
folded_total() {
    awk -F, 'NR > 1 { s += $8 } END { print s + 0 }' "$1"
}

# With the default keys, the far drag, the pin pulled across (the
# chin-and-glasses case), the image with alpha, the mask with holes and the
# mask touching the border never show a flat or turned-over triangle in any
# frame, and the limit did act.
test_real_photo_stress_cases_never_fold() {
    for c in far pin alpha holes border; do
        stress_scene $c
        expect_exit 0 "$WOBBLE" render $c.yaml -o $c-%04d.png --stats $c.csv
        [ "$(awk -F, 'NR > 1' $c.csv | wc -l)" -eq 20 ] || fail "$c: not 20 stats rows"
        [ "$(folded_rows $c.csv)" -eq 0 ] || fail "$c: folded frames: $(awk -F, 'NR > 1 && $8 > 0' $c.csv)"
        [ "$(awk -F, 'NR > 1 { s += $7 } END { print s + 0 }' $c.csv)" -gt 0 ] ||
            fail "$c: the fold limit never acted"
    done
}

test_real_photo_stress_cases_fold_without_the_limit() {
    for c in far pin alpha holes border; do
        stress_scene $c
        expect_exit 0 "$WOBBLE" render $c.yaml -o $c.mkv --stats $c.csv \
            --set photo.fold_limit=false
        [ "$(folded_rows $c.csv)" -gt 0 ] || fail "$c: no fold even without the limit"
        [ "$(awk -F, 'NR > 1 { s += $7 } END { print s + 0 }' $c.csv)" -eq 0 ] ||
            fail "$c: limited cells counted with the limit off"
    done
}

# At frame rates whose frames fall between the limit's regular runs (24,
# 25 and 50 fps at 240 Hz: 10, 9.6 and 4.8 steps a frame) the limit also
# runs on each frame's step: no drawn frame shows a fold, and a range
# rendered alone still shows the frames of the whole render.
test_real_photo_no_fold_at_any_frame_rate() {
    for c in far pin holes; do
        stress_scene $c
        for fps in 24 25 50; do
            expect_exit 0 "$WOBBLE" render $c.yaml -o $c.mkv --fps $fps --stats $c.csv
            [ "$(folded_rows $c.csv)" -eq 0 ] || fail "$c at $fps fps: folded frames: $(awk -F, 'NR > 1 && $8 > 0' $c.csv | head -3)"
        done
    done
    "$WOBBLE" render far.yaml -q --fps 25 -o all-%04d.png || fail "whole render"
    "$WOBBLE" render far.yaml -q --fps 25 -o part-%04d.png --frames 11:17 || fail "frames 11:17"
    for i in 11 12 13 14 15 16; do
        cmp -s all-00$i.png part-00$i.png || fail "frame $i differs"
    done
}

# The limit acting hard (the far drag): the same states (the hash column)
# at every width, and the same frames on 1 and 2 threads.
test_real_photo_fold_limit_same_on_every_width_and_thread_count() {
    stress_scene far
    for w in 4 8 16; do
        WOBBLE_SIMD=$w "$WOBBLE" render far.yaml -q -o w$w-%04d.png --stats w$w.csv --threads 1 ||
            fail "render at width $w"
    done
    "$WOBBLE" render far.yaml -q -o j2-%04d.png --stats j2.csv --threads 2 || fail "render on 2 threads"
    [ "$(awk -F, 'NR > 1 { s += $7 } END { print s + 0 }' w4.csv)" -gt 0 ] || fail "the limit never acted"
    for f in w8 w16 j2; do
        cmp -s w4.csv $f.csv || fail "$f differs from w4: $(diff w4.csv $f.csv | head -4)"
    done
    [ "$(cat w4-*.png | md5sum)" = "$(cat j2-*.png | md5sum)" ] || fail "2 threads draw other frames"
    [ "$(cat w4-*.png | md5sum)" = "$(cat w16-*.png | md5sum)" ] || fail "width 16 draws other frames"
}

# Where the limit acts, a range rendered alone (the solver fast-forwards to
# its first frame) still shows the frames of the whole render: the limit
# runs on absolute step numbers, not where a render stops.
test_real_photo_fold_limit_chunks_concatenate() {
    stress_scene far
    "$WOBBLE" render far.yaml -q -o all-%04d.png || fail "whole render"
    "$WOBBLE" render far.yaml -q -o part-%04d.png --frames 7:13 || fail "frames 7:13"
    for i in 7 8 9 10 11 12; do
        cmp -s all-00$(printf %02d $i).png part-00$(printf %02d $i).png || fail "frame $i differs"
    done
}

# background_frames PREFIX: frames PREFIX-*.png with a pixel of the magenta
# background (#ff00ff, in no photo here), and how many, one per line.
background_frames() {
    /usr/bin/python3 - "$1" <<'PY'
import glob, sys
from PIL import Image
for f in sorted(glob.glob(sys.argv[1] + "-*.png")):
    px = Image.open(f).convert("RGB").getdata()
    n = sum(1 for r, g, b in px if r > 180 and g < 90 and b > 180)
    if n:
        print(f, n)
PY
}

# With the default photo.edge, no frame of the stress cases shows anything
# but the photo (fit fill: the frame is the photo at rest), however far its
# border is pulled in; with photo.edge: transparent the background shows
# where it is, and a colour fills that place instead.
test_real_photo_default_edge_never_shows_the_background() {
    for c in far pin edge; do
        stress_scene $c
        expect_exit 0 "$WOBBLE" render $c.yaml -q -o $c-%04d.png \
            --set output.fit=fill --set 'output.background="#ff00ff"'
        [ -z "$(background_frames $c)" ] || fail "$c: background shows: $(background_frames $c | head -3)"
    done
    for m in mirror '"#00ff00"'; do
        expect_exit 0 "$WOBBLE" render edge.yaml -q -o m-%04d.png --set photo.edge="$m" \
            --set output.fit=fill --set 'output.background="#ff00ff"'
        [ -z "$(background_frames m)" ] || fail "edge $m: background shows"
    done
    "$WOBBLE" render edge.yaml -q -o t-%04d.png --set photo.edge=transparent \
        --set output.fit=fill --set 'output.background="#ff00ff"' || fail "render, edge transparent"
    [ "$(background_frames t | wc -l)" -ge 10 ] || fail "the border never came in: $(background_frames t)"
    # The coloured edge is where the background showed.
    green=$(/usr/bin/python3 -c '
from PIL import Image
px = Image.open("m-0010.png").convert("RGB").getdata()
print(sum(1 for r, g, b in px if g > 200 and r < 60 and b < 60))')
    [ "$green" -gt 500 ] || fail "frame 10 with a green edge has $green green pixels"
}
