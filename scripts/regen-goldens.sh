#!/bin/sh
# Refresh the project's golden frames (tests/golden/<example>/NNNN.png) from
# the current build, deliberately: run it after a change that is meant to
# alter pictures, look at the frames it reports as updated, commit them.
# The settings (scenes, and each scene's options from golden_options) come
# from tests/golden/settings.sh, which tests/cli/t_golden.sh reads too.
# Usage: scripts/regen-goldens.sh [WOBBLE]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
wobble=${1:-$root/build/wobble}
. "$root/tests/golden/settings.sh"
for scene in $GOLDEN_SCENES; do
    "$wobble" check "$root/examples/$scene.yaml" --golden "$root/tests/golden/$scene" \
        $(golden_options "$scene") --update
done
