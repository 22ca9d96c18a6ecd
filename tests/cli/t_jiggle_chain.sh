# jiggle.chain: the three bones as one chain (bone 1 hangs off bone 0's
# tip, bone 2 off bone 1's), through export, render, events and errors.

# capsule_scene (lib.sh) with the chain on and a seed: a disc painted all
# red (bone 0) under an accel drive; the body stays at the origin and every
# bone rests at the disc's centre (bones without paint rest there too), so a
# joint's world point is its exported tip.  Sizes: bone 0 2 (all the map),
# bones 1 and 2 0.5 (none of it).  The drive throws the chain down and
# sideways through the capsule.
chain_scene() {
    capsule_scene "chain: true"
    sed -i 's/^kind: jiggle$/kind: jiggle\nseed: 4/' cap.yaml free.yaml
}

# rows CSV SUM: "frame bone x y" of the export rows with that sum column.
rows() {
    awk -F, -v s="$2" 'NR > 1 && $4 == s { print $1, $3, $5, $6 }' "$1"
}

# Every frame, each tip is the running sum of the links' own offsets above
# it, and the chain is not trivially a row of single bones (a tip differs
# from its link's offset by more than 0.05 somewhere).
test_chain_tips_are_running_sums_every_frame() {
    chain_scene
    expect_exit 0 "$WOBBLE" export cap.yaml -o cap
    expect_grep "frame,time,bone,sum,x,y,z" cap.csv
    python3 - <<'PY' || fail "tips are not the running sums of the offsets"
import csv
own, tip = {}, {}
for r in csv.DictReader(open("cap.csv")):
    key = (int(r["frame"]), int(r["bone"]))
    (tip if r["sum"] == "1" else own)[key] = (float(r["x"]), float(r["y"]), float(r["z"]))
frames = sorted({f for f, _ in own})
assert len(frames) == 90 and len(tip) == len(own) == 270, (len(frames), len(tip))
apart = 0.0
for f in frames:
    s = [0.0, 0.0, 0.0]
    for b in range(3):
        s = [s[k] + own[f, b][k] for k in range(3)]
        for k in range(3):
            assert abs(tip[f, b][k] - s[k]) <= 1e-8 * (1 + abs(s[k])), (f, b, k, tip[f, b], s)
        apart = max(apart, abs(tip[f, b][1] - own[f, b][1]))
assert apart > 0.05, apart
PY
}

# The root link is a single bone (it feels only the parent); the links
# below feel the links above, so they move unlike single bones.
test_chain_root_link_moves_as_a_single_bone() {
    chain_scene
    sed '/chain: true/d' free.yaml > bones.yaml
    expect_exit 0 "$WOBBLE" export free.yaml -o chain
    expect_exit 0 "$WOBBLE" export bones.yaml -o bones
    expect_grep "frame,time,bone,x,y,z" bones.csv
    rows chain.csv 0 | awk '$2 == 0' > c0
    awk -F, 'NR > 1 && $3 == 0 { print $1, $3, $4, $5 }' bones.csv > b0
    [ -s c0 ] && cmp -s c0 b0 || fail "the root link moved unlike a single bone"
    rows chain.csv 0 | awk '$2 == 2' > c2
    awk -F, 'NR > 1 && $3 == 2 { print $1, $3, $4, $5 }' bones.csv > b2
    ! cmp -s c2 b2 || fail "link 2 moved as a single bone: the chain did not reach the solver"
}

# nearest CSV: the smallest distance of any joint (every frame) from the
# capsule's axis segment.
nearest() {
    rows "$1" 1 | python3 -c '
import math, sys
worst = math.inf
for line in sys.stdin:
    _, _, x, y = map(float, line.split())
    t = max(0.0, min(1.0, (x + 0.3) / 0.6))
    worst = min(worst, math.hypot(x - (-0.3 + 0.6 * t), y + 0.3))
print("%.9f" % worst)'
}

