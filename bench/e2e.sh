#!/bin/sh
# bench/e2e.sh BUILD [EXAMPLE...] — end to end, every scene kind: for each
# example (its own fps and length) at 1280x720 and 1920x1080, `wobble
# render` to MP4 (x264 veryfast, crf 18) against ffmpeg encoding the very
# same frames from a raw RGBA file with the same settings, on this machine.
# The renderer should hide behind the encoder: target wobble / ffmpeg <= 1.2
# on every row, in wall time and in CPU time (user + system, all threads;
# /usr/bin/time; on a shared machine the wall clock follows the load, the
# CPU time much less).
#
# Medians of RUNS (default 3) runs of each side, interleaved, the order
# swapped every run, so machine noise hits both sides alike.  EXAMPLE names
# a file of examples/ without .yaml, or a shell pattern ('cloth-*');
# SIZES (default "1280x720 1920x1080") the sizes.  Prints one table.
set -eu
BUILD=${1:-build}
[ $# -gt 0 ] && shift
RUNS=${RUNS:-3}
SIZES=${SIZES:-1280x720 1920x1080}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
W="$ROOT/$BUILD/wobble"
[ -x "$W" ] || W="$BUILD/wobble"
[ $# -gt 0 ] || set -- photo-grab jiggle-orb jiggle-walker cloth-silk-mannequin \
    cloth-flag-wind rope-cut
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
X264="-c:v libx264 -preset veryfast -crf 18 -pix_fmt yuv420p"

now() { date +%s.%N; }
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

# timed NAME CMD...: run CMD; append its wall seconds to $tmp/NAME.wall and
# its user + system seconds to $tmp/NAME.cpu (0 without /usr/bin/time).
timed() {
    name=$1; shift
    t0=$(now)
    if [ -x /usr/bin/time ]; then
        /usr/bin/time -f "%U %S" -o "$tmp/t" "$@"
        awk '{ print $1 + $2 }' "$tmp/t" >> "$tmp/$name.cpu"
    else
        "$@"
        echo 0 >> "$tmp/$name.cpu"
    fi
    t1=$(now)
    awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }' >> "$tmp/$name.wall"
}

# The examples asked for, by name or pattern; a name that matches nothing is
# an error, not an empty row.
scenes=
for pat in "$@"; do
    found=0
    for f in "$ROOT"/examples/$pat.yaml; do
        [ -f "$f" ] || continue
        scenes="$scenes $f"; found=1
    done
    [ $found -eq 1 ] || { echo "e2e.sh: no example matches '$pat'" >&2; exit 2; }
done

echo "== end to end: wobble render against ffmpeg from raw RGBA, x264 veryfast crf 18, medians of $RUNS"
printf '%-22s | %-9s | %6s | %8s | %8s | %10s | %9s\n' \
    example size frames "ffmpeg s" "wobble s" "wall ratio" "CPU ratio"
for scene in $scenes; do
    ex=$(basename "$scene" .yaml)
    for size in $SIZES; do
        w=${size%x*}; h=${size#*x}
        # The frames ffmpeg encodes: wobble's own, losslessly (FFV1), as raw RGBA.
        "$W" render "$scene" --size "$size" -q -o "$tmp/frames.mkv"
        fps=$(ffprobe -v error -select_streams v:0 -show_entries stream=r_frame_rate \
            -of csv=p=0 "$tmp/frames.mkv")
        ffmpeg -v error -y -i "$tmp/frames.mkv" -f rawvideo -pix_fmt rgba "$tmp/raw.rgba"
        rm -f "$tmp/frames.mkv"
        frames=$(( $(stat -c %s "$tmp/raw.rgba") / (w * h * 4) ))
        rm -f "$tmp"/enc.* "$tmp"/wob.*
        i=0
        while [ $i -lt "$RUNS" ]; do
            # ffmpeg first on even runs, wobble first on odd ones.
            if [ $((i % 2)) -eq 0 ]; then order="enc wob"; else order="wob enc"; fi
            for side in $order; do
                if [ "$side" = enc ]; then
                    # shellcheck disable=SC2086
                    timed enc ffmpeg -v error -y -f rawvideo -pix_fmt rgba -s "$size" \
                        -r "$fps" -i "$tmp/raw.rgba" $X264 "$tmp/enc.mp4"
                else
                    timed wob "$W" render "$scene" --size "$size" --preset veryfast \
                        --crf 18 -q -o "$tmp/wob.mp4"
                fi
            done
            i=$((i + 1))
        done
        rm -f "$tmp/raw.rgba"
        awk -v ex="$ex" -v size="$size" -v n="$frames" \
            -v e="$(median < "$tmp/enc.wall")" -v w="$(median < "$tmp/wob.wall")" \
            -v ec="$(median < "$tmp/enc.cpu")" -v wc="$(median < "$tmp/wob.cpu")" 'BEGIN {
            printf "%-22s | %-9s | %6d | %8.2f | %8.2f | %10.2f | %9.2f\n",
                ex, size, n, e, w, w / e, (ec > 0 ? wc / ec : 0) }'
    done
done
echo "target: every ratio <= 1.2 (wobble / ffmpeg, wall and CPU)"
