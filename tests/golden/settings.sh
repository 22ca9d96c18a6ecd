# Golden-frame settings shared by scripts/regen-goldens.sh and
# tests/cli/t_golden.sh: small frames, a coarse grid and every 6th frame keep
# the goldens small and the check fast, while still covering grab, release,
# pins, masks, segmentation and transparency.
# Tolerance: frames must match exactly up to one level of rounding per
# channel (wobble check's default --tolerance 1 --max-share 0): the renderer
# is deterministic, so any larger change is a real change.
GOLDEN_SCENES="photo-grab photo-pins photo-mask photo-segment photo-presets photo-transparent"
GOLDEN_OPTIONS="--size 160x120 --set photo.grid=64 --fps 10 --every 3 -q"
