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
cloth_json=

for b in "$BUILD"/bench/bench_*; do
    [ -x "$b" ] || continue
    case "$b" in *.o | *.d) continue ;; esac
    name=$(basename "$b")
    echo "== $name"
    out=$("$b") || { echo "$name: failed" >&2; status=1; }
    printf '%s\n' "$out"
    case "$name" in
    bench_photo) photo_json=$(printf '%s\n' "$out" | tail -n 1) ;;
    bench_cloth) cloth_json=$(printf '%s\n' "$out" | tail -n 1) ;;
    esac
    echo
done

# End to end against the encoder alone (no anchors needed).
sh "$HERE/e2e.sh" "$BUILD" || status=1
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
# short (the cloth at 1 run × 40 timed frames, about 6 s).
if [ -x "$BUILD/bench/bench_cloth" ] && [ -f "$ANCHORS/cloth_drape.js" ] &&
    command -v node >/dev/null 2>&1; then
    echo "== anchor cloth_drape.js --runs 1 --warmup 20 --frames 40 --json"
    js=$(node "$ANCHORS/cloth_drape.js" --runs 1 --warmup 20 --frames 40 --json) || status=1
    printf '%s\n' "$js"
    if [ -n "$cloth_json" ] && [ -x "$PY" ]; then
        "$PY" - "$cloth_json" "$js" <<'PYEOF'
import json, sys
try:
    c, n = json.loads(sys.argv[1]), json.loads(sys.argv[2])
    print(f"cloth 70x70: node {n['median_ms']:.2f} ms/frame, wobble {c['cloth70_ms']:.2f} ms/frame "
          f"(x{n['median_ms'] / c['cloth70_ms']:.1f})")
except (ValueError, KeyError, ZeroDivisionError) as e:
    print(f"cloth side by side: no comparison ({e})")
PYEOF
    fi
    echo
fi
if [ -x "$BUILD/bench/bench_rope" ] && [ -f "$ANCHORS/rope_jakobsen.js" ] &&
    command -v node >/dev/null 2>&1; then
    echo "== anchor rope_jakobsen.js"
    node "$ANCHORS/rope_jakobsen.js" || status=1
    echo
fi
exit $status
