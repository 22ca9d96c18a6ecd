# The cloth kind end to end: scene keys, runner, 3D view, events, outputs.

# A small sheet hanging from two named corners, seen straight on from +z
# against a blue background (the sheet is red): 160x120, the corner (0.5,
# 2.0) lands near pixel (100, 39).
cloth_scene() {
    cat > c.yaml <<'YAML'
wobble: 1
kind: cloth
output: {width: 160, height: 120, fps: 30, duration: 2, background: "#0000ff"}
cloth:
  fabric: cotton
  colour: "#ff0000"
  layout: vertical
  grid: 16
  size: [1, 1]
  centre: [0, 1.5, 0]
  floor: false
  pins:
    - {name: left, i: 0, j: 0}
    - {name: right, i: -1, j: 0}
  camera: {target: [0, 1.5, 0], eye: [0, 1.5, 4], fov: 40}
YAML
}

# Small, quick renders of an example: a coarse grid and a small frame.
SMALL="--size 96x54 -q"

test_cloth_examples_render() {
    for ex in cloth-silk-mannequin cloth-flag-wind cloth-drop-self; do
        mkdir "$ex"
        expect_exit 0 "$WOBBLE" render "$ROOT/examples/$ex.yaml" -o "$ex/f_%04d.png" $SMALL \
            --set cloth.grid=20 --fps 10 --frames 0:12
        [ "$(ls "$ex" | wc -l)" = 12 ] || fail "$ex: $(ls "$ex" | wc -l) frames"
        [ "$(probe "$ex/f_0000.png" width)x$(probe "$ex/f_0000.png" height)" = 96x54 ] ||
            fail "$ex: size"
        # the cloth moves: the first and last frames differ
        ! cmp -s "$ex/f_0000.png" "$ex/f_0011.png" || fail "$ex: nothing moved"
    done
}

test_cloth_fabric_set_changes_the_frames() {
    expect_exit 0 "$WOBBLE" render "$ROOT/examples/cloth-silk-mannequin.yaml" -o s_%04d.png \
        $SMALL --set cloth.grid=20 --frames 20:21
    expect_exit 0 "$WOBBLE" render "$ROOT/examples/cloth-silk-mannequin.yaml" -o d_%04d.png \
        $SMALL --set cloth.grid=20 --frames 20:21 --set cloth.fabric=denim
    ! cmp -s s_0020.png d_0020.png || fail "denim looks like silk"
    # and the printed scene says denim with denim's weight
    expect_exit 0 "$WOBBLE" info "$ROOT/examples/cloth-silk-mannequin.yaml" --set cloth.fabric=denim
    expect_grep '  fabric: denim' out
    expect_grep 'weight: 0.4' out
}

test_cloth_unknown_fabric_is_an_error_with_position() {
    cloth_scene
    sed 's/fabric: cotton/fabric: demin/' c.yaml > bad.yaml
    expect_exit 2 "$WOBBLE" render bad.yaml -o bad.mkv
    first=$(sed -n 1p err)
    want="bad.yaml:5:11: error: 'cloth.fabric' expects chiffon | silk | cotton | wool | denim | leather, found 'demin' (did you mean 'denim'?)"
    [ "$first" = "$want" ] || fail "first line of stderr: '$first'"
    [ ! -e bad.mkv ] || fail "output created for a bad scene"
    expect_exit 2 "$WOBBLE" render c.yaml -o bad.mkv --set cloth.fabric=slik
    expect_grep "did you mean 'silk'" err
}

test_cloth_release_of_an_unknown_pin_is_an_error() {
    cloth_scene
    printf 'timeline:\n  - {time: 1, release: {pin: middle}}\n' >> c.yaml
    expect_exit 2 "$WOBBLE" render c.yaml -o x.mkv
    expect_grep "c.yaml:17:5: error: release at 1 s: no pin named 'middle' in 'cloth.pins'" err
}

test_cloth_release_lets_the_corner_fall() {
    cloth_scene
    cp c.yaml r.yaml
    printf 'timeline:\n  - {time: 0.5, release: {pin: right}}\n' >> r.yaml
    expect_exit 0 "$WOBBLE" render c.yaml -o k_%04d.png --stats k.csv
    expect_exit 0 "$WOBBLE" render r.yaml -o r_%04d.png --stats r.csv
    # identical until the release (frame 15 = 0.5 s), different after it
    [ "$(sed -n 2,16p k.csv)" = "$(sed -n 2,16p r.csv)" ] || fail "differs before the release"
    [ "$(sed -n 18p k.csv | cut -d, -f6)" != "$(sed -n 18p r.csv | cut -d, -f6)" ] ||
        fail "release changed nothing"
    # held, the corner stays red; released, it has fallen away (blue)
    set -- $(pixel k_0059.png 97 42)
    [ "$1" -gt "$3" ] || fail "held corner is not cloth: $*"
    set -- $(pixel r_0059.png 97 42)
    [ "$3" -gt "$1" ] || fail "released corner is still there: $*"
    # the left corner is still held: the sheet hangs below it
    set -- $(pixel r_0059.png 60 50)
    [ "$1" -gt "$3" ] || fail "left corner fell too: $*"
    # the released run moves faster after the release (max_speed, column 5)
    awk -F, 'NR == 25 { print $5 }' k.csv > vk
    awk -F, 'NR == 25 { print $5 }' r.csv > vr
    awk -v a="$(cat vk)" -v b="$(cat vr)" 'BEGIN { exit !(b > 2 * a + 0.1) }' ||
        fail "speed held $(cat vk), released $(cat vr)"
}

