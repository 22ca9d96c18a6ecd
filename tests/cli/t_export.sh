# wobble export: OBJ + PC2 meshes, CSV tracks; Blender reads them back.

# pc2_head FILE: "points start rate samples" from a PC2 header.
pc2_head() {
    python3 -c '
import struct, sys
d = open(sys.argv[1], "rb").read()
assert d[:12] == b"POINTCACHE2\0", d[:12]
v, n, s, r, k = struct.unpack_from("<iiffi", d, 12)
assert v == 1 and len(d) == 32 + 12 * n * k, (v, len(d))
print(n, s, r, k)' "$1"
}

test_export_cloth_obj_pc2() {
    expect_exit 0 "$WOBBLE" export "$ROOT/examples/cloth-drop-self.yaml" -o c --duration 0.5 --json
    expect_grep '"frames": 15' out
    grep -c '^v ' c.obj > nv
    [ "$(pc2_head c.pc2)" = "$(cat nv) 0.0 1.0 15" ] || fail "pc2 header: $(pc2_head c.pc2)"
    [ ! -e c.csv ] || fail "cloth wrote tracks"
    # the PC2's frame 10 is the state at frame 10: the same as a range's first frame
    expect_exit 0 "$WOBBLE" export "$ROOT/examples/cloth-drop-self.yaml" -o c10 --duration 0.5 \
        --frames 10:11
    [ "$(pc2_head c10.pc2)" = "$(cat nv) 10.0 1.0 1" ] || fail "pc2 header: $(pc2_head c10.pc2)"
    python3 - <<'PY'
import struct
d = open("c.pc2", "rb").read()
n = struct.unpack_from("<i", d, 16)[0]
f10 = struct.unpack_from("<%df" % (3 * n), d, 32 + 12 * n * 10)
def f32(v):
    return struct.unpack("<f", struct.pack("<f", float(v)))[0]
obj = [tuple(map(f32, l.split()[1:])) for l in open("c10.obj") if l.startswith("v ")]
assert len(obj) == n
# the OBJ's %.9g is float-exact: the same floats as the PC2's
worst = max(abs(a - b) for p, q in zip(obj, zip(*[iter(f10)] * 3)) for a, b in zip(p, q))
assert worst == 0.0, worst
PY
}

test_export_from_state_equals_export() {
    expect_exit 0 "$WOBBLE" bake "$ROOT/examples/rope-cut.yaml" -o r.state --duration 1 --every 7
    expect_exit 0 "$WOBBLE" export "$ROOT/examples/rope-cut.yaml" -o full --duration 1
    expect_exit 0 "$WOBBLE" export "$ROOT/examples/rope-cut.yaml" -o part --duration 1 \
        --frames 16:30 --state r.state
    head -1 full.csv > want
    grep -E '^(1[6-9]|2[0-9]),' full.csv >> want
    cmp want part.csv || fail "rope CSV from the state differs"
    [ ! -e full.obj ] || fail "rope wrote a mesh"
    expect_grep "frame,time,rope,node,x,y,z" full.csv
}

test_export_jiggle_bones_and_mesh() {
    expect_exit 0 "$WOBBLE" export "$ROOT/examples/jiggle-capsule.yaml" -o j --duration 0.5
    expect_grep "frame,time,bone,x,y,z" j.csv
    [ "$(wc -l < j.csv)" = $((15 * 3 + 1)) ] || fail "rows: $(wc -l < j.csv)"
    pc2_head j.pc2 > h
    expect_exit 0 "$WOBBLE" export "$ROOT/examples/jiggle-2d-disc.yaml" -o d --duration 0.5
    [ -e d.csv ] && [ ! -e d.obj ] || fail "2d jiggle: bones only"
    cp "$ROOT/examples/photo.png" .
    expect_exit 2 "$WOBBLE" export "$ROOT/examples/photo-grab.yaml" -o p
    expect_grep "nothing to export" err
    [ ! -e p.obj ] && [ ! -e p.csv ] || fail "photo wrote files"
    true
}

# Blender's own reading of the OBJ and PC2 (the Mesh Cache modifier) gives
# wobble's positions at every frame asked.
blender_check() {
    _scene=$1 _base=$2
    shift 2
    expect_exit 0 "$WOBBLE" export "$_scene" -o "$_base" "$@"
    for _f in 0 7 14; do
        expect_exit 0 "$WOBBLE" export "$_scene" -o "$_base-$_f" --frames "$_f:$((_f + 1))" "$@"
    done
    timeout 300 blender -b --factory-startup --python-exit-code 1 \
        -P "$ROOT/tests/blender/mesh_cache.py" -- "$PWD/$_base.obj" "$PWD/$_base.pc2" \
        "$PWD/$_base.txt" 0 7 14 > blender.log 2>&1 || { tail -20 blender.log; fail "blender failed"; }
    python3 - "$_base" <<'PY' || fail "Blender's vertices differ from wobble's"
import sys
base = sys.argv[1]
got = {}
for line in open(base + ".txt"):
    f, i, x, y, z = line.split()
    got[(int(f), int(i))] = (float(x), float(y), float(z))
worst = 0.0
for f in (0, 7, 14):
    want = [tuple(map(float, l.split()[1:])) for l in open("%s-%d.obj" % (base, f)) if l.startswith("v ")]
    for i, p in enumerate(want):
        worst = max(worst, max(abs(a - b) for a, b in zip(p, got[(f, i)])))
print("blender: worst difference %g" % worst, file=sys.stderr)
sys.exit(0 if worst <= 1e-5 else 1)
PY
}

test_blender_reads_obj_and_pc2() {
    if ! command -v blender >/dev/null; then
        sh "$ROOT/scripts/deps.sh" blender >/dev/null 2>&1 || true
    fi
    if ! command -v blender >/dev/null; then
        echo "SKIP test_blender_reads_obj_and_pc2: apt could not install blender" >&2
        return 0
    fi
    blender_check "$ROOT/examples/cloth-drop-self.yaml" cloth --duration 0.5
    blender_check "$ROOT/examples/jiggle-capsule.yaml" capsule --duration 0.5
}
