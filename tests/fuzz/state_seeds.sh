#!/bin/sh
# Bake the seeds of fuzz_state (tests/fuzz/corpus/state/): the harness's
# four scenes, small (short, coarse grids), a few snapshots each.  The sets
# must match SCENES in fuzz_state.c.  Usage: sh tests/fuzz/state_seeds.sh [WOBBLE]
set -eu
cd "$(dirname "$0")/../.."
wobble=${1:-build/wobble}
out=tests/fuzz/corpus/state
mkdir -p "$out"
# tests/fuzz/state-photo.png is `wobble testcard --size 48x36`.
"$wobble" bake examples/photo-grab.yaml -q --every 5 -o "$out/photo.wbs" --set output.duration=0.5 \
    --set photo.image=tests/fuzz/state-photo.png --set output.width=48 --set photo.grid=8
"$wobble" bake examples/jiggle-1d.yaml -q --every 5 -o "$out/jiggle.wbs" --set output.duration=0.5 \
    --set jiggle.window=1
"$wobble" bake examples/cloth-flag-wind.yaml -q --every 3 -o "$out/cloth.wbs" --set output.duration=0.3 \
    --set cloth.grid=4
"$wobble" bake examples/rope-cut.yaml -q --every 8 -o "$out/rope.wbs" --set output.duration=0.8
ls -l "$out"
