#!/bin/sh
# Submit a scene to Slurm as scripts/farm.sh's three stages, three jobs tied
# by --dependency=afterok: bake (one task) → chunks (an array of exactly N
# tasks, 0..N-1) → join (one task, exit 3 naming any missing frame).
#
#   scripts/slurm-farm.sh SCENE OUT [--chunks N] [--cpus C] [--wait]
#                         [--sbatch ARG]... [-- RENDER-OPTIONS...]
#   scripts/slurm-farm.sh rerun OUT K [--wait] [--sbatch ARG]...
#                         render chunk K again, then join again
#
# Run it from any directory: every path (scene, OUT, farm.sh, the wobble
# binary) is made absolute here, at submit time, and the jobs are submitted
# with --wrap, so nothing depends on where Slurm keeps its copy of a script.
# The chunk count is fixed in the plan (OUT.farm/plan) by the bake; `rerun`
# reads it, so resubmitting a task never changes the split.
# Chunks are requeue-safe: they render PNG frames with --resume, so a task
# stopped by SIGTERM (time limit, preemption) and requeued goes on after
# its last checked frame, and the join refuses a chunk that did not finish.
# Logs: OUT.logs/{bake,chunk,join}-JOB[_TASK].log.
# SCENE, its inputs and OUT's folder must be on a filesystem every node sees.
set -eu

die() { echo "slurm-farm.sh: $*" >&2; exit 2; }
abspath() {
    case "$1" in /*) echo "$1" ;; *) echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")" ;; esac
}
q() { # one shell word, single-quoted
    printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"
}

case "${1:-}" in ""|-h|--help) sed -n '2,20p' "$0"; exit 0 ;; esac
farm=$(abspath "$(dirname "$0")/farm.sh")
[ -f "$farm" ] || die "cannot find farm.sh next to $0"
command -v sbatch >/dev/null || die "sbatch is not on PATH"
if [ -n "${WOBBLE:-}" ]; then wobble=$(abspath "$WOBBLE")
elif command -v wobble >/dev/null 2>&1; then wobble=$(command -v wobble)
else wobble=$(abspath "$(dirname "$0")/../build/wobble"); fi
[ -x "$wobble" ] || die "no wobble binary at $wobble: set WOBBLE"

rerun=""; k=""
if [ "${1:-}" = rerun ]; then
    [ $# -ge 3 ] || die "usage: slurm-farm.sh rerun OUT K"
    rerun=1; out=$(abspath "$2"); k=$3; shift 3
    plan="$(dirname "$out")/$(basename "$out" | tr % _).farm/plan"
    [ -f "$plan" ] || die "$plan: no plan (submit the farm first)"
    n=$(sed -n 's/^chunks=//p' "$plan")
    case "$k" in ''|*[!0-9]*) die "chunk $k: not a number" ;; esac
    [ "$k" -lt "$n" ] || die "chunk $k: the plan has $n chunks (0..$((n - 1)))"
else
    [ $# -ge 2 ] || die "usage: slurm-farm.sh SCENE OUT [--chunks N] [-- RENDER-OPTIONS...]"
    scene=$(abspath "$1"); out=$(abspath "$2"); shift 2
    [ -f "$scene" ] || die "$scene: no such scene"
    n=4
fi
cpus=2; wait=""; extra=""
while [ $# -gt 0 ]; do
    case "$1" in
        --chunks) n=$2; shift 2 ;;
        --cpus) cpus=$2; shift 2 ;;
        --wait) wait=--wait; shift ;;
        --sbatch) extra="$extra $(q "$2")"; shift 2 ;;
        --) shift; break ;;
        *) die "unknown option $1" ;;
    esac
done
case "$n" in ''|*[!0-9]*|0) die "--chunks must be a positive integer: $n" ;; esac
logs="$(dirname "$out")/$(basename "$out" | tr % _).logs"
mkdir -p "$logs"

submit() { # NAME DEPENDENCY LOG COMMAND [SBATCH-ARGS...]: the job id
    name=$1; dep=$2; log=$3; cmd=$4; shift 4
    eval "set -- \"\$@\" $extra"
    id=$(sbatch --parsable --job-name="wobble-$name" --output="$logs/$log" \
        --chdir="$(dirname "$out")" ${dep:+--dependency=afterok:$dep} "$@" \
        --wrap "set -e; export WOBBLE=$(q "$wobble"); echo \"\$(date -u +%FT%TZ) $name on \$(hostname)\"; $cmd") ||
        return $?
    echo "${id%%;*}"
}

sh_farm="sh $(q "$farm")"
if [ -z "$rerun" ]; then
    opts=""
    for a in "$@"; do opts="$opts $(q "$a")"; done
    bake=$(submit bake "" "bake-%j.log" "$sh_farm bake $(q "$scene") $(q "$out") $n --$opts")
    chunks=$(submit chunk "$bake" "chunk-%A_%a.log" "$sh_farm chunk $(q "$out") \$SLURM_ARRAY_TASK_ID" \
        --array="0-$((n - 1))" --requeue --cpus-per-task="$cpus")
else
    bake=""
    chunks=$(submit chunk "" "chunk-%A_%a.log" "$sh_farm chunk $(q "$out") \$SLURM_ARRAY_TASK_ID" \
        --array="$k" --requeue --cpus-per-task="$cpus")
fi
join=$(submit join "$chunks" "join-%j.log" "$sh_farm join $(q "$out")" $wait) || {
    echo "slurm-farm.sh: the join job failed; see $logs" >&2; exit 3; }
echo "bake=$bake chunks=$chunks join=$join logs=$logs"
