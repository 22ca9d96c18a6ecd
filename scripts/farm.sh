#!/bin/sh
# Render one scene in chunks on many cores or hosts, in three stages:
#   bake   simulate once (wobble bake) and write the plan: the frame range
#          (the scene's own count, up to where it settles, cut to the user's
#          --frames) split into N chunks, N fixed here
#   chunk  render chunk K from the state (--state, --resume) to a lossless
#          PNG sequence in the work folder OUT.farm/
#   join   check that every frame is there (exit 3 naming the missing ones),
#          encode OUT once under a temporary name, check its frame count and
#          duration, rename it into place and remove the work folder
#
# Usage:
#   scripts/farm.sh SCENE OUT [--chunks N] [--jobs J] [--sshlogin LOGINS] [-- RENDER-OPTIONS...]
#   scripts/farm.sh bake SCENE OUT N [-- RENDER-OPTIONS...]   stage 1
#   scripts/farm.sh chunk OUT K                               stage 2, K in 0..N-1
#   scripts/farm.sh join OUT                                  stage 3
#
# RENDER-OPTIONS: --frames A:B restricts the whole farm's range; the scene
# options (--set, --fps, --duration, --size, --seed, --until-settled) go to
# the bake and every chunk; --aa and --threads to the chunks.  Encoder
# options are refused: OUT is encoded once, by ffmpeg, with wobble's settings.
# WOBBLE names the binary (default: wobble on PATH, else build/wobble here);
# the plan records its absolute path, so the stages may run anywhere.
# Hosts given with --sshlogin must see the scene and OUT's folder at the same
# absolute paths; farm.sh checks that first and refuses otherwise.
# Exit status: 0 done, 2 usage or bad input, 3 frames missing or the join failed.
set -eu

die() { echo "farm.sh: $*" >&2; exit 2; }
fail3() { echo "farm.sh: $*" >&2; exit 3; }

abspath() { # PATH → absolute PATH (the file need not exist)
    case "$1" in /*) echo "$1" ;; *) echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")" ;; esac
}

find_wobble() {
    if [ -n "${WOBBLE:-}" ]; then abspath "$WOBBLE"; return; fi
    if command -v wobble >/dev/null 2>&1; then command -v wobble; return; fi
    here=$(cd "$(dirname "$0")/.." && pwd)
    [ -x "$here/build/wobble" ] || die "no wobble binary: set WOBBLE"
    echo "$here/build/wobble"
}

is_sequence() { case "$1" in *%*d*) return 0 ;; *) return 1 ;; esac; }

json_num() { # KEY < JSON → the number after "KEY":
    sed -n "s/.*\"$1\": *\([0-9.eE+-]*\).*/\1/p" | head -n 1
}

# Sort RENDER-OPTIONS into $work/scene-opts (bake and chunks), $work/chunk-opts
# (chunks only) and $range_a/$range_b (the user's --frames), one arg a line.
split_opts() {
    : > "$work/scene-opts"; : > "$work/chunk-opts"; range_a=0; range_b=""
    while [ $# -gt 0 ]; do
        case "$1" in
            --frames) [ $# -ge 2 ] || die "--frames needs A:B"; fr=$2; shift 2 ;;
            --frames=*) fr=${1#--frames=}; shift ;;
            --set|--fps|--duration|--size|--seed)
                [ $# -ge 2 ] || die "$1 needs a value"
                printf '%s\n%s\n' "$1" "$2" >> "$work/scene-opts"; shift 2; continue ;;
            --set=*|--fps=*|--duration=*|--size=*|--seed=*|--until-settled)
                printf '%s\n' "$1" >> "$work/scene-opts"; shift; continue ;;
            --aa|--threads)
                [ $# -ge 2 ] || die "$1 needs a value"
                printf '%s\n%s\n' "$1" "$2" >> "$work/chunk-opts"; shift 2; continue ;;
            --aa=*|--threads=*) printf '%s\n' "$1" >> "$work/chunk-opts"; shift; continue ;;
            -q|--quiet) shift; continue ;;
            *) die "render option $1 is not supported by the farm (OUT is encoded once with wobble's settings)" ;;
        esac
        range_a=${fr%%:*}; range_b=${fr#*:}
        case "$range_a$range_b" in *[!0-9]*) die "--frames $fr: expected A:B" ;; esac
    done
}

# Read the plan's args files into "$@" for a command line.
with_opts() { # FILE... -- CMD...: run CMD with the args listed in FILEs appended
    files=""
    while [ "$1" != "--" ]; do files="$files $1"; shift; done
    shift
    for f in $files; do
        while IFS= read -r line; do set -- "$@" "$line"; done < "$f"
    done
    "$@"
}

workdir() { # OUT → its work folder, OUT.farm (a pattern's % made _)
    _o=$(abspath "$1")
    echo "$(dirname "$_o")/$(basename "$_o" | tr % _).farm"
}

load_plan() { # OUT → $work, and the plan's variables
    work=$(workdir "$1")
    [ -f "$work/plan" ] || fail3 "$1: no plan in $work (run the bake stage first)"
    . "$work/plan"
}

