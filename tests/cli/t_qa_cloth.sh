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
