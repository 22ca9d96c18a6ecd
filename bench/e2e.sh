#!/bin/sh
# bench/e2e.sh BUILD — end to end: `wobble render` of a 1080p, 5 s, 60 fps
# photo scene to MP4 (x264 veryfast, crf 18) against ffmpeg encoding the very
# same frames from a raw RGBA file with the same settings, in one run on this
# machine.  The renderer should hide behind the encoder: target wall-time
# ratio wobble / encoder-only <= 1.2.  Medians of RUNS (default 5) runs each,
# interleaved so machine noise hits both sides alike.  Also prints each
# side's CPU time (user + system, all threads; /usr/bin/time): on a shared
# machine the wall clock follows the load, the CPU time much less.
set -eu
BUILD=${1:-build}
RUNS=${RUNS:-5}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
W="$ROOT/$BUILD/wobble"
[ -x "$W" ] || W="$BUILD/wobble"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
SCENE="$ROOT/examples/photo-grab.yaml"
OPTS="--size 1920x1080 --fps 60 --duration 5"

now() { date +%s.%N; }
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

echo "== end to end: $SCENE $OPTS, x264 veryfast crf 18"
"$W" render "$SCENE" $OPTS -q -o "$tmp/frames.mkv"
ffmpeg -v error -i "$tmp/frames.mkv" -f rawvideo -pix_fmt rgba "$tmp/raw.rgba"
frames=$(( $(stat -c %s "$tmp/raw.rgba") / (1920 * 1080 * 4) ))

: > "$tmp/enc"; : > "$tmp/wob"; : > "$tmp/encc"; : > "$tmp/wobc"
# cpu CMD...: run CMD, append its user + system seconds to $tmp/cpu.
cpu() {
    if [ -x /usr/bin/time ]; then
        /usr/bin/time -f "%U %S" -o "$tmp/t" "$@"
        awk '{ print $1 + $2 }' "$tmp/t" >> "$tmp/cpu"
    else
        "$@"
        echo 0 >> "$tmp/cpu"
    fi
}
i=0
while [ $i -lt "$RUNS" ]; do
    : > "$tmp/cpu"
    t0=$(now)
    cpu ffmpeg -v error -y -f rawvideo -pix_fmt rgba -s 1920x1080 -r 60 -i "$tmp/raw.rgba" \
        -c:v libx264 -preset veryfast -crf 18 -pix_fmt yuv420p "$tmp/enc.mp4"
    t1=$(now)
    cpu "$W" render "$SCENE" $OPTS --preset veryfast --crf 18 -q -o "$tmp/w.mp4"
    t2=$(now)
    awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }' >> "$tmp/enc"
    awk -v a="$t1" -v b="$t2" 'BEGIN { print b - a }' >> "$tmp/wob"
    sed -n 1p "$tmp/cpu" >> "$tmp/encc"
    sed -n 2p "$tmp/cpu" >> "$tmp/wobc"
    i=$((i + 1))
done
enc=$(median < "$tmp/enc"); wob=$(median < "$tmp/wob")
encc=$(median < "$tmp/encc"); wobc=$(median < "$tmp/wobc")
awk -v n="$frames" -v e="$enc" -v w="$wob" 'BEGIN {
    printf "frames %d   ffmpeg encode-only %.2f s (%.1f fps)   wobble render %.2f s (%.1f fps)   ratio %.2f (target <= 1.2)\n",
        n, e, n / e, w, n / w, w / e }'
awk -v e="$encc" -v w="$wobc" 'BEGIN {
    printf "cpu time: ffmpeg %.2f s   wobble %.2f s   ratio %.2f\n", e, w, (e > 0 ? w / e : 0) }'
