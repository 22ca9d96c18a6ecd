# State files: wobble bake, render --state, render --resume.

test_bake_format_and_options() {
    photo_scene s.yaml 2
    expect_exit 0 "$WOBBLE" bake s.yaml -o s.state --json
    expect_grep '"frames": 20, "every": 20, "snapshots": 1' out
    expect_exit 0 "$WOBBLE" bake s.yaml -o s.state --every 3 --json
    expect_grep '"every": 3, "snapshots": 7' out
    [ "$(head -c 7 s.state)" = WBSTATE ] || fail "no WBSTATE header"
    [ "$(tail -c 4 s.state)" = WEND ] || fail "no WEND trailer"
    ls -a | grep -q '\.tmp$' && fail "temporary file left behind"
    expect_exit 2 "$WOBBLE" bake s.yaml
    expect_grep "missing -o STATE" err
    expect_exit 2 "$WOBBLE" bake s.yaml -o x.state --frames 0:3
    expect_exit 2 "$WOBBLE" bake s.yaml -o s.yaml
    expect_grep "input of the scene" err
    [ ! -e x.state ] || fail "state written after an error"
    true
}
