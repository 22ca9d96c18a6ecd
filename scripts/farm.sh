#!/bin/sh
# Render one scene in chunks on many cores or hosts with GNU parallel, then
# join the chunks without re-encoding.  Every chunk fast-forwards the
# simulation to its first frame (wobble render --frames A:B), so the joined
# result equals a single-process render frame for frame.
#
# Usage:
#   scripts/farm.sh SCENE OUT [--chunks N] [--jobs J] [--sshlogin LOGINS] [-- RENDER-OPTIONS...]
#   scripts/farm.sh plan SCENE N              print the chunk ranges "A:B", one a line
#   scripts/farm.sh chunk SCENE OUT K N [-- RENDER-OPTIONS...]   render chunk K of N
#   scripts/farm.sh concat OUT N              join OUT's chunks 0..N-1 into OUT
#
# OUT is any output wobble writes.  A PNG sequence (f_%04d.png) needs no
# joining: chunks write their own frame numbers.  Video chunks go to
# OUT.part-K.EXT next to OUT and are joined with ffmpeg's concat demuxer
# (-c copy); encoders start every chunk on a key frame, so the join is exact
# for lossless outputs (.mkv) and seamless for the others.
# Hosts given with --sshlogin need wobble on their PATH (or WOBBLE set) and
# the scene, its inputs and the output folder at the same paths.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
WOBBLE=${WOBBLE:-$root/build/wobble}
export WOBBLE

die() { echo "farm.sh: $*" >&2; exit 2; }

plan() { # SCENE N [RENDER-OPTIONS]: chunk ranges of nearly equal length
    scene=$1; n=$2; shift 2
    total=$("$WOBBLE" render "$scene" --dry-run --json -o farm-plan.mkv "$@" |
        sed -n 's/.*"end_frame": \([0-9]*\).*/\1/p')
    [ -n "$total" ] || die "cannot read the frame count of $scene"
    k=0
    while [ $k -lt "$n" ]; do
        a=$((total * k / n)); b=$((total * (k + 1) / n))
        [ $b -gt $a ] && echo "$a:$b"
        k=$((k + 1))
    done
}

part_name() { # OUT K → OUT.part-K.EXT
    ext=${1##*.}
    echo "$1.part-$2.$ext"
}

is_sequence() { case "$1" in *%*d*) return 0 ;; *) return 1 ;; esac; }

chunk() { # SCENE OUT K N [-- OPTIONS]
    scene=$1; out=$2; k=$3; n=$4; shift 4
    [ "${1:-}" = "--" ] && shift
    range=$(plan "$scene" "$n" "$@" | sed -n "$((k + 1))p")
    [ -n "$range" ] || return 0
    if is_sequence "$out"; then target=$out; else target=$(part_name "$out" "$k"); fi
    "$WOBBLE" render "$scene" --frames "$range" -q -o "$target" "$@"
}

concat() { # OUT N
    out=$1; n=$2
    is_sequence "$out" && return 0
    list=$(mktemp)
    k=0
    while [ $k -lt "$n" ]; do
        p=$(part_name "$out" $k)
        [ -e "$p" ] && printf "file '%s'\n" "$(cd "$(dirname "$p")" && pwd)/$(basename "$p")" >> "$list"
        k=$((k + 1))
    done
    ffmpeg -v error -y -f concat -safe 0 -i "$list" -c copy "$out"
    k=0
    while [ $k -lt "$n" ]; do rm -f "$(part_name "$out" $k)"; k=$((k + 1)); done
    rm -f "$list"
}

case "${1:-}" in
    plan) shift; plan "$@"; exit ;;
    chunk) shift; chunk "$@"; exit ;;
    concat) shift; concat "$@"; exit ;;
    ""|-h|--help) sed -n '2,22p' "$0"; exit 0 ;;
esac

scene=$1; out=$2; shift 2
chunks=$(nproc); jobs=""; ssh=""
while [ $# -gt 0 ]; do
    case "$1" in
        --chunks) chunks=$2; shift 2 ;;
        --jobs) jobs=$2; shift 2 ;;
        --sshlogin) ssh=$2; shift 2 ;;
        --) shift; break ;;
        *) die "unknown option $1" ;;
    esac
done
command -v parallel >/dev/null || die "GNU parallel is not installed (scripts/deps.sh installs it)"
set -- --will-cite --halt now,fail=1 ${jobs:+--jobs "$jobs"} ${ssh:+--sshlogin "$ssh"} \
    "$0" chunk "$scene" "$out" {} "$chunks" -- "$@" ::: $(seq 0 $((chunks - 1)))
parallel "$@"
concat "$out" "$chunks"
echo "$out"
