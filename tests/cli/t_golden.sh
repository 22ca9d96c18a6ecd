# Golden frames of every example, through `wobble check` itself.

test_examples_match_goldens() {
    . "$ROOT/tests/golden/settings.sh"
    for scene in $GOLDEN_SCENES; do
        cp -r "$ROOT/tests/golden/$scene" "g_$scene"
        set +e
        "$WOBBLE" check "$ROOT/examples/$scene.yaml" --golden "g_$scene" $(golden_options "$scene") 2>err
        rc=$?
        set -e
        if [ $rc -ne 0 ]; then
            cat err
            # Keep the evidence where a person can look at it.
            mkdir -p "$ROOT/build/golden-failures"
            cp "g_$scene"/*_actual.png "g_$scene"/*_diff.png "$ROOT/build/golden-failures/" 2>/dev/null || true
            fail "$scene differs from its goldens (actual/diff PNGs in build/golden-failures)"
        fi
    done
}

test_check_detects_one_changed_pixel() {
    . "$ROOT/tests/golden/settings.sh"
    cp -r "$ROOT/tests/golden/photo-grab" g
    # Regenerate frame 0 and paint one pixel red: beyond any tolerance but 255.
    "$WOBBLE" check "$ROOT/examples/photo-grab.yaml" --golden g $GOLDEN_OPTIONS --frames 0:1
    ffmpeg -v error -y -i g/0000.png -vf "drawbox=x=10:y=10:w=1:h=1:color=red@1:t=fill" g/0000x.png
    mv g/0000x.png g/0000.png
    expect_exit 1 "$WOBBLE" check "$ROOT/examples/photo-grab.yaml" --golden g $GOLDEN_OPTIONS --frames 0:1
    expect_grep "frame 0000: 1 pixels" err
    [ -s g/0000_actual.png ] && [ -s g/0000_diff.png ] || fail "no actual/diff written"
    # Within tolerance passes.
    expect_exit 0 "$WOBBLE" check "$ROOT/examples/photo-grab.yaml" --golden g $GOLDEN_OPTIONS --frames 0:1 --tolerance 255
    expect_exit 0 "$WOBBLE" check "$ROOT/examples/photo-grab.yaml" --golden g $GOLDEN_OPTIONS --frames 0:1 --max-share 0.001
    [ -e g/0000_actual.png ] && fail "stale actual left after a pass"
    # --update accepts it, and then it passes.
    expect_exit 0 "$WOBBLE" check "$ROOT/examples/photo-grab.yaml" --golden g $GOLDEN_OPTIONS --frames 0:1 --update
    expect_exit 0 "$WOBBLE" check "$ROOT/examples/photo-grab.yaml" --golden g $GOLDEN_OPTIONS --frames 0:1
}

test_check_missing_golden_fails_with_hint() {
    mkdir g
    expect_exit 1 "$WOBBLE" check "$ROOT/examples/photo-grab.yaml" --golden g --size 80x60 --set photo.grid=16 --frames 0:2
    expect_grep "run with --update" err
    expect_exit 1 "$WOBBLE" check "$ROOT/examples/photo-grab.yaml" --golden nowhere --size 80x60 --frames 0:1
    expect_grep "run with --update" err
    expect_exit 0 "$WOBBLE" check "$ROOT/examples/photo-grab.yaml" --golden g --size 80x60 --set photo.grid=16 --frames 0:2 --update
    expect_grep "created g/0000.png" err
    expect_exit 0 "$WOBBLE" check "$ROOT/examples/photo-grab.yaml" --golden g --size 80x60 --set photo.grid=16 --frames 0:2 --json
    expect_grep '"passed": 2' out
}
