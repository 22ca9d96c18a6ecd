# Cloth scene keys checked where a user writes them: the ranges the manual
# gives are the ones the solver takes, and a value outside them is an
# error at its file, line and column (weight, damping and max_stretch used
# to pass the loader and fail later with no place).

qa_cloth_scene() {
    cat > c.yaml <<YAML
wobble: 1
kind: cloth
output: {width: 64, height: 36, fps: 10, duration: 0.2}
cloth:
  $1
  grid: 8
YAML
}

test_cloth_fabric_numbers_out_of_the_solver_range_name_the_place() {
    for kv in "weight: 0.001" "weight: 6" "damping: 0.3" "max_stretch: 0.9"; do
        qa_cloth_scene "$kv"
        expect_exit 2 "$WOBBLE" render c.yaml -q -o c.mkv
        "$WOBBLE" render c.yaml -q -o c.mkv 2>err || true
        head -1 err | grep -q "^c.yaml:5:[0-9]*: error: 'cloth.${kv%%:*}'" ||
            fail "$kv: $(cat err)"
        [ ! -e c.mkv ] || fail "$kv: output written"
    done
    # the ends of the ranges are accepted
    for kv in "weight: 0.005" "weight: 5" "damping: 0.5" "max_stretch: 0" "max_stretch: 1"; do
        qa_cloth_scene "$kv"
        expect_exit 0 "$WOBBLE" render c.yaml -q -o c.mkv
    done
}

# A timeline wind with direction [0, 0, 0] was accepted and then blew
# nothing (the solver drops a wind without a direction); cloth.wind
# refuses it, and so does the event now.
test_cloth_wind_event_without_direction_is_an_error() {
    cat > w.yaml <<'YAML'
wobble: 1
kind: cloth
cloth: {grid: 8}
timeline:
  - {time: 1, wind: {strength: 5, direction: [0, 0, 0]}}
YAML
    expect_exit 2 "$WOBBLE" info w.yaml
    "$WOBBLE" info w.yaml 2>err >/dev/null || true
    grep -q "^w.yaml:5:[0-9]*: error: 'timeline\[0\].wind.direction' must not be" err ||
        fail "$(cat err)"
}

# A wind ramped round to the opposite direction blew at full strength until
# halfway and then flipped at once (the solver normalizes the blended
# direction, so its shrinking length was lost), with a full-strength gust
# straight up at the crossing step: a flag pinned on its left edge jumped
# from 0.6 to 3.6 m/s.  Now the wind dies down and builds up again.
test_cloth_wind_ramp_to_the_opposite_direction_has_no_jolt() {
    cat > r.yaml <<'YAML'
wobble: 1
kind: cloth
output: {width: 64, height: 36, fps: 30, duration: 3.2}
cloth:
  grid: 24
  layout: vertical
  size: [1.2, 0.8]
  centre: [0, 1.6, 0]
  pin: left-edge
  fabric: cotton
  wind: {strength: 8, direction: [0, 0, 1]}
timeline:
  - {time: 1.5, wind: {strength: 8, direction: [0, 0, -1], ramp: 2}}
YAML
    expect_exit 0 "$WOBBLE" render r.yaml -q --stats r.csv -o r.mkv
    awk -F, 'NR > 1 && $2 >= 2.4 && $5 > 2.5 { print "t " $2 ": " $5 " m/s"; bad = 1 }
             END { exit bad }' r.csv || fail "the cloth jolted when the wind turned"
}

# Self-collision skips particles up to two grid steps apart, so a thickness
# of three link lengths or more fights the links: the sheet blew up (a
# thickness of 0.3 m at grid 20 threw particles at 2000 m/s and the cloth
# vanished from the frame).  Refused at the key; just under 3 links renders.
test_cloth_thickness_of_three_links_or_more_is_an_error() {
    qa_cloth_scene "self_collision: true"
    # grid 8 over 1.4 m: links of 0.2 m
    expect_exit 2 "$WOBBLE" render c.yaml -q --set cloth.thickness=0.6 -o c.mkv
    "$WOBBLE" render c.yaml -q --set cloth.thickness=0.6 -o c.mkv 2>err || true
    grep -q "^--set:1:[0-9]*: error: 'cloth.thickness' 0.6 m is 3 links or more" err ||
        fail "$(cat err)"
    [ ! -e c.mkv ] || fail "output written"
    expect_exit 0 "$WOBBLE" render c.yaml -q --set cloth.thickness=0.59 -o c.mkv
}

# A weave with wind_response 0 catches none of the wind, but the wind still
# counted as blowing, so the cloth never settled and --until-settled ran to
# the end (600 frames here instead of 17).  It settles as in still air.
test_cloth_wind_the_weave_does_not_catch_lets_it_settle() {
    cat > z.yaml <<'YAML'
wobble: 1
kind: cloth
output: {width: 64, height: 36, fps: 30, duration: 20}
cloth:
  grid: 10
  centre: [0, 0.3, 0]
  wind_response: 0
  wind: {strength: 5}
YAML
    "$WOBBLE" render z.yaml -q --until-settled --json -o z.mkv > z.json
    grep -q '"settled_at": [0-9]' z.json || fail "never settled: $(cat z.json)"
    grep -q '"frames": [0-9][0-9]*,' z.json && ! grep -q '"frames": 600,' z.json ||
        fail "$(cat z.json)"
}
