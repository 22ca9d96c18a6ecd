# Timeline features end to end: ramps (`set`), in every kind, exact over
# frame ranges.

# ramp_scenes: one small scene per kind, each with a ramp.
ramp_scenes() {
    cp "$ROOT/examples/photo.png" photo.png
    cat > photo.yaml <<'YAML'
wobble: 1
kind: photo
output: {width: 64, height: 48, fps: 10, duration: 1.5}
photo: {image: photo.png, grid: 24, bounce: 0.2}
timeline:
  - {time: 0, grab: {at: [0.5, 0.5], path: [{time: 0.2, to: [0.6, 0.4]}]}}
  - {time: 0.2, release: {}}
  - {time: 0.3, set: {key: photo.bounce, to: 0.9, over: 0.5}}
YAML
    cat > rope.yaml <<'YAML'
wobble: 1
kind: rope
output: {width: 64, height: 48, fps: 10, duration: 1.5}
rope:
  ropes: [{from: [0.5, 0.3], to: [1.2, 0.3], nodes: 12, pin: start}]
timeline:
  - {time: 0.4, set: {key: rope.gravity, to: 2, over: 0.6}}
YAML
    cat > cloth.yaml <<'YAML'
wobble: 1
kind: cloth
output: {width: 64, height: 48, fps: 10, duration: 1}
cloth: {grid: 12, pin: top-edge, layout: vertical}
timeline:
  - {time: 0.2, set: {key: cloth.gravity, to: 2, over: 0.5}}
YAML
    cp "$ROOT/examples/jiggle-2d-ramp.yaml" jiggle.yaml
}

test_ramps_render_in_every_kind_and_change_the_motion() {
    ramp_scenes
    for k in photo rope cloth jiggle; do
        expect_exit 0 "$WOBBLE" render $k.yaml --size 64x48 --fps 10 -q -o ${k}_%03d.png --stats $k.csv
        # the same scene without its ramps moves differently after them
        case $k in
        jiggle) sed '/^timeline:/,$d' $k.yaml > ${k}0.yaml ;;
        *) grep -v 'set:' $k.yaml > ${k}0.yaml ;;
        esac
        expect_exit 0 "$WOBBLE" render ${k}0.yaml --size 64x48 --fps 10 -q -o ${k}0_%03d.png --stats ${k}0.csv
        cut -d, -f6 $k.csv > h1; cut -d, -f6 ${k}0.csv > h0
        cmp -s h1 h0 && fail "$k: the ramp changed no state hash"
        # before the first ramp the states are the same
        [ "$(sed -n 2p $k.csv | cut -d, -f6)" = "$(sed -n 2p ${k}0.csv | cut -d, -f6)" ] ||
            fail "$k: frame 0 differs before any ramp"
    done
}

# A frame range fast-forwards through the ramps: the same bytes as the same
# frames of the full render.
test_ramps_are_exact_over_frame_ranges() {
    ramp_scenes
    for k in photo rope jiggle; do
        expect_exit 0 "$WOBBLE" render $k.yaml --size 64x48 --fps 10 -q -o full_%03d.png
        expect_exit 0 "$WOBBLE" render $k.yaml --size 64x48 --fps 10 -q --frames 7:12 -o part_%03d.png
        for f in 7 8 9 10 11; do
            cmp -s "$(printf full_%03d.png $f)" "$(printf part_%03d.png $f)" ||
                fail "$k frame $f differs between the full render and --frames 7:12"
        done
        rm -f full_*.png part_*.png
    done
}

test_ramp_value_out_of_range_is_an_error_at_its_place() {
    cat > bad.yaml <<'YAML'
wobble: 1
kind: jiggle
timeline:
  - time: 1
    set: {key: jiggle.damp, to: -1, over: 2}
YAML
    expect_exit 2 "$WOBBLE" render bad.yaml -o bad.mkv
    head -1 err > e1
    expect_grep "bad.yaml:5:" e1
    expect_grep "'jiggle.damp'" e1
    [ ! -e bad.mkv ] || fail "output created"
}

test_ramp_of_a_key_that_does_not_ramp_names_the_ones_that_do() {
    cat > bad.yaml <<'YAML'
wobble: 1
kind: rope
timeline:
  - {time: 1, set: {key: rope.passes, to: 2}}
YAML
    expect_exit 2 "$WOBBLE" render bad.yaml -o bad.mkv
    expect_grep "bad.yaml:4:" err
    expect_grep "'rope.passes' cannot be ramped" err
    expect_grep "rope.damping, rope.gravity" err
}

# ---- pre-roll

preroll_scene() {
    cat > p.yaml <<YAML
wobble: 1
kind: $1
output: {width: 64, height: 48, fps: 10, duration: 1, preroll: $2}
YAML
    case $1 in
    jiggle) printf 'jiggle: {view: 2d, shape: disc, drive: {walk: {bob: 0.3}, gain: 3}}\n' >> p.yaml ;;
    rope) printf 'rope: {ropes: [{from: [0.5, 0.3], to: [1.2, 0.3], nodes: 12, pin: start}]}\n' >> p.yaml ;;
    esac
}

