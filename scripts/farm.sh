#!/bin/sh
# Render one scene in chunks on many cores or hosts, in three stages:
#   bake   simulate once (wobble bake, a snapshot every eighth of a chunk)
#          and write the plan: the frame range (the scene's own count, up to
#          where it settles, cut to the user's --frames) split into N chunks,
#          N fixed here
#   chunk  render chunk K from the state (--state, --resume) to a lossless
#          PNG sequence in the work folder OUT.farm/
#   join   check that every frame is there (exit 3 naming the missing ones),
#          encode OUT once under a temporary name, check its frame count and
#          duration, rename it into place and remove the work folder
#
# Usage:
#   scripts/farm.sh SCENE OUT [--chunks N] [--jobs J] [--sshlogin LOGINS]
#                   [--remote-wobble PATH] [-- RENDER-OPTIONS...]
#   scripts/farm.sh bake SCENE OUT N [-- RENDER-OPTIONS...]   stage 1
#   scripts/farm.sh chunk OUT K [WOBBLE]                      stage 2, K in 0..N-1
#   scripts/farm.sh join OUT                                  stage 3
#
# RENDER-OPTIONS: --frames A:B restricts the whole farm's range; the scene
# options (--set, --fps, --duration, --size, --seed, --until-settled) go to
# the bake and every chunk; --aa and --threads to the chunks.  Encoder
# options are refused: OUT is encoded once, by ffmpeg, with wobble's settings.
# WOBBLE names the binary (default: wobble on PATH, else build/wobble here);
# the plan records its absolute path, so the stages may run anywhere.
# --sshlogin: hosts that see OUT's folder at the same absolute path run the
# chunks there; otherwise the scene, the files it names and the state are
# staged (parallel --basefile), chunks come back (--return), the join runs
# here.  Hosts run wobble at PATH (default: the absolute path of this one's).
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
    probe=$(with_opts "$work/scene-opts" -- "$wobble" render "$scene" --dry-run --json -o "$work/probe.mkv") ||
        { rc=$?; rm -rf "$work"; exit $rc; }
    fps=$(echo "$probe" | json_num fps); total=$(echo "$probe" | json_num end_frame)
    [ -n "$total" ] && [ -n "$fps" ] || { rm -rf "$work"; die "cannot read the frame count of $scene"; }
    # A snapshot every eighth of a chunk: a chunk re-simulates less than
    # that before its first frame, so N chunks simulate at most 1.125 times
    # the frames of one render (wobble bake's own default, 2 s, can be
    # most of a short chunk).
    b=${range_b:-$total}; [ "$b" -gt "$total" ] && b=$total
    every=$(( (b - range_a) / n / 8 )); [ "$every" -ge 1 ] || every=1
    with_opts "$work/scene-opts" -- "$wobble" bake "$scene" -o "$work/state" --every "$every" --json > "$work/bake.json" ||
        { rc=$?; rm -rf "$work"; exit $rc; }
    # The bake stops where the scene does (at its settling point with
    # --until-settled), so its frame count is the scene's.
    total=$(json_num end_frame < "$work/bake.json")
    [ -n "$total" ] || { rm -rf "$work"; die "cannot read the frame count of $scene"; }
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

