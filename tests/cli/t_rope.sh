# The rope kind end to end: scene keys, runner, 2D view, outputs.

# A small rope scene: two ropes, an obstacle, a moving anchor and a cut.
rope_scene() {
    cat > r.yaml <<'YAML'
wobble: 1
kind: rope
output: {width: 96, height: 72, fps: 10, duration: 1, background: "#202020"}
rope:
  view: {width: 4, height: 3}
  ropes:
    - {from: [1, 0.5], to: [2.2, 0.5], nodes: 16, end_mass: 4, width: 5px}
    - from: [3, 0.5]
      to: [3, 1.5]
      nodes: 10
      start_path: [{time: 0.5, to: [3.4, 0.5]}]
  obstacles:
    - points: [[1.2, 2.2], [2.4, 2.2], [1.8, 1.7]]
timeline:
  - {time: 0.5, cut: {rope: 0, link: 5}}
YAML
}

bad_scene() {
    cat > bad.yaml <<YAML
wobble: 1
kind: rope
rope:
  ropes:
    - {from: [1, 0.5], to: [2, 0.5]$1}
$2
YAML
}

test_rope_mkv_frames_and_size() {
    rope_scene
    expect_exit 0 "$WOBBLE" render r.yaml -o a.mkv --json
    expect_grep '"frames": 10' out
    [ "$(probe a.mkv codec_name)" = ffv1 ] || fail "codec $(probe a.mkv codec_name)"
    [ "$(probe a.mkv width)x$(probe a.mkv height)" = 96x72 ] || fail "size"
    [ "$(count_frames a.mkv)" = 10 ] || fail "frames $(count_frames a.mkv)"
}

test_rope_png_sequence_draws_the_scene() {
    rope_scene
    render_pngs f 10 96x72 r.yaml
    # Frame 0: the background, the obstacle's fill and the rope's colour
    # (defaults #5a6273 and #d9b880) are all there; later frames differ.
    raw_pixels f/0000.png rgb24 > a.rgb
    raw_pixels f/0009.png rgb24 > b.rgb
    python3 - <<'PY' || fail "frame content"
a = open("a.rgb", "rb").read(); b = open("b.rgb", "rb").read()
px = {tuple(a[i:i + 3]) for i in range(0, len(a), 3)}
for want in [(0x20, 0x20, 0x20), (0x5a, 0x62, 0x73), (0xd9, 0xb8, 0x80)]:
    assert want in px, want
assert a != b
# antialiased: edge pixels between rope and background exist
assert len(px) > 10, len(px)
PY
}

test_rope_transparent_png_has_alpha() {
    rope_scene
    expect_exit 0 "$WOBBLE" render r.yaml --set output.background=transparent -o t_%04d.png --frames 0:1
    [ "$(probe t_0000.png pix_fmt)" = rgba ] || fail "pix_fmt $(probe t_0000.png pix_fmt)"
}

test_rope_deterministic_across_threads() {
    rope_scene
    expect_same_on_threads r.yaml "2 3"
}

test_rope_same_motion_at_any_fps() {
    rope_scene
    # One fixed-step simulation: the state at t = 1 s is the same whether
    # it is frame 10 at 10 fps, 30 at 30 fps or 24 at 24 fps.
    expect_exit 0 "$WOBBLE" render r.yaml -o a.mkv --set output.duration=1.1 --stats s10.csv
    expect_exit 0 "$WOBBLE" render r.yaml -o b.mkv --set output.duration=1.1 --fps 30 --stats s30.csv
    expect_exit 0 "$WOBBLE" render r.yaml -o c.mkv --set output.duration=1.1 --fps 24 --stats s24.csv
    h10=$(grep '^10,' s10.csv | cut -d, -f6)
    h30=$(grep '^30,' s30.csv | cut -d, -f6)
    h24=$(grep '^24,' s24.csv | cut -d, -f6)
    [ -n "$h10" ] && [ "$h10" = "$h30" ] && [ "$h10" = "$h24" ] || fail "hashes $h10 $h30 $h24"
    # --frames fast-forwards to the same state
    expect_exit 0 "$WOBBLE" render r.yaml -o d.mkv --set output.duration=1.1 --frames 10:11 --stats sf.csv
    [ "$(grep '^10,' sf.csv | cut -d, -f6)" = "$h10" ] || fail "--frames disagrees"
}

test_rope_settles_and_stops() {
    cat > still.yaml <<'YAML'
wobble: 1
kind: rope
output: {width: 64, height: 48, fps: 10, duration: 20, until_settled: true}
rope:
  ropes:
    - {from: [2, 0.5], to: [2, 1.5], nodes: 10}
YAML
    expect_exit 0 "$WOBBLE" render still.yaml -o s.mkv --json --stats s.csv
    n=$(count_frames s.mkv)
    [ "$n" -lt 50 ] || fail "a hanging rope did not settle: $n frames"
    tail -1 s.csv | cut -d, -f3 | grep -qx 0 || fail "last frame still moving: $(tail -1 s.csv)"
}

test_rope_info_round_trips() {
    for x in rope-pendulums rope-cut; do
        expect_exit 0 "$WOBBLE" info "$ROOT/examples/$x.yaml"
        cp out a.yaml
        expect_exit 0 "$WOBBLE" info a.yaml
        cmp out a.yaml || fail "$x: info of info differs"
        expect_grep "kind: rope" a.yaml
    done
    expect_grep "cut: {rope: 0, link: 3}" a.yaml
}

