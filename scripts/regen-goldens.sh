#!/bin/sh
# Refresh the project's golden frames (tests/golden/<example>/NNNN.png) from
# the current build, deliberately: run it after a change that is meant to
# alter pictures, look at the frames it reports as updated, commit them.
# The settings here and in tests/cli/t_golden.sh are the same list.
# Usage: scripts/regen-goldens.sh [WOBBLE]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
wobble=${1:-$root/build/wobble}
. "$root/tests/golden/settings.sh"
for scene in $GOLDEN_SCENES; do
    "$wobble" check "$root/examples/$scene.yaml" --golden "$root/tests/golden/$scene" \
        $GOLDEN_OPTIONS --update
done
