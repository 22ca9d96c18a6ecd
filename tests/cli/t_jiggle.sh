# The jiggle kind end to end: scene keys, runner, 1D, 2D and 3D views, the
# weights command and the weight-map round trip.

# A small 2D scene: a ring thrown right and dropped on the floor, a ring
# collider, a shake and a reseed.
jiggle_scene() {
    cat > j.yaml <<'YAML'
wobble: 1
kind: jiggle
seed: 3
output: {width: 96, height: 54, fps: 10, duration: 1.5, background: "#202020"}
jiggle:
  view: 2d
  shape: ring
  overlay: true
  floor: {y: -1.2}
  ring_collider: {at: [1.45, 0.55], radius: 0.28}
  drive:
    path:
      - {time: 0.4, to: [0.6, -0.3]}
      - {time: 0.8, to: [0, 0]}
timeline:
  - {time: 0.9, shake: {span: 6}}
  - {time: 1.2, reseed: {seed: 9}}
YAML
}

# A 1D scene driven by acceleration steps at multiples of 1/15 s, so every
# rate below steps the same piecewise-constant forcing.
accel_scene() {
    cat > a.yaml <<'YAML'
wobble: 1
kind: jiggle
output: {width: 64, height: 36, fps: 10, duration: 1.1}
jiggle:
  view: 1d
  drive:
    accel:
      - {time: 0.2, to: [0, 3], ease: step}
      - {time: 0.6, to: [0, -2], ease: step}
      - {time: 0.8, to: [0, 0], ease: step}
YAML
}

test_jiggle_png_frames_draw_the_scene() {
    jiggle_scene
    render_pngs f 15 96x54 j.yaml
    raw_pixels f/0000.png rgb24 > a.rgb
    raw_pixels f/0004.png rgb24 > b.rgb
    python3 - <<'PY' || fail "frame content"
a = open("a.rgb", "rb").read(); b = open("b.rgb", "rb").read()
px = [tuple(a[i:i + 3]) for i in range(0, len(a), 3)]
assert (0x20, 0x20, 0x20) in px                      # background
# the shape's fill (#ee9e8c, tinted by the bones): warm pixels, many of them
warm = sum(1 for r, g, b_ in px if r > 180 and r > b_ + 40)
assert warm > 200, warm
# the hole of the ring at the centre shows the background
w = 96; c = (27 * w + 48) * 3
assert tuple(a[c:c + 3]) == (0x20, 0x20, 0x20), tuple(a[c:c + 3])
assert a != b                                         # it moved
assert len(set(px)) > 30                              # antialiased edges
PY
}

test_jiggle_1d_draws_traces() {
    accel_scene
    expect_exit 0 "$WOBBLE" render a.yaml -o t_%04d.png --frames 10:11 --size 160x90
    raw_pixels t_0010.png rgb24 > t.rgb
    python3 - <<'PY' || fail "1d content"
a = open("t.rgb", "rb").read()
px = {tuple(a[i:i + 3]) for i in range(0, len(a), 3)}
# the three regimes' colours (orange, green, blue) are drawn
def near(c):
    return any(sum(abs(p[k] - c[k]) for k in range(3)) < 40 for p in px)
for c in [(250, 158, 64), (92, 204, 133), (107, 158, 250)]:
    assert near(c), c
PY
}

# A frame too narrow for the trace panel still renders: the handle and the
# masses, no traces (the panel once got a negative width and the trace
# sampling wrote past its buffer).
test_jiggle_1d_narrow_frame_renders() {
    for w in 150 100 16; do
        expect_exit 0 "$WOBBLE" render "$ROOT/examples/jiggle-1d.yaml" --set output.width=$w \
            --frames 10:11 -o n${w}_%04d.png
        [ "$(probe n${w}_0010.png width)" = "$w" ] || fail "width $w"
    done
}

test_jiggle_deterministic_across_threads() {
    jiggle_scene
    expect_same_on_threads j.yaml "2 3"
}