# No joint ever lies inside the collider (the links' own offsets would not
# tell: the check is on the tips); without it the drive carries the joints
# deep inside (the test can fail).
test_chain_joints_stay_out_of_the_capsule() {
    chain_scene
    expect_exit 0 "$WOBBLE" export cap.yaml -o cap
    expect_exit 0 "$WOBBLE" export free.yaml -o free
    python3 -c "import sys; d = float(sys.argv[1]); assert d < 0.1, d" "$(nearest free.csv)" ||
        fail "the free joints never entered the capsule: $(nearest free.csv)"
    python3 -c "import sys; d = float(sys.argv[1]); assert d >= 0.15 - 1e-9, d" "$(nearest cap.csv)" ||
        fail "a joint came within the capsule: $(nearest cap.csv)"
}

# limit bounds each link's own offset, not the joint's travel: without a
# collider no link is longer than the limit, and a tip is (the links add).
test_chain_limit_bounds_each_link() {
    chain_scene
    sed 's/chain: true/chain: true\n  limit: 0.1/' free.yaml > lim.yaml
    expect_grep "limit: 0.1" lim.yaml
    expect_exit 0 "$WOBBLE" export lim.yaml -o lim
    rows lim.csv 0 | awk '{ l = sqrt($3 * $3 + $4 * $4); if (l > m) m = l } END { print m }' > own
    rows lim.csv 1 | awk '{ l = sqrt($3 * $3 + $4 * $4); if (l > m) m = l } END { print m }' > tip
    awk '{ exit !($1 <= 0.1 + 1e-9) }' own || fail "a link is longer than the limit: $(cat own)"
    awk '{ exit !($1 > 0.15) }' tip || fail "no tip went beyond one link's limit: $(cat tip)"
}

# At rest under gravity a link's parent does not accelerate, so each link
# sags by its own g·m_g/ω² = g·m_g·size/(2π·freq·m_f)² and tip i is the sum
# of the sags above it.  The chain starts there (frame 0), and after a
# shake it settles back there.
test_chain_settles_to_the_stated_equilibrium() {
    chain_scene
    cat > eq.yaml <<'YAML'
wobble: 1
kind: jiggle
seed: 4
output: {width: 64, height: 36, fps: 10, duration: 12}
jiggle: {view: 2d, shape: disc, weights: red.png, chain: true, limit: 0, damp: 0.5, gravity: 2.7, freq: 1.9}
timeline:
  - {time: 0.2, shake: {span: 6}}
YAML
    expect_exit 0 "$WOBBLE" export eq.yaml -o eq
    expect_exit 0 "$WOBBLE" presets jiggle --seed 4 --format csv
    cp out mul.csv
    python3 - <<'PY' || fail "the chain is not at its stated equilibrium"
import csv, math
mul = {int(r["bone"]): r for r in csv.DictReader(open("mul.csv"))}
size = [2.0, 0.5, 0.5]
want, s = [], 0.0
for b in range(3):
    w = 2 * math.pi * 1.9 * float(mul[b]["mul_freq"]) / math.sqrt(size[b])
    s -= 2.7 * float(mul[b]["mul_gravity"]) / (w * w)
    want.append(s)
tip = {}
for r in csv.DictReader(open("eq.csv")):
    if r["sum"] == "1":
        tip[int(r["frame"]), int(r["bone"])] = float(r["y"])
last = max(f for f, _ in tip)
moved = max(abs(tip[f, 2] - want[2]) for f in range(5, 15))
assert moved > 0.05, ("the shake did not move the chain", moved)
for b in range(3):
    assert abs(tip[0, b] - want[b]) <= 2e-5 * abs(want[b]), ("start", b, tip[0, b], want[b])
    assert abs(tip[last, b] - want[b]) <= 2e-3 * abs(want[b]), ("end", b, tip[last, b], want[b])
PY
}

