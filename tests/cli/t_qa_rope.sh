# Rope scenes a user may well write that once went wrong: a rope hung from
# one point (from == to with a length), a taut rope pinned at both ends
# under the chain solver, and anchors pulled further apart than the rope is
# long.

# hang_scene SOLVER: a white 1.5 m rope whose ends both start at (1, 0.5),
# on black, 20 px per metre.
hang_scene() {
    cat > h.yaml <<YAML
wobble: 1
kind: rope
output: {width: 80, height: 60, fps: 10, duration: 2, background: "#000000"}
rope:
  solver: $1
  view: {width: 4, height: 3}
  ropes:
    - {from: [1, 0.5], to: [1, 0.5], length: 1.5, nodes: 20, width: 4px, colour: "#ffffff"}
    - {from: [3, 0.5], to: [3, 0.5], length: 1.6, nodes: 21, pin: both, width: 4px, colour: "#ffffff"}
YAML
}

# The rope hangs straight down its whole length: it used to stay a 10 cm
# accordion (jakobsen) or stand straight up (chain), its links pushed apart
# along one fixed direction that nothing ever tipped over.
test_rope_from_equal_to_hangs_its_length() {
    for solver in jakobsen chain; do
        hang_scene $solver
        expect_exit 0 "$WOBBLE" render h.yaml -q --frames 19:20 -o "$solver-%04d.png"
        # 1.3 m below the start anchor (y = 1.8 m = 36 px), and 0.7 m below
        # the both-pinned rope's (it hangs folded, 0.8 m deep)
        for at in "20 36" "60 26"; do
            set -- $(pixel "$solver-0019.png" $at)
            [ "$1" -gt 128 ] || fail "$solver: no rope at ($at): $*"
        done
        # and nothing above the anchors
        set -- $(pixel "$solver-0019.png" 20 4)
        [ "$1" -lt 32 ] || fail "$solver: rope above the anchor: $*"
    done
}

# A straight taut rope pinned at both ends made the chain system singular
# (its link lengths must add up to the span): NaN at the first step, exit 4.
test_rope_chain_taut_vertical_rope_pinned_at_both_ends() {
    cat > v.yaml <<'YAML'
wobble: 1
kind: rope
output: {width: 80, height: 60, fps: 10, duration: 1}
rope:
  solver: chain
  ropes:
    - {from: [1, 0.5], to: [1, 2.5], nodes: 20, pin: both}
    - {from: [2, 0.5], to: [3.5, 0.5], nodes: 20, pin: both}
YAML
    expect_exit 0 "$WOBBLE" render v.yaml -q -o v.mkv
    expect_exit 0 "$WOBBLE" render v.yaml -q --set rope.gravity=0 -o v0.mkv
}

# Anchors pulled apart past the rope's length: the chain solve answered
# the impossible constraints with huge sideways moves, a zigzag stretched
# to 4-5 times its length; now the rope stays straight, stretched about
# span/length - 1 = 1.0.
test_rope_chain_anchors_pulled_apart_past_the_length() {
    cat > s.yaml <<'YAML'
wobble: 1
kind: rope
output: {width: 80, height: 60, fps: 10, duration: 3}
rope:
  solver: chain
  ropes:
    - from: [1.5, 1]
      to: [2.5, 1]
      nodes: 30
      length: 1.5
      pin: both
      start_path: [{time: 2, to: [0.5, 1]}]
      end_path: [{time: 2, to: [3.5, 1]}]
YAML
    expect_exit 0 "$WOBBLE" render s.yaml -q --stats s.csv -o s.mkv
    awk -F, 'NR > 1 && $4 > 1.1 { print "frame " $1 ": elongation " $4; bad = 1 }
             END { exit bad }' s.csv || fail "the rope zigzagged"
}
