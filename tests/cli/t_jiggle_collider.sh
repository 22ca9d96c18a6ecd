# jiggle.capsule_collider: the key reaches the solver's capsule, keeps every
# bone out of it, and is refused at its place when out of range.

# The scene is capsule_scene (lib.sh): every bone rests at the disc's
# centre and the body stays at the origin, so each bone's world point is its
# exported offset.

# nearest CSV: the smallest distance of any bone (every frame) from the
# capsule's axis segment.
nearest() {
    python3 - "$1" <<'PY'
import csv, math, sys
worst = math.inf
for r in csv.DictReader(open(sys.argv[1])):
    x, y = float(r["x"]), float(r["y"])
    t = max(0.0, min(1.0, (x + 0.3) / 0.6))
    worst = min(worst, math.hypot(x - (-0.3 + 0.6 * t), y + 0.3))
print("%.6f" % worst)
PY
}

test_capsule_collider_keeps_bones_out() {
    capsule_scene
    expect_exit 0 "$WOBBLE" export cap.yaml -o cap
    expect_exit 0 "$WOBBLE" export free.yaml -o free
    # without the capsule the drive carries bones deep inside it (the test
    # can fail); with it, no bone is nearer the axis than the radius
    # (1e-9: the projection's rounding)
    python3 -c "import sys; d = float(sys.argv[1]); assert d < 0.1, d" "$(nearest free.csv)" ||
        fail "the free bones never entered the capsule: $(nearest free.csv)"
    python3 -c "import sys; d = float(sys.argv[1]); assert d >= 0.15 - 1e-9, d" "$(nearest cap.csv)" ||
        fail "a bone came within the capsule: $(nearest cap.csv)"
}

# Colliders are drawn behind the shape: this capsule reaches out of the disc.
test_capsule_collider_is_drawn() {
    capsule_scene
    sed 's/b: \[0.3, -0.3\]/b: [2.4, -0.3]/' cap.yaml > long.yaml
    expect_grep "b: [2.4, -0.3]" long.yaml
    expect_exit 0 "$WOBBLE" render long.yaml -o cap.png --frames 0:1
    expect_exit 0 "$WOBBLE" render free.yaml -o free.png --frames 0:1
    ! cmp -s cap.png free.png || fail "the capsule is not drawn"
}

test_capsule_collider_errors_at_their_place() {
    printf 'wobble: 1\nkind: jiggle\njiggle:\n  capsule_collider: {a: [0, 0], b: [1, 0], radius: 0}\n' > bad.yaml
    expect_render_error 4 52 "'jiggle.capsule_collider.radius' must be in (0, 10000], found 0"
    printf 'wobble: 1\nkind: jiggle\njiggle:\n  capsule_collider: {a: [0, 0], b: [10px, 0]}\n' > bad.yaml
    expect_render_error 4 36 "'jiggle.capsule_collider.b' is in world units (jiggle scenes have no pixel points), found a pixel value"
}

# 3d draws the capsule as a mesh along its axis (at z 0).
test_capsule_collider_is_drawn_in_3d() {
    printf 'wobble: 1\nkind: jiggle\noutput: {width: 96, height: 54}\njiggle:\n  view: 3d\n  shape: orb\n' > o.yaml
    cp o.yaml oc.yaml
    printf '  capsule_collider: {a: [-1.2, -1.0], b: [1.3, -0.6], radius: 0.2}\n' >> oc.yaml
    expect_exit 0 "$WOBBLE" render o.yaml -o o.png --frames 0:1
    expect_exit 0 "$WOBBLE" render oc.yaml -o oc.png --frames 0:1
    ! cmp -s o.png oc.png || fail "the capsule is not drawn in 3d"
}
