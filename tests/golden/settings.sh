# Golden-frame settings shared by scripts/regen-goldens.sh and
# tests/cli/t_golden.sh: small frames, a coarse grid and every 6th frame keep
# the goldens small and the check fast, while still covering grab, release,
# pins, masks, segmentation and transparency, real photos (a masked cup with
# the default fill, a corner dragged in with the default edge), and the rope
# kind's swings, moving anchors, obstacles and cuts, and the jiggle kind's 1D
# traces, 2D outlines with colliders, shake and reseed, and 3D meshes (every
# shape, heatmap, overlay, floor and sphere collider, every 6th frame at
# 160x90).
# Tolerance: frames must match exactly up to one level of rounding per
# channel (wobble check's default --tolerance 1 --max-share 0): the renderer
# is deterministic, so any larger change is a real change.
GOLDEN_SCENES="photo-grab photo-pins photo-mask photo-segment photo-presets photo-transparent photo-cup photo-cat-edge rope-pendulums rope-cut jiggle-1d jiggle-2d-ring jiggle-2d-disc jiggle-2d-capsule jiggle-orb jiggle-capsule jiggle-torus jiggle-dancer jiggle-walker"
GOLDEN_SCENES="$GOLDEN_SCENES cloth-silk-mannequin cloth-flag-wind cloth-drop-self"
# Options every scene gets, and those of the photo scenes (a coarse mesh;
# other kinds would reject photo keys).
GOLDEN_COMMON="--size 160x120 --fps 10 --every 3 -q"
GOLDEN_OPTIONS="$GOLDEN_COMMON --set photo.grid=64"

# golden_options SCENE: the options one scene's goldens are made with.  The
# masked scenes' goldens hold the still background without a fill (as before
# photo.fill); tests/cli/t_fill.sh checks the default fill.
golden_options() {
    case $1 in
    photo-mask | photo-segment) echo "$GOLDEN_OPTIONS --set photo.fill=none" ;;
    photo-*) echo "$GOLDEN_OPTIONS" ;;
    cloth-*) echo "$GOLDEN_COMMON --set cloth.grid=24" ;;
    jiggle-orb | jiggle-capsule | jiggle-torus | jiggle-dancer | jiggle-walker)
        echo "--size 160x90 --fps 10 --every 6 -q" ;;
    *) echo "$GOLDEN_COMMON" ;;
    esac
}
