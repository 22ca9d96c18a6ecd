#!/bin/sh
# bench/farm.sh BUILD — what a farm costs in simulation.  The 60 s
# cloth-drop-self (examples/, --duration 60) is baked once by scripts/farm.sh
# and rendered as its N chunks (16), each from the state; the simulated
# steps they add up to (render --json: simulated_steps, exact) are set
# against one render's.  Then bake's time per frame against the render's
# simulation time per frame (a render of the last frame alone: it
# fast-forwards through all the others without drawing).
# Frames are 64x36 on one thread: the figures are about the simulation.
set -eu
BUILD=${1:-build}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(dirname "$HERE")
W=$(cd "$BUILD" && pwd)/wobble
SCENE=$ROOT/examples/cloth-drop-self.yaml
N=${FARM_BENCH_CHUNKS:-16}
set -- --duration "${FARM_BENCH_SECONDS:-60}" --size 64x36
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# timed OUTFILE CMD...: run CMD, its stdout to OUTFILE; "WALL CPU" (seconds,
# CPU of CMD and its children) on stdout.
timed() {
    python3 -c '
import resource, subprocess, sys, time
t = time.monotonic()
with open(sys.argv[1], "wb") as out:
    rc = subprocess.run(sys.argv[2:], stdout=out).returncode
u = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"{time.monotonic() - t:.3f} {u.ru_utime + u.ru_stime:.3f}")
sys.exit(rc)' "$@"
}

json_num() { sed -n "s/.*\"$1\": *\([0-9.eE+-]*\).*/\1/p" | head -n 1; }

echo "== farm: $(basename "$SCENE" .yaml) $*, $N chunks, --threads 1"
bake_t=$(WOBBLE=$W timed "$tmp/bake.txt" sh "$ROOT/scripts/farm.sh" bake "$SCENE" "$tmp/out.mkv" "$N" -- "$@")
work=$tmp/out.mkv.farm
frames=$(json_num end_frame < "$work/bake.json")
every=$(json_num every < "$work/bake.json")

chunk_steps=0
while IFS= read -r range; do
    "$W" render "$SCENE" "$@" --threads 1 --state "$work/state" --frames "$range" -q --json \
        -o "$tmp/chunk.mkv" > "$tmp/chunk.json"
    chunk_steps=$((chunk_steps + $(json_num simulated_steps < "$tmp/chunk.json")))
done < "$work/ranges"
"$W" render "$SCENE" "$@" --threads 1 -q --json -o "$tmp/single.mkv" > "$tmp/single.json"
single_steps=$(json_num simulated_steps < "$tmp/single.json")
ff_t=$(timed "$tmp/ff.json" "$W" render "$SCENE" "$@" --threads 1 --frames "$((frames - 1)):$frames" \
    -q --json -o "$tmp/ff.mkv")

awk -v f="$frames" -v n="$N" -v e="${every:-?}" -v c="$chunk_steps" -v s="$single_steps" \
    -v bt="$bake_t" -v ft="$ff_t" 'BEGIN {
    split(bt, b, " "); split(ft, r, " ")
    printf "frames %d, snapshot every %s frames\n", f, e
    printf "simulated steps: %d chunks from the state %d, one render %d: x%.3f\n", n, c, s, c / s
    printf "bake                %7.2f s wall %7.2f s CPU  %6.2f ms CPU/frame\n", b[1], b[2], 1000 * b[2] / f
    printf "render simulation   %7.2f s wall %7.2f s CPU  %6.2f ms CPU/frame  (bake/render x%.3f)\n",
        r[1], r[2], 1000 * r[2] / (f - 1), (b[2] / f) / (r[2] / (f - 1))
}'
