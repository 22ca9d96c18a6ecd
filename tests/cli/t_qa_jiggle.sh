# Jiggle scenes checked the way a user drives them: documented key ranges at
# their ends, events at the edges of the timeline, and what each view draws.

# jiggle_orb_scene FILE: a small 3D orb with a floor and no drive.
jiggle_orb_scene() {
    cat > "$1" <<'YAML'
wobble: 1
kind: jiggle
output: {width: 64, height: 36, fps: 10, duration: 0.2}
jiggle: {view: 3d, shape: orb, colour: "#ee9e8c", floor: {y: -0.86}}
YAML
}

# camera.distance 0 ("fit the shape") put the camera at r/tan(fov/2), which
# is inside the shape from fov ~115 deg on: at the documented fov 150 the orb
# vanished and only the floor was drawn.  The orb is at the frame's centre at
# every fov now.
test_jiggle_wide_fov_still_shows_the_shape() {
    jiggle_orb_scene o.yaml
    for fov in 40 120 150; do
        expect_exit 0 "$WOBBLE" render o.yaml -q --set jiggle.camera.fov=$fov -o "f$fov-%04d.png"
        set -- $(pixel "f$fov-0000.png" 32 18)
        [ $(($1 - $3)) -gt 30 ] || fail "fov $fov: centre pixel $* is not the orb"
    done
}

# A jiggle.weights file that is missing, a folder or not a PNG was found
# only when the run decoded it: "scene.yaml: error: jiggle.weights: ..."
# with no line or column, and `wobble info` passed the scene.  It is an
# error at the key now, in the file and in --set, for render and info.
test_jiggle_weights_that_cannot_be_read_name_the_key() {
    jiggle_orb_scene o.yaml
    printf 'weights: &w not a png\n' > text.png
    for w in nope.png text.png .; do
        expect_exit 2 "$WOBBLE" render o.yaml -q --set jiggle.weights=$w -o o.mkv
        head -1 err | grep -q "^--set:1:16: error: 'jiggle.weights': " || fail "$w: $(cat err)"
        sed -n 3p err | grep -q '^                 \^$' || fail "$w: no caret: $(cat err)"
        [ ! -e o.mkv ] || fail "$w: output written"
    done
    expect_exit 2 "$WOBBLE" render o.yaml -q --set jiggle.weights=nope.png -o o.mkv
    expect_grep "cannot read 'nope.png': No such file or directory" err
    mkdir sub
    printf 'wobble: 1\nkind: jiggle\njiggle:\n  view: 3d\n  weights: missing.png\n' > sub/m.yaml
    expect_exit 2 "$WOBBLE" info sub/m.yaml
    expect_grep "sub/m.yaml:5:12: error: 'jiggle.weights': cannot read 'sub/missing.png'" err
    # a real map next to the scene is found from anywhere
    expect_exit 0 "$WOBBLE" weights export orb -o sub/missing.png
    expect_exit 0 "$WOBBLE" info sub/m.yaml
}

# jiggle.colour takes a colour with alpha; the 2D fill honours it but the 3D
# surface is drawn opaque, which the key's documentation did not say.
test_jiggle_colour_alpha_is_2d_only_as_documented() {
    jiggle_orb_scene o.yaml
    expect_exit 0 "$WOBBLE" render o.yaml -q --set 'jiggle.colour=#ee9e8c40' \
        --set output.background=transparent -o "a-%04d.png"
    [ "$(pixel a-0000.png 32 18 rgba | cut -d' ' -f4)" = 255 ] || fail "3d surface not opaque"
    expect_exit 0 "$WOBBLE" render o.yaml -q --set 'jiggle.colour=#ee9e8c40' \
        --set jiggle.view=2d --set jiggle.shape=disc --set output.background=transparent \
        -o "b-%04d.png"
    [ "$(pixel b-0000.png 32 18 rgba | cut -d' ' -f4)" -lt 128 ] || fail "2d fill ignores alpha"
    "$WOBBLE" info --keys > keys
    grep "^jiggle.colour" keys | grep -q "opaque (alpha ignored)" || fail "$(grep colour keys)"
}

# The manual said any rate "only samples the same curves more or less
# densely".  That holds for acceleration keys (t_jiggle checks it); a path is
# differenced over one step, so the 1D example's masses stray from their
# rate-120 curves by up to 0.04 units at 60 steps a second and 0.24 at 15
# (compared at times both rates step to), as the manual now says.
test_jiggle_path_drive_changes_with_the_rate_as_documented() {
    for r in 120 60 15; do
        expect_exit 0 "$WOBBLE" render "$ROOT/examples/jiggle-1d.yaml" -q --size 64x36 \
            --set jiggle.rate=$r --stats r$r.csv -o r$r.mkv
    done
    python3 - <<'PY' || fail "rates against 120"
def rows(r):
    return [l.split(",") for l in open("r%d.csv" % r)][1:]
def stray(r):
    # 30 fps: every frame is a step of 60, every other frame one of 15
    every = 1 if r == 60 else 2
    return max(abs(float(x[3]) - float(y[3]))
               for i, (x, y) in enumerate(zip(rows(120), rows(r))) if i % every == 0)
assert 0.03 < stray(60) <= 0.04, stray(60)
assert 0.2 < stray(15) <= 0.25, stray(15)
PY
    grep -q "0.04 units at 60 steps a second and 0.24 at 15" "$ROOT/man/wobble.1" ||
        fail "the manual does not give the rate's effect"
}

