#!/bin/sh
# Render examples/photo-presets.yaml once per preset and stack the three
# renders left to right (spring | rubber | jelly) into one video.
# Usage: scripts/presets-side-by-side.sh [OUT.mp4]   (default presets.mp4)
set -eu
out=${1:-presets.mp4}
root=$(cd "$(dirname "$0")/.." && pwd)
wobble=${WOBBLE:-$root/build/wobble}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for p in spring rubber jelly; do
    # Same length for all three so the stack lines up frame for frame.
    "$wobble" render "$root/examples/photo-presets.yaml" --set photo.preset=$p \
        --set output.until_settled=false -q -o "$tmp/$p.mkv"
done
ffmpeg -v error -y -i "$tmp/spring.mkv" -i "$tmp/rubber.mkv" -i "$tmp/jelly.mkv" \
    -filter_complex hstack=inputs=3 -c:v libx264 -pix_fmt yuv420p -crf 18 "$out"
echo "$out"