stage_bake() { # SCENE OUT N [-- OPTIONS]
    [ $# -ge 3 ] || die "bake needs SCENE OUT N"
    scene=$(abspath "$1"); out=$(abspath "$2"); n=$3; shift 3
    [ "${1:-}" = "--" ] && shift
    case "$n" in ''|*[!0-9]*|0) die "chunk count must be a positive integer: $n" ;; esac
    [ -f "$scene" ] || die "$scene: no such scene"
    wobble=$(find_wobble) || exit 2
    work=$(workdir "$out")
    # A fresh plan: nothing of an earlier run (markers, frames, joins) counts.
    rm -rf "$work" "$out.done"
    mkdir -p "$work"
    split_opts "$@"
    with_opts "$work/scene-opts" -- "$wobble" bake "$scene" -o "$work/state" --json > "$work/bake.json" ||
        { rc=$?; rm -rf "$work"; exit $rc; }
    # The bake stops where the scene does (at its settling point with
    # --until-settled), so its frame count is the scene's.
    total=$(json_num end_frame < "$work/bake.json")
    fps=$(with_opts "$work/scene-opts" -- "$wobble" render "$scene" --dry-run --json -o "$work/probe.mkv" | json_num fps)
    [ -n "$total" ] && [ -n "$fps" ] || { rm -rf "$work"; die "cannot read the frame count of $scene"; }
    a=$range_a; b=${range_b:-$total}
    [ "$b" -gt "$total" ] && b=$total
    [ "$a" -lt "$b" ] || { rm -rf "$work"; die "--frames $a:${range_b:-}: no frame of the scene's 0:$total"; }
    cat > "$work/plan" <<EOF
scene='$scene'
out='$out'
wobble='$wobble'
fps='$fps'
first=$a
end=$b
chunks=$n
EOF
    k=0
    while [ $k -lt "$n" ]; do
        echo "$((a + (b - a) * k / n)):$((a + (b - a) * (k + 1) / n))"
        k=$((k + 1))
    done > "$work/ranges"
    echo "farm.sh: baked $scene: frames $a:$b of $total at $fps fps in $n chunks"
}

stage_chunk() { # OUT K
    load_plan "$1"; k=$2
    range=$(sed -n "$((k + 1))p" "$work/ranges")
    [ -n "$range" ] || die "chunk $k: the plan has $chunks chunks (0..$((chunks - 1)))"
    if [ "${range%%:*}" = "${range#*:}" ]; then echo "farm.sh: chunk $k: empty"; return 0; fi
    # --resume: a chunk stopped by SIGTERM or requeued goes on after its
    # last checked frame; an unfinished one keeps its journal (join refuses).
    # Under Slurm, as many threads as the task has CPUs (the bytes do not change).
    th=${SLURM_CPUS_PER_TASK:+--threads=$SLURM_CPUS_PER_TASK}
    with_opts "$work/scene-opts" "$work/chunk-opts" -- "$wobble" render "$scene" $th \
        --state "$work/state" --frames "$range" --resume -q -o "$work/f_%06d.png"
    echo "farm.sh: chunk $k: frames $range done"
}

missing_frames() { # the frames first..end-1 without a finished PNG, as ranges
    i=$first; run=""
    while [ $i -lt "$end" ]; do
        f=$(printf '%s/f_%06d.png' "$work" "$i")
        if [ -s "$f" ] && [ ! -e "$f.resume" ]; then ok=1; else ok=0; fi
        if [ $ok = 0 ] && [ -z "$run" ]; then run=$i; fi
        if [ $ok = 1 ] && [ -n "$run" ]; then
            [ $run = $((i - 1)) ] && printf '%s ' "$run" || printf '%s-%s ' "$run" "$((i - 1))"
            run=""
        fi
        i=$((i + 1))
    done
    if [ -n "$run" ]; then
        [ $run = $((end - 1)) ] && printf '%s ' "$run" || printf '%s-%s ' "$run" "$((end - 1))"
    fi
}

has_alpha() { ffprobe -v error -show_entries stream=pix_fmt -of csv=p=0 "$1" | grep -q a; }

encode() { # TMP: OUT's kind from the PNGs, with wobble's own settings
    dst=$1
    src=$(printf '%s/f_%%06d.png' "$work")
    set -- ffmpeg -v error -y -framerate "$fps" -start_number "$first" -i "$src"
    f0=$(printf '%s/f_%06d.png' "$work" "$first")
    alpha=0; has_alpha "$f0" && alpha=1
    case "$out" in
        *.gif) set -- "$@" -filter_complex "split[a][b];[a]palettegen=stats_mode=full:reserve_transparent=$alpha[p];[b][p]paletteuse=dither=sierra2_4a:alpha_threshold=128" -f gif ;;
        *.webp) set -- "$@" -c:v libwebp_anim -quality 75 -pix_fmt bgra -loop 0 -f webp ;;
        *.mkv) [ $alpha = 1 ] && pf=bgra || pf=bgr0
            set -- "$@" -c:v ffv1 -pix_fmt $pf -f matroska ;;
        *.mp4) set -- "$@" -c:v libx264 -crf 18 -preset medium -pix_fmt yuv420p -colorspace bt709 -color_primaries bt709 -color_trc bt709 -f mp4 ;;
        *.webm) set -- "$@" -c:v libvpx-vp9 -crf 31 -b:v 0 -f webm ;;
        *.mov) set -- "$@" -c:v prores_ks -profile:v 4 -f mov ;;
        *.y4m) set -- "$@" -pix_fmt yuv420p -f yuv4mpegpipe ;;
        *) fail3 "$out: unknown output kind for the join" ;;
    esac
    "$@" "$dst"
}