stage_chunk() { # OUT K [WOBBLE]
    load_plan "$1"; k=$2; wobble=${3:-$wobble}
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

q() { # one shell word, single-quoted
    printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"
}

# --sshlogin: does every host see the work folder at the same absolute path
# (a shared filesystem)?  $shared 1 if so, else 0.  Each host must have the
# wobble binary the chunks run ($rwobble), or the farm is refused.
probe_hosts() { # LOGINS
    token=$(date +%s)-$$
    echo "$token" > "$work/shared"
    seen=$(parallel --will-cite --nonall --tag --sshlogin "$1" ${FARM_SSH:+--ssh "$FARM_SSH"} \
        "cat $(q "$work/shared") 2>/dev/null; test -x $(q "$rwobble") && echo wobble-ok" 2>/dev/null || true)
    rm -f "$work/shared"
    shared=1
    for host in $(echo "$1" | tr ',' ' '); do
        h=${host#*/}
        [ "$h" = ":" ] && continue
        echo "$seen" | grep -q "^$h	$token\$" || shared=0
        echo "$seen" | grep -q "^$h	wobble-ok\$" ||
            { rm -rf "$work"; die "host $h has no wobble at $rwobble (install the same build there, or name it with --remote-wobble)"; }
    done
}

# The files the effective scene names (photo.image, photo.mask,
# jiggle.weights), as written in it: relative to the scene's folder.
scene_inputs() {
    (cd "$(dirname "$scene")" && with_opts "$work/set-opts" -- "$wobble" info "$(basename "$scene")") |
        sed -n 's/^  \(image\|mask\|weights\): "\(.*\)"$/\2/p'
}

common_dir() { # A B → their deepest common folder (both absolute)
    c=$1
    while [ "$c" != / ]; do case "$2/" in "$c"/*) break ;; esac; c=$(dirname "$c"); done
    echo "$c"
}

physical() { # FILE → its absolute path, the folders' symbolic links resolved
    echo "$(cd "$(dirname "$1")" && pwd -P)/$(basename "$1")"
}

# Hosts that share nothing: the scene, the files it names, the state and a
# chunk script go to each host once (parallel's --basefile), into a folder of
# this run's under the remote $HOME, laid out as here below $root so the
# scene's relative paths hold; chunk K renders there into OUT.farm/cK/,
# which comes back (--return).  The remote folder is removed at the end.
stage_remote() { # LOGINS
    echo "$1" | tr ',' '\n' | grep -q '^\([0-9]*/\)\{0,1\}:$' &&
        { rm -rf "$work"; die "--sshlogin: ':' (this host) cannot take part when the hosts do not see $work (its chunks would not be staged); leave it out"; }
    { grep -x -A1 -e '--set' "$work/scene-opts" | grep -v -x -e '--'; grep -x -e '--set=.*' "$work/scene-opts"; } > "$work/set-opts" || true
    sdir=$(cd "$(dirname "$scene")" && pwd -P)
    pwork=$(cd "$work" && pwd -P)
    root=$(common_dir "$sdir" "$pwork")
    inputs=$(scene_inputs) || { rm -rf "$work"; die "$scene: cannot list its input files"; }
    for f in $inputs; do
        case "$f" in /*) rm -rf "$work"; die "$scene names $f by an absolute path, which a host that shares nothing cannot see: name it relative to the scene, or share the paths" ;; esac
        [ -f "$sdir/$f" ] || { rm -rf "$work"; die "$scene: no such input $f"; }
        root=$(common_dir "$root" "$(dirname "$(physical "$sdir/$f")")")
    done
    rel() { if [ "$root" = / ]; then echo "${1#/}"; else echo "${1#"$root"/}"; fi; }
    rscene=$(rel "$sdir/$(basename "$scene")")
    rwork=$(rel "$pwork")
    set -- --basefile "$rscene" --basefile "$rwork/state" --basefile "$rwork/ranges" --basefile "$rwork/chunk.sh"
    for f in $inputs; do set -- "$@" --basefile "$(rel "$(physical "$sdir/$f")")"; done
    opts=""
    while IFS= read -r a; do opts="$opts $(q "$a")"; done < "$work/scene-opts"
    while IFS= read -r a; do opts="$opts $(q "$a")"; done < "$work/chunk-opts"
    {
        echo "# chunk \$1 of $(q "$out"), run where the staged files are"
        echo 'set -eu'
        echo "range=\$(sed -n \"\$((\$1 + 1))p\" $(q "$rwork/ranges"))"
        echo "mkdir -p $(q "$rwork")/c\$1"
        echo '[ "${range%%:*}" = "${range#*:}" ] && exit 0'
        echo "exec $(q "$rwobble") render $(q "$rscene")$opts --state $(q "$rwork/state") --frames \"\$range\" --resume -q -o $(q "$rwork")/c\$1/f_%06d.png"
    } > "$work/chunk.sh"
    rdir=.wobble-farm-$(hostname)-$$-$(date +%s)
    rc=0
    (cd "$root" && parallel --will-cite --halt now,fail=1 ${jobs:+--jobs "$jobs"} --sshlogin "$ssh" \
        ${FARM_SSH:+--ssh "$FARM_SSH"} --workdir "$rdir" "$@" --return "$rwork/c{}" \
        sh "$rwork/chunk.sh" {} ::: $(seq 0 $((chunks - 1)))) >/dev/null || rc=$?
    parallel --will-cite --nonall --sshlogin "$ssh" ${FARM_SSH:+--ssh "$FARM_SSH"} rm -rf "$rdir" \
        >/dev/null 2>&1 || echo "farm.sh: warning: cannot remove $rdir on the hosts" >&2
    # What came back joins the work folder; a failed chunk's frames too (its
    # journal keeps the join from counting them).
    for d in "$work"/c*; do
        [ -d "$d" ] || continue
        find "$d" -maxdepth 1 -type f -exec mv -f {} "$work"/ \;
        rmdir "$d" 2>/dev/null || true
    done
    rm -f "$work/chunk.sh" "$work/set-opts"
    return $rc
}

case "${1:-}" in
    bake) shift; stage_bake "$@"; exit ;;
    chunk) shift; [ $# = 2 ] || [ $# = 3 ] || die "chunk needs OUT K [WOBBLE]"; stage_chunk "$@"; exit ;;
    join) shift; [ $# = 1 ] || die "join needs OUT"; stage_join "$@"; exit ;;
    ""|-h|--help) sed -n '2,30p' "$0"; exit 0 ;;
esac

[ $# -ge 2 ] || die "usage: farm.sh SCENE OUT [--chunks N] [--jobs J] [--sshlogin LOGINS] [--remote-wobble PATH] [-- RENDER-OPTIONS...]"
scene=$1; out=$2; shift 2
chunks=$(nproc); jobs=""; ssh=""; rwobble=""
while [ $# -gt 0 ]; do
    case "$1" in
        --chunks) chunks=$2; shift 2 ;;
        --jobs) jobs=$2; shift 2 ;;
        --sshlogin) ssh=$2; shift 2 ;;
        --remote-wobble) rwobble=$2; shift 2 ;;
        --) shift; break ;;
        *) die "unknown option $1" ;;
    esac
done
command -v parallel >/dev/null || die "GNU parallel is not installed (scripts/deps.sh installs it)"
self=$(abspath "$0")
stage_bake "$scene" "$out" "$chunks" -- "$@" >/dev/null
load_plan "$out"
rwobble=${rwobble:-$wobble}
shared=1
[ -z "$ssh" ] || probe_hosts "$ssh"
if [ "$shared" = 1 ]; then
    # Absolute paths throughout: a remote job starts in its $HOME.
    parallel --will-cite --halt now,fail=1 ${jobs:+--jobs "$jobs"} ${ssh:+--sshlogin "$ssh"} \
        ${FARM_SSH:+--ssh "$FARM_SSH"} sh "$self" chunk "$out" {} "$rwobble" \
        ::: $(seq 0 $((chunks - 1))) >/dev/null || fail3 "$out: a chunk failed; the frames done are kept in $work"
else
    stage_remote "$ssh" || fail3 "$out: a chunk failed; the frames that came back are kept in $work"
fi
stage_join "$out" >/dev/null
echo "$out"
