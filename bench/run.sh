#!/bin/sh
# bench/run.sh BUILD — run every built benchmark, then the peer anchors side by
# side in the same invocation (../shared/anchors, skipped when absent).
#
# Each bench/bench_<module> binary prints its own table; the last line of
# bench_photo is a JSON object that is compared here with the numpy anchor
# (wobble_numpy.py --quick: the same 513² state, k, ζ, dt and schedule).
set -u
BUILD=${1:-build}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(dirname "$HERE")
ANCHORS=${WOBBLE_ANCHORS:-$ROOT/../shared/anchors}
PY=/usr/bin/python3
status=0
photo_json=

for b in "$BUILD"/bench/bench_*; do
    [ -x "$b" ] || continue
    case "$b" in *.o | *.d) continue ;; esac
    name=$(basename "$b")
    echo "== $name"
    out=$("$b") || { echo "$name: failed" >&2; status=1; }
    printf '%s\n' "$out"
    case "$name" in
    bench_photo) photo_json=$(printf '%s\n' "$out" | tail -n 1) ;;
        esac
    echo
done

# End to end against the encoder alone (no anchors needed).
sh "$HERE/e2e.sh" "$BUILD" || status=1
echo

# A farm's simulation cost: chunks from the baked state against one render.
sh "$HERE/farm.sh" "$BUILD" || status=1
echo

if [ ! -d "$ANCHORS" ]; then
    echo "== anchors: $ANCHORS not found, skipped"
    exit $status
fi

if [ -f "$ANCHORS/wobble_numpy.py" ] && [ -x "$PY" ] && "$PY" -c 'import numpy' 2>/dev/null; then
    echo "== anchor wobble_numpy.py --quick (default malloc, then tuned)"
    np_default=$("$PY" "$ANCHORS/wobble_numpy.py" --quick) || status=1
    np_tuned=$("$PY" "$ANCHORS/wobble_numpy.py" --quick --malloc tuned) || status=1
    printf '%s\n%s\n' "$np_default" "$np_tuned"
    if [ -n "$photo_json" ]; then
        echo
        echo "== photo step, side by side (same state, same run)"
        "$PY" - "$photo_json" "$np_default" "$np_tuned" <<'PYEOF'
import json, sys
c = json.loads(sys.argv[1])
for label, raw in (("numpy (default malloc)", sys.argv[2]), ("numpy (tuned malloc)", sys.argv[3])):
    try:
        n = json.loads(raw)["step_ms"]
    except (ValueError, KeyError):
        print(f"{label}: no result")
        continue
    print(f"{label:24s} {n:8.4f} ms/step   wobble Euler {c['step_euler_ms']:.4f} ms "
          f"(x{n / c['step_euler_ms']:.1f} faster), exact {c['step_exact_ms']:.4f} ms "
          f"(x{n / c['step_exact_ms']:.1f})")
print(f"wobble step / same-bytes floor: Euler x{c['step_euler_ms'] / c['floor_ms']:.2f}, "
      f"exact x{c['step_exact_ms'] / c['floor_ms']:.2f} (target <= 1.2)")
PYEOF
    fi
    echo
else
    echo "== anchor wobble_numpy.py: python3-numpy not available, skipped"
fi

# The JavaScript anchors run next to the benchmarks they are peers of, kept
# short (the cloth at 1 run × 40 timed frames, about 3 s a round).  On a
# shared machine node's time and wobble's swing independently from minute
# to minute, so the cloth is compared in CLOTH_PAIRS (default 5) rounds of
# node then wobble's 70×70 case, back to back, and the median ratio is the
# figure (each round's is printed too).
if [ -x "$BUILD/bench/bench_cloth" ] && [ -f "$ANCHORS/cloth_drape.js" ] &&
    command -v node >/dev/null 2>&1 && [ -x "$PY" ]; then
    pairs=${CLOTH_PAIRS:-5}
    echo "== anchor cloth_drape.js --runs 1 --warmup 20 --frames 40, then bench_cloth 1: $pairs rounds"
    rounds=
    i=0
    while [ $i -lt "$pairs" ]; do
        js=$(node "$ANCHORS/cloth_drape.js" --runs 1 --warmup 20 --frames 40 --json) || status=1
        cj=$("$BUILD/bench/bench_cloth" 1 | tail -n 1) || status=1
        rounds="$rounds$js
$cj
"
        i=$((i + 1))
    done
    printf '%s' "$rounds" | "$PY" -c '
import json, sys
lines = [l for l in sys.stdin.read().splitlines() if l.strip()]
ratios = []
for k in range(0, len(lines) - 1, 2):
    try:
        n, c = json.loads(lines[k])["median_ms"], json.loads(lines[k + 1])["cloth70_ms"]
    except (ValueError, KeyError):
        print("round %d: no result" % (k // 2 + 1))
        continue
    ratios.append(n / c)
    print("round %d: node %6.2f ms/frame, wobble %5.3f ms/frame  (x%.1f)" % (k // 2 + 1, n, c, n / c))
if ratios:
    r = sorted(ratios)
    print("cloth 70x70 against node: median x%.1f, lowest x%.1f over %d rounds (target >= 20)"
          % (r[len(r) // 2], r[0], len(r)))
' || status=1
    echo
fi
if [ -x "$BUILD/bench/bench_rope" ] && [ -f "$ANCHORS/rope_jakobsen.js" ] &&
    command -v node >/dev/null 2>&1; then
    echo "== anchor rope_jakobsen.js"
    node "$ANCHORS/rope_jakobsen.js" || status=1
    echo
fi
exit $status