# Frame f of a render with preroll P shows what frame f + P·fps of the same
# scene without it shows: the drivers ran through the pre-roll.
test_preroll_frames_are_the_later_frames_of_a_plain_render() {
    for k in jiggle rope; do
        preroll_scene $k 1.5
        expect_exit 0 "$WOBBLE" render p.yaml -q -o pre_%03d.png --stats pre.csv
        preroll_scene $k 0
        expect_exit 0 "$WOBBLE" render p.yaml -q --duration 2.5 -o plain_%03d.png
        for f in 0 1 5 9; do
            cmp -s "$(printf pre_%03d.png $f)" "$(printf plain_%03d.png $((f + 15)))" ||
                fail "$k: preroll frame $f is not plain frame $((f + 15))"
        done
        # frame 0 is already moving
        [ "$(sed -n 2p pre.csv | cut -d, -f3)" = 1 ] || fail "$k: frame 0 is not moving"
        rm -f pre_* plain_*
    done
}

# Chunks of a pre-rolled render are the same bytes as the full render.
test_preroll_chunks_match_the_full_render() {
    preroll_scene jiggle 0.73
    expect_exit 0 "$WOBBLE" render p.yaml -q -o full_%03d.png
    expect_exit 0 "$WOBBLE" render p.yaml -q --frames 0:4 -o a_%03d.png
    expect_exit 0 "$WOBBLE" render p.yaml -q --frames 4:10 -o a_%03d.png
    for f in 0 1 2 3 4 5 6 7 8 9; do
        cmp -s "$(printf full_%03d.png $f)" "$(printf a_%03d.png $f)" ||
            fail "frame $f of the chunks differs from the full render"
    done
}

# ---- teleport and reset

# A disc walking (no colliders, so nothing in the world can tell where the
# body is): a teleport moves the drawn body but changes no bone offset or
# velocity — the per-frame state hash (offsets and velocities) is the same
# as without it, while the frames after it differ.
test_teleport_changes_no_bone_offset() {
    cat > j.yaml <<'YAML'
wobble: 1
kind: jiggle
output: {width: 64, height: 48, fps: 10, duration: 2}
jiggle: {view: 2d, shape: disc, drive: {walk: {bob: 0.3}, gain: 3}}
timeline:
  - {time: 0.75, teleport: {by: [0.7, 0.2]}}
  - {time: 1.25, teleport: {by: [-1.1, 0]}}
YAML
    expect_teleport_keeps_state j.yaml
}

# A swinging rope moved in one step keeps its shape and speed: the largest
# link elongation and the largest speed of the frames after the teleport
# equal those without it (to float rounding of the moved coordinates).
test_teleport_keeps_rope_shape_and_motion() {
    cat > r.yaml <<'YAML'
wobble: 1
kind: rope
output: {width: 64, height: 48, fps: 10, duration: 1.5}
rope:
  view: {width: 8, height: 6}
  ropes: [{from: [2, 1], to: [3.5, 1], nodes: 10, pin: start}]
timeline:
  - {time: 0.65, teleport: {by: [2, 0.5]}}
YAML
    expect_exit 0 "$WOBBLE" render r.yaml -q -o t_%03d.png --stats t.csv
    sed '/^timeline:/,$d' r.yaml > r0.yaml
    expect_exit 0 "$WOBBLE" render r0.yaml -q -o n_%03d.png --stats n.csv
    # the two rows side by side: column c of the second file is $(h + c)
    paste -d, t.csv n.csv | awk -F, 'NR > 1 && $1 >= 7 && $1 <= 9 {
        h = NF / 2; e2 = $(h + 4); s2 = $(h + 5)
        de = $4 - e2; ds = ($5 - s2) / (s2 + 1e-9); if (de < 0) de = -de; if (ds < 0) ds = -ds
        if (de > 1e-4 || ds > 1e-3) { print "frame " $1 ": elongation " $4 " vs " e2 ", speed " $5 " vs " s2; bad = 1 }
    } END { exit bad }' || fail "the teleport changed the rope's shape or motion"
    [ "$(sed -n 9p t.csv | cut -d, -f6)" != "$(sed -n 9p n.csv | cut -d, -f6)" ] ||
        fail "the teleport did not move the rope"
}

# reset: at rest where it is.  A shaken, ringing 1d scene reset at 1 s has
# no velocity on its next frame; a rope reset stops swinging at once.
test_reset_puts_the_solver_at_rest() {
    cat > j.yaml <<'YAML'
wobble: 1
kind: jiggle
output: {width: 64, height: 48, fps: 10, duration: 2}
jiggle: {view: 2d, shape: disc, damp: 0.05}
timeline:
  - {time: 0.2, shake: {span: 8}}
  - {time: 1.0, reset: {}}
YAML
    expect_exit 0 "$WOBBLE" render j.yaml -q -o j_%03d.png --stats j.csv
    # frame 10 is the state at 1.0 s, the reset fired on the step that starts there
    awk -F, '$1 == 9 && $5 < 0.01 { exit 1 }' j.csv || fail "not moving before the reset"
    awk -F, '$1 == 11 && $5 > 1e-6 { print; exit 1 }' j.csv || fail "moving after the reset"
    cat > r.yaml <<'YAML'
wobble: 1
kind: rope
output: {width: 64, height: 48, fps: 10, duration: 1.5}
rope:
  gravity: 0
  view: {width: 8, height: 6}
  ropes: [{from: [2, 1], to: [3.5, 1], nodes: 10, pin: both, end_path: [{time: 0.3, to: [3, 1.5]}]}]
timeline:
  - {time: 0.6, reset: {}}
YAML
    expect_exit 0 "$WOBBLE" render r.yaml -q -o r_%03d.png --stats r.csv
    # what is left after it is only the links' own relaxation, a
    # hundredth of the swing before it
    awk -F, '$1 == 6 { before = $5 } $1 == 7 { after = $5 }
        END { if (!(before > 0.05 && after < 0.01 * before)) { print before, after; exit 1 } }' r.csv ||
        fail "the rope reset did not stop the swing"
}