test_cloth_release_all_and_wind_events() {
    cloth_scene
    printf 'timeline:\n  - {time: 0.2, wind: {strength: 4, direction: [0, 0, 1], ramp: 0.3}}\n  - {time: 0.6, release: {}}\n' >> c.yaml
    expect_exit 0 "$WOBBLE" render c.yaml -o e_%04d.png --stats e.csv
    # everything fell: no red left at the top corners
    for x in 60 97; do
        set -- $(pixel e_0059.png $x 50)
        [ "$3" -gt "$1" ] || fail "corner at x=$x still there: $*"
    done
    expect_exit 0 "$WOBBLE" info c.yaml
    expect_grep 'wind: {strength: 4, direction: [0, 0, 1], bias: 1, ramp: 0.3}' out
}

test_cloth_threads_give_identical_frames_and_states() {
    for t in 1 2; do
        render_md5 t$t "$ROOT/examples/cloth-drop-self.yaml" $SMALL \
            --set cloth.grid=24 --fps 10 --duration 2 --threads $t --stats t$t.csv
    done
    cmp -s t1.csv t2.csv || fail "stats differ across --threads"
    [ "$(grep -v '^#' t1.md5)" = "$(grep -v '^#' t2.md5)" ] || fail "frames differ across --threads"
}

test_cloth_same_motion_at_any_frame_rate() {
    cloth_scene
    printf 'timeline:\n  - {time: 0.5, release: {pin: right}}\n' >> c.yaml
    expect_exit 0 "$WOBBLE" render c.yaml -o a.mkv --fps 30 --stats s30.csv
    expect_exit 0 "$WOBBLE" render c.yaml -o b.mkv --fps 60 --stats s60.csv
    expect_exit 0 "$WOBBLE" render c.yaml -o c.mkv --fps 60 --frames 60:61 --stats sf.csv
    # the state at 1 s: frame 30 at 30 fps, frame 60 at 60 fps
    h30=$(awk -F, '$1 == 30 { print $6 }' s30.csv)
    h60=$(awk -F, '$1 == 60 { print $6 }' s60.csv)
    hf=$(awk -F, '$1 == 60 { print $6 }' sf.csv)
    [ -n "$h30" ] && [ "$h30" = "$h60" ] || fail "1 s state: '$h30' at 30 fps, '$h60' at 60 fps"
    [ "$h60" = "$hf" ] || fail "--frames 60:61 reached '$hf', not '$h60'"
}

test_cloth_settles_and_stops_until_settled() {
    cloth_scene
    expect_exit 0 "$WOBBLE" render c.yaml -o s.mkv --duration 20 --until-settled --json
    grep -q '"settled_at": [0-9]' out || fail "not settled: $(cat out)"
    frames=$(sed 's/.*"frames": \([0-9]*\).*/\1/' out)
    [ "$frames" -lt 600 ] || fail "never settled ($frames frames)"
}

test_cloth_runaway_names_the_particle() {
    # gravity 1000 m/s^2, no damping, no floor: after ~14 s the sheet is 1e5 m down
    cat > fall.yaml <<'YAML'
wobble: 1
kind: cloth
output: {width: 32, height: 18, fps: 2, duration: 20}
cloth: {grid: 4, size: [1, 1], gravity: 1000, damping: 1, floor: false}
YAML
    expect_exit 4 "$WOBBLE" render fall.yaml -o f.mkv
    grep -q 'cloth particle ([0-9]*, [0-9]*) diverged' err || fail "error: $(cat err)"
}

test_cloth_default_size_and_transparent_background() {
    cloth_scene
    sed 's/output: {width: 160, height: 120,/output: {/' c.yaml > d.yaml
    expect_exit 0 "$WOBBLE" render d.yaml -o d_%04d.png --frames 0:1 \
        --set output.background=transparent
    [ "$(probe d_0000.png width)x$(probe d_0000.png height)" = 640x360 ] || fail "default size"
    [ "$(probe d_0000.png pix_fmt)" = rgba ] || fail "pix_fmt $(probe d_0000.png pix_fmt)"
    corner=$(pixel d_0000.png 2 2 rgba)
    [ "$corner" = "0 0 0 0" ] || fail "corner is not transparent: $corner"
    centre=$(pixel d_0000.png 320 180 rgba)
    [ "${centre##* }" = 255 ] || fail "cloth is not opaque: $centre"
    expect_exit 0 "$WOBBLE" render d.yaml -o e_%04d.png --frames 0:1 --set output.height=180
    [ "$(probe e_0000.png width)x$(probe e_0000.png height)" = 320x180 ] || fail "16:9 from height"
}