test_rope_bad_unknown_key() {
    bad_scene ", colr: \"#ff0000\"" ""
    expect_render_error 5 38 "unknown key 'colr' in 'rope.ropes[0]' (did you mean 'colour'?)"
}

test_rope_bad_nodes_range() {
    bad_scene ", nodes: 1" ""
    expect_render_error 5 45 "'rope.ropes[0].nodes' must be in [2, 2048], found 1"
}

test_rope_bad_pixel_point() {
    bad_scene "" ""
    sed -i 's/to: \[2, 0.5\]/to: [20px, 0.5]/' bad.yaml
    expect_render_error 5 28 "'rope.ropes[0].to' is in metres (rope scenes have no pixel points), found a pixel value"
}

test_rope_bad_path_needs_pin() {
    bad_scene ", pin: end, start_path: [{time: 1, to: [1, 1]}]" ""
    expect_render_error 5 60 "'rope.ropes[0].start_path' moves the start anchor, but pin is 'end'; use pin: start or both"
}

test_rope_bad_obstacle_not_convex() {
    bad_scene "" "  obstacles:
    - points: [[0, 0], [2, 0], [1, 0.2], [1, 2]]"
    expect_render_error 7 32 "'rope.obstacles[0].points' is not convex: it turns the other way at point 2"
}

test_rope_bad_cut_index() {
    bad_scene "" "timeline:
  - {time: 1, cut: {rope: 0, link: 19}}"
    expect_render_error 7 5 "cut at 1 s: rope 0 has links 0..18, not 19"
    bad_scene "" "timeline:
  - {time: 1, cut: {rope: 1, link: 0}}"
    expect_render_error 7 5 "cut at 1 s: no rope 1 (the scene has ropes 0..0)"
    bad_scene "" "timeline:
  - {time: 1, cut: {rope: 0, link: 2}}
  - {time: 2, cut: {rope: 0, link: 2}}"
    expect_render_error 8 5 "cut at 2 s: link 2 of rope 0 is already cut (at line 7)"
}

test_rope_bad_actions_of_other_kinds() {
    bad_scene "" "timeline:
  - {time: 1, grab: {at: [0.5, 0.5]}}"
    expect_render_error 7 15 "unknown key 'grab' in 'timeline[0]' (expected time and one of cut, set, teleport, reset)"
    cat > nope.yaml <<'YAML'
wobble: 1
kind: rope
YAML
    expect_exit 2 "$WOBBLE" render nope.yaml -o n.mkv
    expect_grep "kind rope needs at least one rope in 'rope.ropes'" err
    bad_scene "" "photo: {image: a.png}"
    expect_render_error 6 1 "'photo' is a block of kind photo; this scene is kind rope"
}

test_rope_examples_render() {
    # The examples as a user runs them, shortened and shrunk for speed.
    for x in rope-pendulums rope-cut; do
        expect_exit 0 "$WOBBLE" render "$ROOT/examples/$x.yaml" --size 80x60 --frames 0:8 -o "$x.mp4"
        [ "$(count_frames "$x.mp4")" = 8 ] || fail "$x frames"
    done
}

# A thick rope and its end weight collide as thick as they are drawn: a
# loose white rope 0.4 m wide (8 px at 20 px/m) with a weight dropped flat
# on a grey floor whose top is at y = 2 m (40 px) lies on it, its centre
# 0.2 m above the floor, the weight's disc (radius 0.4 m, the rope's width)
# 0.4 m above.  As points they sank half into the floor.
test_rope_thick_rope_rests_on_the_floor_at_its_width() {
    cat > thick.yaml <<'YAML'
wobble: 1
kind: rope
output: {width: 80, height: 60, fps: 10, duration: 2, background: "#000000"}
rope:
  view: {width: 4, height: 3}
  ropes:
    - {from: [0.6, 1], to: [2.6, 1], nodes: 21, pin: none, end_mass: 9, width: 0.4, colour: "#ffffff"}
  obstacles:
    - {points: [[0, 2], [4, 2], [4, 3], [0, 3]], colour: "#808080"}
YAML
    expect_exit 0 "$WOBBLE" render thick.yaml -q --frames 19:20 -o t-%04d.png
    # the rope's body fills 1.6..2.0 m (32..40 px): white at 1.7 m (34 px)
    set -- $(pixel t-0019.png 30 34)
    [ "$1" -gt 200 ] && [ "$3" -gt 200 ] || fail "no rope above the floor at (30, 34): $*"
    # and the floor is not painted over just below its top (2.05 m, 41 px)
    set -- $(pixel t-0019.png 30 41)
    [ "$1" -gt 100 ] && [ "$1" -lt 160 ] || fail "rope sunk into the floor at (30, 41): $*"
    # the weight at x = 2.6 m (52 px) reaches up to 1.2 m: drawn at 1.35 m (27 px)
    set -- $(pixel t-0019.png 52 27)
    [ "$1" -gt 100 ] || fail "no weight disc above the rope at (52, 27): $*"
}

# An obstacle's corner is described in metres, like every rope point (it
# used to get the photo's "0..1 across the image, or pixels" wording).
test_rope_obstacle_point_error_in_metres() {
    cat > bad.yaml <<'YAML'
wobble: 1
kind: rope
rope:
  ropes:
    - {from: [1, 0.5], to: [3, 0.5]}
  obstacles:
    - points: [[1, 2], [2, "x"], [1.5, 2.5]]
YAML
    expect_render_error 7 28 "'rope.obstacles[0].points' expects a number in metres, found the string \"x\""
}