test_jiggle_same_motion_at_any_fps() {
    jiggle_scene
    # t = 1 s is frame 24 at 24 fps, 30 at 30 and 60 at 60: the same state.
    for f in 24 30 60; do
        expect_exit 0 "$WOBBLE" render j.yaml -o /dev/null --fps $f --dry-run
        expect_exit 0 "$WOBBLE" render j.yaml -o s$f.mkv --fps $f --stats s$f.csv --size 32x18
    done
    h24=$(grep '^24,' s24.csv | cut -d, -f4-)
    h30=$(grep '^30,' s30.csv | cut -d, -f4-)
    h60=$(grep '^60,' s60.csv | cut -d, -f4-)
    [ -n "$h24" ] && [ "$h24" = "$h30" ] && [ "$h24" = "$h60" ] || fail "rows $h24 / $h30 / $h60"
    # and at every common time (0.5 s steps)
    for t in 0.500000 1.000000; do
        a=$(grep ",$t," s24.csv | cut -d, -f3-); b=$(grep ",$t," s60.csv | cut -d, -f3-)
        [ "$a" = "$b" ] || fail "t=$t: $a vs $b"
    done
    # --frames fast-forwards to the same state
    expect_exit 0 "$WOBBLE" render j.yaml -o d.mkv --fps 30 --frames 30:31 --stats sf.csv --size 32x18
    [ "$(grep '^30,' sf.csv | cut -d, -f4-)" = "$h30" ] || fail "--frames disagrees"
}

test_jiggle_exact_step_same_curve_at_any_rate() {
    accel_scene
    # The exact step: 15, 30, 120 and 960 steps per second give the same
    # offsets at t = 1 s up to round-off (only the sample density differs).
    for r in 15 30 120 960; do
        expect_exit 0 "$WOBBLE" render a.yaml -o r$r.mkv --set jiggle.rate=$r --stats r$r.csv
    done
    python3 - <<'PY' || fail "rates disagree"
rows = {}
for r in (15, 30, 120, 960):
    for line in open("r%d.csv" % r):
        f = line.strip().split(",")
        if f[0] == "10":
            rows[r] = float(f[3])
ref = rows[120]
assert ref > 0.005, rows
for r, v in rows.items():
    assert abs(v - ref) <= 1e-7 * ref, rows
PY
}

test_jiggle_reseed_reproducible() {
    jiggle_scene
    expect_exit 0 "$WOBBLE" render j.yaml -o a.mkv --stats a.csv --size 32x18
    expect_exit 0 "$WOBBLE" render j.yaml -o b.mkv --stats b.csv --size 32x18
    cmp a.csv b.csv || fail "two renders differ"
    sed 's/seed: 9}/seed: 10}/' j.yaml > k.yaml
    expect_exit 0 "$WOBBLE" render k.yaml -o c.mkv --stats c.csv --size 32x18
    # the same until the reseed at 1.2 s, different after it
    [ "$(sed -n 13p a.csv)" = "$(sed -n 13p c.csv)" ] || fail "differs before the reseed"
    [ "$(sed -n 15p a.csv | cut -d, -f6)" != "$(sed -n 15p c.csv | cut -d, -f6)" ] ||
        fail "reseed had no effect"
    # another scene seed: another character from the start
    expect_exit 0 "$WOBBLE" render j.yaml -o d.mkv --stats d.csv --size 32x18 --seed 4
    [ "$(sed -n 6p a.csv | cut -d, -f6)" != "$(sed -n 6p d.csv | cut -d, -f6)" ] ||
        fail "seed had no effect"
}

test_jiggle_weights_export_png() {
    expect_exit 0 "$WOBBLE" weights export orb --seed 7
    [ -f jiggle-weights-seed-7.png ] || fail "default name: $(ls)"
    [ "$(probe jiggle-weights-seed-7.png width)x$(probe jiggle-weights-seed-7.png height)" = 512x256 ] ||
        fail "size"
    [ "$(probe jiggle-weights-seed-7.png pix_fmt)" = rgba ] || fail "pix_fmt"
    expect_exit 0 "$WOBBLE" weights export torus -o t.png --size 64x32
    [ "$(probe t.png width)x$(probe t.png height)" = 64x32 ] || fail "--size"
    for s in capsule dancer walker disc ring capsule-2d; do
        expect_exit 0 "$WOBBLE" weights export $s -o $s.png
    done
    # orb: the bottom (last rows) is bone 0 = red, the top is unpainted
    raw_pixels jiggle-weights-seed-7.png rgba > w.rgba
    python3 - <<'PY' || fail "orb paint"
a = open("w.rgba", "rb").read()
row = lambda y: a[y * 512 * 4:(y + 1) * 512 * 4]
top, low = row(2), row(215)
assert top[0] == 0 and top[3] == 255, top[:4]
assert low[0] > 200, low[:4]
PY
    expect_exit 2 "$WOBBLE" weights export cube
    expect_grep "unknown shape 'cube'" err
    expect_exit 2 "$WOBBLE" weights import x.png
    expect_exit 2 "$WOBBLE" weights export
}