# A teleport changes no link offset or velocity (the per-frame state hash
# is the same as without it) and a reset puts the chain at its equilibrium,
# still, at once.
test_chain_survives_teleport_and_reset() {
    cat > t.yaml <<'YAML'
wobble: 1
kind: jiggle
output: {width: 64, height: 48, fps: 10, duration: 2}
jiggle: {view: 2d, shape: capsule, chain: true, overlay: true, drive: {walk: {bob: 0.3}, gain: 3}}
timeline:
  - {time: 0.75, teleport: {by: [0.7, 0.2]}}
  - {time: 1.25, teleport: {by: [-1.1, 0]}}
YAML
    expect_teleport_keeps_state t.yaml
    cat > r.yaml <<'YAML'
wobble: 1
kind: jiggle
output: {width: 64, height: 48, fps: 10, duration: 2}
jiggle: {view: 2d, shape: capsule, chain: true, damp: 0.05}
timeline:
  - {time: 0.2, shake: {span: 8}}
  - {time: 1.0, reset: {}}
YAML
    expect_exit 0 "$WOBBLE" export r.yaml -o rx
    expect_exit 0 "$WOBBLE" render r.yaml -q -o r_%03d.png --stats r.csv
    awk -F, '$1 == 9 && $5 < 0.01 { exit 1 }' r.csv || fail "not moving before the reset"
    awk -F, '$1 == 11 && $5 > 1e-6 { print; exit 1 }' r.csv || fail "moving after the reset"
    # frame 0 starts at the equilibrium; frame 11 is there again (to rounding)
    rows rx.csv 1 | awk '$1 == 0 { y[$2] = $4 } $1 == 11 { d = $4 - y[$2]; if (d < 0) d = -d
        if (d > 1e-9 || $3 != 0) { print; bad = 1 } } END { exit bad }' ||
        fail "the reset did not put the chain at its equilibrium"
}

# Bad values are refused at their place, in the file and in --set.
test_chain_bad_keys() {
    printf 'wobble: 1\nkind: jiggle\njiggle:\n  view: 2d\n  chain: 3\n' > bad.yaml
    expect_render_error 5 10 "'jiggle.chain' expects true or false, found '3'"
    printf 'wobble: 1\nkind: jiggle\njiggle: {view: 3d, chain: [true]}\n' > bad.yaml
    expect_render_error 3 27 "'jiggle.chain' expects true or false, found a sequence of 1 item"
    printf 'wobble: 1\nkind: jiggle\n' > ok.yaml
    expect_exit 2 "$WOBBLE" render ok.yaml -o x.mkv --set jiggle.chain=maybe
    [ "$(sed -n 1p err)" = "--set:1:14: error: 'jiggle.chain' expects true or false, found 'maybe'" ] ||
        fail "--set: $(sed -n 1p err)"
}

# Every view draws the chain: the same scene renders otherwise without it
# (1d: masses hang from each other; 2d and 3d: regions move by the tips and
# the overlay draws the links).
test_chain_is_drawn_in_every_view() {
    for v in "1d" "2d, shape: capsule, overlay: true" "3d, shape: torus, overlay: true"; do
        printf 'wobble: 1\nkind: jiggle\noutput: {width: 96, height: 54, fps: 10, duration: 1}\n' > c.yaml
        printf 'jiggle: {view: %s, drive: {path: [{time: 0.5, to: [0.4, 0.3]}]}}\n' "$v" >> c.yaml
        sed 's/jiggle: {/jiggle: {chain: true, /' c.yaml > cc.yaml
        expect_grep "chain: true" cc.yaml
        expect_exit 0 "$WOBBLE" render c.yaml -o c.png --frames 6:7
        expect_exit 0 "$WOBBLE" render cc.yaml -o cc.png --frames 6:7
        ! cmp -s c.png cc.png || fail "view $v: the chain is not drawn"
    done
}

test_chain_examples_render() {
    for s in jiggle-chain-1d jiggle-chain-2d jiggle-chain-3d; do
        expect_exit 0 "$WOBBLE" render "$ROOT/examples/$s.yaml" -o $s.mkv --size 64x36 --fps 5
    done
}