# A portrait frame of a 2D scene kept the landscape scale (the height alone
# set it), so the ring and its collider were cut off at the sides.  The 2D
# and 1D world is a 16:9 rectangle framed by output.fit now: `fit` shows
# all of it, `fill` covers the frame and crops.  Every frame of the ring
# example: the shape is drawn, and above the floor (which spans the width)
# the border columns are background only.
test_jiggle_2d_portrait_keeps_the_subject_in_the_frame() {
    expect_exit 0 "$WOBBLE" render "$ROOT/examples/jiggle-2d-ring.yaml" -q --size 90x160 \
        --fps 10 -o p_%04d.png
    expect_exit 0 "$WOBBLE" render "$ROOT/examples/jiggle-2d-ring.yaml" -q --size 90x160 \
        --fps 10 --frames 10:11 --set output.fit=fill -o c_%04d.png
    [ "$(ls p_*.png | wc -l)" = 60 ] || fail "frames: $(ls p_*.png | wc -l)"
    for f in p_*.png; do raw_pixels "$f" rgb24; done > p.rgb
    raw_pixels c_0010.png rgb24 > c.rgb
    python3 - <<'PY' || fail "portrait framing"
W, H = 90, 160
BG = (0x1b, 0x1e, 0x24)
def frames(path):
    a = open(path, "rb").read()
    n = W * H * 3
    assert a and len(a) % n == 0, len(a)
    return [a[i:i + n] for i in range(0, len(a), n)]
def px(f, x, y):
    i = (y * W + x) * 3
    return tuple(f[i:i + 3])
def framing(f):
    # the floor's top: the first row drawn alike at both borders
    top = next(y for y in range(H) if px(f, 0, y) != BG and px(f, 0, y) == px(f, W - 1, y))
    edge = sum(1 for y in range(top) for x in (0, W - 1) if px(f, x, y) != BG)
    warm = [x for y in range(top + 1) for x in range(W)
            if px(f, x, y)[0] > 150 and px(f, x, y)[0] > px(f, x, y)[2] + 40]
    return edge, len(warm), min(warm), max(warm)
for k, f in enumerate(frames("p.rgb")):
    edge, n, x0, x1 = framing(f)
    assert edge == 0 and n > 200 and x0 > 2 and x1 < W - 3, (k, edge, n, x0, x1)
# fill: the frame is covered at the landscape scale, the ring cut by the border
edge, n, x0, x1 = framing(frames("c.rgb")[0])
assert edge > 20 and x1 == W - 1, (edge, n, x0, x1)
PY
}

# The 1D view in portrait: `fit` shows the whole trace panel (it was a
# sliver at the right edge); `fill` keeps the landscape scale.
test_jiggle_1d_portrait_shows_the_trace_panel() {
    for fit in fit fill; do
        expect_exit 0 "$WOBBLE" render "$ROOT/examples/jiggle-1d.yaml" -q --size 90x160 \
            --set output.fit=$fit --frames 30:31 -o ${fit}_%04d.png
        raw_pixels ${fit}_0030.png rgb24 > $fit.rgb
    done
    python3 - <<'PY' || fail "1d portrait"
from collections import Counter
W = 90
def panel_share(path):
    a = open(path, "rb").read()
    px = [tuple(a[i:i + 3]) for i in range(0, len(a), 3)]
    (bg, _), (panel, _) = Counter(px).most_common(2)   # background, then the panel
    assert bg == (0x16, 0x19, 0x1f), bg
    xs = [i % W for i, p in enumerate(px) if p == panel]
    return (max(xs) - min(xs) + 1) / W
assert panel_share("fit.rgb") > 0.6, panel_share("fit.rgb")
assert panel_share("fill.rgb") < 0.2, panel_share("fill.rgb")
PY
}

# A malformed point said "a point [x, y] (0..1 across the image, or pixels
# like [312px, 80px])" in every kind, though jiggle points are world units
# and rope points metres, and both refuse pixels.  Each kind's point error
# now describes its own points; photo points keep the image wording.
test_point_errors_name_the_kinds_units() {
    expect_exit 2 "$WOBBLE" render "$ROOT/examples/jiggle-2d-ring.yaml" --dry-run \
        --set 'jiggle.ring_collider.at=[1]'
    expect_grep "'jiggle.ring_collider.at' expects a point [x, y] in world units, found" err
    expect_exit 2 "$WOBBLE" render "$ROOT/examples/jiggle-1d.yaml" --dry-run \
        --set 'jiggle.drive.path.0.to=[0, x]'
    expect_grep "'jiggle.drive.path[0].to' expects a number in world units, found 'x'" err
    expect_exit 2 "$WOBBLE" render "$ROOT/examples/rope-cut.yaml" --dry-run \
        --set 'rope.ropes.0.from=[1, 2, 3]'
    expect_grep "'rope.ropes[0].from' expects a point [x, y] in metres, found" err
    ! grep -q "across the image" err || fail "world point described as image point: $(cat err)"
    expect_exit 2 "$WOBBLE" render "$ROOT/examples/photo-grab.yaml" --dry-run \
        --set 'timeline.0.grab.at=[1]'
    expect_grep "expects a point [x, y] (0..1 across the image, or pixels like [312px, 80px])" err
}