test_jiggle_weights_round_trip_and_seed_in_name() {
    jiggle_scene
    expect_exit 0 "$WOBBLE" weights export ring --seed 7
    cp jiggle-weights-seed-7.png plain.png
    # the exported preset is what the scene paints by default
    expect_exit 0 "$WOBBLE" render j.yaml -o a.mkv --stats a.csv --size 32x18 --seed 7
    expect_exit 0 "$WOBBLE" render j.yaml -o b.mkv --stats b.csv --size 32x18 --seed 7 \
        --set jiggle.weights=plain.png
    cmp a.csv b.csv || fail "exported ring map differs from the preset"
    # seed-7 in the name reseeds a seed-3 scene to 7
    expect_exit 0 "$WOBBLE" render j.yaml -o c.mkv --stats c.csv --size 32x18 \
        --set jiggle.weights=jiggle-weights-seed-7.png
    cmp a.csv c.csv || fail "seed-in-name did not reseed"
    expect_exit 0 "$WOBBLE" render j.yaml -o d.mkv --stats d.csv --size 32x18 \
        --set jiggle.weights=plain.png
    ! cmp -s a.csv d.csv || fail "seed 3 and seed 7 agree"
    # a 3D shape's map works too, and a missing file is an input error
    expect_exit 0 "$WOBBLE" weights export orb -o orb.png
    expect_exit 0 "$WOBBLE" render j.yaml -o e.mkv --set jiggle.weights=orb.png --size 32x18
    expect_exit 2 "$WOBBLE" render j.yaml -o e.mkv --set jiggle.weights=nope.png
}

test_jiggle_info_round_trip() {
    jiggle_scene
    expect_exit 0 "$WOBBLE" info j.yaml
    cp out p.yaml
    expect_grep "shape: ring" p.yaml
    expect_grep "reseed: {seed: 9}" p.yaml
    expect_exit 0 "$WOBBLE" info p.yaml
    cmp out p.yaml || fail "printout does not reload to the same scene"
}

test_jiggle_bad_keys() {
    printf 'wobble: 1\nkind: jiggle\njiggle:\n  frq: 2\n' > bad.yaml
    expect_render_error 4 3 "unknown key 'frq' in 'jiggle' (did you mean 'freq'?)"
    printf 'wobble: 1\nkind: jiggle\njiggle:\n  view: 3d\n  shape: ring\n' > bad.yaml
    expect_render_error 5 10 "'jiggle.shape: ring' is a 2d outline; view 3d has orb, capsule, torus, dancer and walker"
    printf 'wobble: 1\nkind: jiggle\njiggle:\n  shape: walker\n' > bad.yaml
    expect_render_error 4 10 "'jiggle.shape: walker' is a 3d mesh; view 2d has disc, capsule and ring (or set view: 3d)"
    printf 'wobble: 1\nkind: jiggle\njiggle:\n  view: 3d\n  squash: 2\n' > bad.yaml
    expect_exit 2 "$WOBBLE" render bad.yaml -o bad.mkv
    expect_grep "bad.yaml:5:11: error:" err
    printf 'wobble: 1\nkind: jiggle\njiggle:\n  damp: -1\n' > bad.yaml
    expect_exit 2 "$WOBBLE" render bad.yaml -o bad.mkv
    expect_grep "bad.yaml:4:9: error:" err
    printf 'wobble: 1\nkind: jiggle\njiggle:\n  drive:\n    walk: {}\n    orbit: {}\n' > bad.yaml
    expect_render_error 5 11 "'jiggle.drive' has both 'orbit' and 'walk'; give one driver"
    printf 'wobble: 1\nkind: jiggle\ntimeline:\n  - {time: 1, cut: {rope: 0, link: 0}}\n' > bad.yaml
    expect_exit 2 "$WOBBLE" render bad.yaml -o bad.mkv
    expect_grep "bad.yaml:4:15: error: unknown key 'cut'" err
    printf 'wobble: 1\nkind: rope\nrope:\n  ropes: [{from: [0, 0], to: [1, 0]}]\ntimeline:\n  - {time: 1, shake: {}}\n' > bad.yaml
    expect_exit 2 "$WOBBLE" render bad.yaml -o bad.mkv
    expect_grep "unknown key 'shake'" err
    printf 'wobble: 1\nkind: jiggle\njiggle:\n  drive:\n    path: [{time: 1, to: [3px, 0]}]\n' > bad.yaml
    expect_exit 2 "$WOBBLE" render bad.yaml -o bad.mkv
    expect_grep "world units" err
}

test_jiggle_examples_render() {
    for s in jiggle-1d jiggle-2d-ring jiggle-2d-disc; do
        expect_exit 0 "$WOBBLE" render "$ROOT/examples/$s.yaml" -o $s.mkv --size 64x36 --fps 5
    done
}