# count_and_duration FILE → "FRAMES SECONDS" (SECONDS "-" when the file has none)
count_and_duration() {
    case "$1" in
        *.webp) # ffmpeg cannot read animated WebP; webpmux lists its frames
            webpmux -info "$1" | awk '/^ *[0-9]+:/ { n++; d += $7 } END { printf "%d %.6f\n", n, d / 1000 }' ;;
        *.y4m) echo "$(ffprobe -v error -count_packets -select_streams v:0 -show_entries stream=nb_read_packets -of csv=p=0 "$1") -" ;;
        *) echo "$(ffprobe -v error -count_packets -select_streams v:0 -show_entries stream=nb_read_packets -of csv=p=0 "$1" | head -n 1)" \
               "$(ffprobe -v error -show_entries format=duration -of csv=p=0 "$1")" ;;
    esac
}

check_count() { # FILE: frame count and duration against the plan
    want=$((end - first))
    set -- $(count_and_duration "$1")
    [ "${1:-}" = "$want" ] || fail3 "$out: the join has ${1:-no} frames, the scene $want"
    [ "${2:-}" = "-" ] && return 0
    # Within one frame (GIF delays are whole centiseconds).
    awk -v d="${2:-}" -v n="$want" -v f="$fps" 'BEGIN { e = n / f; x = d - e; if (x < 0) x = -x; exit !(d != "" && x <= 1 / f + 0.011) }' ||
        fail3 "$out: the join lasts ${2:-?} s, the scene $(awk -v n="$want" -v f="$fps" 'BEGIN { print n / f }') s"
}

stage_join() { # OUT
    load_plan "$1"
    miss=$(missing_frames)
    [ -z "$miss" ] || fail3 "$out: missing frames ${miss% } (of $first-$((end - 1))); render their chunks again, then join"
    if is_sequence "$out"; then
        i=$first
        while [ $i -lt "$end" ]; do
            mv -f "$(printf '%s/f_%06d.png' "$work" "$i")" "$(printf "$out" "$i")" || fail3 "$out: cannot move frame $i"
            i=$((i + 1))
        done
    else
        ext=${out##*.}
        tmp="$out.tmp-$$.$ext"
        trap 'rm -f "$tmp"' EXIT INT TERM
        encode "$tmp" || { rm -f "$tmp"; fail3 "$out: the encode failed"; }
        check_count "$tmp"
        mv -f "$tmp" "$out" || fail3 "$out: cannot rename $tmp"
        trap - EXIT INT TERM
    fi
    rm -rf "$work"
    echo "farm.sh: $out: $((end - first)) frames ($first:$end)"
}

# --sshlogin: hosts must see the work folder at the same absolute path.
check_shared() { # LOGINS
    token=$(date +%s)-$$
    echo "$token" > "$work/shared"
    seen=$(parallel --will-cite --nonall --tag --sshlogin "$1" ${FARM_SSH:+--ssh "$FARM_SSH"} \
        cat "$work/shared" 2>/dev/null || true)
    for host in $(echo "$1" | tr ',' ' '); do
        h=${host#*/}
        [ "$h" = ":" ] && continue
        echo "$seen" | grep -q "^$h	$token\$" ||
            { rm -rf "$work"; die "host $h does not see $work (the scene and OUT's folder must be shared at the same absolute paths)"; }
    done
}

case "${1:-}" in
    bake) shift; stage_bake "$@"; exit ;;
    chunk) shift; [ $# = 2 ] || die "chunk needs OUT K"; stage_chunk "$@"; exit ;;
    join) shift; [ $# = 1 ] || die "join needs OUT"; stage_join "$@"; exit ;;
    ""|-h|--help) sed -n '2,26p' "$0"; exit 0 ;;
esac

[ $# -ge 2 ] || die "usage: farm.sh SCENE OUT [--chunks N] [--jobs J] [--sshlogin LOGINS] [-- RENDER-OPTIONS...]"
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
self=$(abspath "$0")
stage_bake "$scene" "$out" "$chunks" -- "$@" >/dev/null
load_plan "$out"
[ -z "$ssh" ] || check_shared "$ssh"
# Absolute paths throughout: a remote job starts in its $HOME.
parallel --will-cite --halt now,fail=1 ${jobs:+--jobs "$jobs"} ${ssh:+--sshlogin "$ssh"} \
    ${FARM_SSH:+--ssh "$FARM_SSH"} sh "$self" chunk "$out" {} \
    ::: $(seq 0 $((chunks - 1))) >/dev/null || fail3 "$out: a chunk failed; the frames done are kept in $work"
stage_join "$out" >/dev/null
echo "$out"