# A small 3D scene: an orb on a floor, thrown right and back, a sphere
# collider, the bone overlay and a shake.
orb_scene() {
    cat > o.yaml <<'YAML'
wobble: 1
kind: jiggle
seed: 3
output: {width: 96, height: 54, fps: 10, duration: 1.5, background: "#202020"}
jiggle:
  view: 3d
  shape: orb
  overlay: true
  squash: 0.3
  floor: {y: -0.85}
  ring_collider: {at: [1.3, 0.0], radius: 0.3}
  drive:
    path:
      - {time: 0.4, to: [0.4, 0.1]}
      - {time: 0.8, to: [0, 0]}
timeline:
  - {time: 1.0, shake: {span: 4}}
YAML
}

test_jiggle_3d_frames_draw_the_mesh() {
    orb_scene
    render_pngs f 15 96x54 o.yaml
    raw_pixels f/0000.png rgb24 > a.rgb
    raw_pixels f/0004.png rgb24 > b.rgb
    python3 - <<'PY' || fail "frame content"
a = open("a.rgb", "rb").read(); b = open("b.rgb", "rb").read()
px = [tuple(a[i:i + 3]) for i in range(0, len(a), 3)]
assert (0x20, 0x20, 0x20) in px                      # background above the horizon
warm = sum(1 for r, g, b_ in px if r > 150 and r > b_ + 40)
assert warm > 150, warm                              # the lit orb (#ee9e8c)
assert len(set(px)) > 200                            # shading, not flat fills
assert a != b                                        # it moved
PY
}

test_jiggle_3d_every_shape_renders() {
    for s in orb capsule torus dancer walker; do
        printf 'wobble: 1\nkind: jiggle\noutput: {width: 64, height: 36, fps: 5, duration: 0.4}\njiggle:\n  view: 3d\n  shape: %s\n  heatmap: true\n  floor: {}\n  drive: {walk: {}}\n' $s > s.yaml
        expect_exit 0 "$WOBBLE" render s.yaml -o $s.mkv --stats $s.csv
        [ "$(wc -l < $s.csv)" = 3 ] || fail "$s: $(cat $s.csv)"
    done
    # a 3d scene without a shape is the orb
    printf 'wobble: 1\nkind: jiggle\njiggle: {view: 3d}\n' > d.yaml
    expect_exit 0 "$WOBBLE" info d.yaml
    expect_grep "shape: orb" out
}

test_jiggle_3d_deterministic_across_threads() {
    orb_scene
    expect_same_on_threads o.yaml 2
    # the dancer (centreline turn) as a heatmap, the walker on its walk
    for s in dancer walker; do
        expect_same_on_threads "$ROOT/examples/jiggle-$s.yaml" 2 \
            --size 96x54 --fps 10 --duration 1 --set jiggle.heatmap=true
    done
}

test_jiggle_3d_weights_png_and_seed_in_name() {
    orb_scene
    expect_exit 0 "$WOBBLE" weights export orb --seed 7
    cp jiggle-weights-seed-7.png plain.png
    # the exported preset renders exactly as the built-in paint
    render_md5 a o.yaml --stats a.csv --seed 7
    render_md5 b o.yaml --stats b.csv --seed 7 --set jiggle.weights=plain.png
    cmp a.csv b.csv || fail "exported orb map differs from the preset"
    cmp a.md5 b.md5 || fail "exported orb map draws differently"
    # seed-7 in the name reseeds the seed-3 scene
    expect_exit 0 "$WOBBLE" render o.yaml -o c.mkv --stats c.csv \
        --set jiggle.weights=jiggle-weights-seed-7.png
    cmp a.csv c.csv || fail "seed-in-name did not reseed"
    expect_exit 2 "$WOBBLE" render o.yaml -o e.mkv --set jiggle.weights=nope.png
    expect_grep "--set:1:16: error: 'jiggle.weights': cannot read 'nope.png'" err
}

test_jiggle_3d_orbit_drive_starts_at_rest() {
    # the camera swing fades in: the first frames show no jolt
    printf 'wobble: 1\nkind: jiggle\noutput: {width: 32, height: 18, fps: 30, duration: 0.2}\njiggle:\n  view: 3d\n  gravity: 0\n  drive: {orbit: {yaw: 0.6, period: 2}, gain: 10}\n' > r.yaml
    expect_exit 0 "$WOBBLE" render r.yaml -o r.mkv --stats r.csv
    python3 - <<'PY' || fail "start-up spike"
rows = [l.strip().split(",") for l in open("r.csv")][1:]
d = [float(r[3]) for r in rows]
# without the fade-in the bones would take the swing's full velocity at
# once (0.75 units/s here) and be 0.025 units off after one frame
assert d[0] == 0.0, d
assert d[1] < 1e-4 and d[2] < 1e-3, d  # a t^3 start
assert d[-1] > 10 * d[2] > 0, d        # and then it moves
PY
}
