# Scene loading through `wobble info`: exit 2, no stdout, and the exact
# "file:line:col: error: message" followed by the source line and a caret.
# The fixtures are tests/scenes/bad/*.yaml (test_scene.c checks the same
# files and messages through the library).

# scene_error NAME LINE COL MESSAGE: `wobble info NAME.yaml` must fail so.
scene_error() {
    cp "$ROOT/tests/scenes/bad/$1.yaml" .
    expect_exit 2 "$WOBBLE" info "$1.yaml"
    [ ! -s out ] || fail "stdout is not empty"
    first=$(sed -n 1p err)
    [ "$first" = "$1.yaml:$2:$3: error: $4" ] ||
        fail "first line of stderr: '$first', expected '$1.yaml:$2:$3: error: $4'"
    src=$(sed -n "$2p" "$1.yaml" | tr -d '\r')
    [ "$(sed -n 2p err)" = "  $src" ] || fail "source line: '$(sed -n 2p err)', expected '  $src'"
    caret=$(printf '  %*s^' $(($3 - 1)) '')
    [ "$(sed -n 3p err)" = "$caret" ] || fail "caret line: '$(sed -n 3p err)', expected '$caret'"
}

test_scene_bad_unknown_top() { scene_error unknown-top 3 1 'unknown key '\''outptu'\'' at the top level (did you mean '\''output'\''?)'; }
test_scene_bad_unknown_prefix() { scene_error unknown-prefix 5 3 'unknown key '\''freq'\'' in '\''photo'\'' (did you mean '\''frequency'\''?)'; }
test_scene_bad_duplicate() { scene_error duplicate 5 3 'duplicate key '\''output.fps'\'' (first given at line 4)'; }
test_scene_bad_fps_range() { scene_error fps-range 3 15 ''\''output.fps'\'' must be in (0, 1000], found 2000'; }
test_scene_bad_quoted_number() { scene_error quoted-number 4 8 ''\''output.fps'\'' expects a number, found the string "30"'; }
test_scene_bad_enum_typo() { scene_error enum-typo 5 15 ''\''photo.integrator'\'' expects euler | exact, found '\''eular'\'' (did you mean '\''euler'\''?)'; }
test_scene_bad_kind_cloth() { scene_error kind-cloth 4 11 "'cloth.fabric' expects chiffon | silk | cotton | wool | denim | leather, found 'slik' (did you mean 'silk'?)"; }
test_scene_bad_version() { scene_error version 1 9 'scene format version 2 is not supported; this build reads version 1'; }
test_scene_bad_missing_image() { scene_error missing-image 3 1 'missing required key '\''image'\'' in '\''photo'\'''; }
test_scene_bad_color_comment() { scene_error color-comment 4 14 ''\''output.background'\'' expects a colour ("#rrggbb", "#rrggbbaa", [r, g, b], [r, g, b, a] or transparent), found nothing (a '\''#'\'' after a space starts a YAML comment: quote the colour)'; }
test_scene_bad_point_x() { scene_error point-x 5 18 ''\''photo.segment.at'\'' x must be in [0, 1], found 1.5'; }
test_scene_bad_mask_segment() { scene_error mask-segment 6 3 ''\''photo.segment'\'' and '\''photo.mask'\'' cannot be used together; give one of them'; }
test_scene_bad_two_actions() { scene_error two-actions 8 5 ''\''timeline[0]'\'' has two actions, '\''release'\'' and '\''pin'\''; give one per event'; }
test_scene_bad_no_time() { scene_error no-time 6 5 'missing required key '\''time'\'' in '\''timeline[0]'\'''; }
test_scene_bad_grab_twice() { scene_error grab-twice 9 5 'grab at 1 s while the grab from line 7 is still held (release it first)'; }
test_scene_bad_release_alone() { scene_error release-alone 7 5 'release at 1 s with no active grab'; }
test_scene_bad_five_pins() { scene_error five-pins 10 15 'pin at 4 s would make 5 pins active; at most 4 at once (unpin one first)'; }
test_scene_bad_unpin_unknown() { scene_error unpin-unknown 7 15 'unpin at 1 s: no active pin is named '\''right'\'''; }
test_scene_bad_path_order() { scene_error path-order 11 18 ''\''timeline[0].grab.path[1].time'\'' must be later than the previous key'\''s time 0.8, found 0.7'; }
test_scene_bad_yaml_unclosed() { scene_error yaml-unclosed 4 6 'invalid YAML: did not find expected '\'','\'' or '\''}'\'' while parsing a flow mapping that started at line 3, column 9'; }
test_scene_bad_yaml_tab() { scene_error yaml-tab 4 1 'invalid YAML: found character that cannot start any token while scanning for the next token (tabs are not allowed for indentation; use spaces)'; }
test_scene_bad_alias() { scene_error alias 4 8 'aliases (*o) are not supported in scene files; write the value out'; }
test_scene_bad_empty() { scene_error empty 1 1 'empty scene: expected a mapping that starts with '\''wobble: 1'\'''; }

test_scene_missing_file() {
    expect_exit 2 "$WOBBLE" info nope.yaml
    [ ! -s out ] || fail "stdout is not empty"
    [ "$(sed -n 1p err)" = "wobble: error: cannot open scene 'nope.yaml': No such file or directory" ] ||
        fail "stderr: $(cat err)"
}

test_scene_set_unknown_key() {
    cp "$ROOT/tests/scenes/good/full.yaml" good.yaml
    cp "$ROOT/examples/photo.png" photo.png  # info reads the inputs
    expect_exit 2 "$WOBBLE" info --set output.widht=3 good.yaml
    [ "$(sed -n 1p err)" = "--set:1:8: error: unknown key 'widht' in 'output' (did you mean 'width'?)" ] ||
        fail "stderr: $(cat err)"
    [ "$(sed -n 2p err)" = "  output.widht=3" ] || fail "source line: $(sed -n 2p err)"
    [ "$(sed -n 3p err)" = "         ^" ] || fail "caret: $(sed -n 3p err)"
}

test_scene_set_bad_value() {
    cp "$ROOT/tests/scenes/good/full.yaml" good.yaml
    cp "$ROOT/examples/photo.png" photo.png  # info reads the inputs
    expect_exit 2 "$WOBBLE" info --set photo.bounce=0.1 good.yaml
    [ "$(sed -n 1p err)" = "--set:1:14: error: 'photo.bounce' must be in [0.16, 1], found 0.1" ] ||
        fail "stderr: $(cat err)"
}

test_scene_info_round_trips() {
    cp "$ROOT/tests/scenes/good/full.yaml" good.yaml
    cp "$ROOT/examples/photo.png" photo.png  # info reads the inputs
    expect_exit 0 "$WOBBLE" info --set photo.preset=jelly --set output.fps=24 good.yaml
    cp out first.yaml
    expect_grep "  fps: 24" first.yaml
    expect_grep "  preset: jelly" first.yaml
    expect_exit 0 "$WOBBLE" info first.yaml
    cmp first.yaml out || fail "printing the printed scene changed it"
}

test_scene_info_json() {
    cp "$ROOT/tests/scenes/good/scene.json" s.json
    mkdir img && cp "$ROOT/examples/photo.png" img/cat.png  # info reads the inputs
    cp "$ROOT/examples/photo-mask.png" img/cat-mask.png
    expect_exit 0 "$WOBBLE" info s.json
    expect_grep "  background: transparent" out
    expect_grep "  integrator: exact" out
}

# The documented order (SPEC §2: options after SCENE) works too.
test_scene_set_after_scene() {
    cp "$ROOT/tests/scenes/good/full.yaml" good.yaml
    cp "$ROOT/examples/photo.png" photo.png  # info reads the inputs
    expect_exit 0 "$WOBBLE" info good.yaml --set output.fps=12
    expect_grep "  fps: 12" out
}

# An override built from an option (--size, --fps, --duration, --seed,
# --until-settled) that cannot apply names the option and points at the
# value in its way, in the scene or in the --set that gave it; the user
# never typed "output.width=…".
test_scene_option_override_blocked_by_a_value() {
    printf 'wobble: 1\nkind: photo\noutput: 5\nphoto: {image: a.png}\n' > s.yaml
    expect_exit 2 "$WOBBLE" render s.yaml --size 64x48 -o x.mp4
    [ "$(sed -n 1p err)" = "s.yaml:3:9: error: 'output' expects a mapping (--size sets 'output.width'), found '5'" ] ||
        fail "stderr: $(cat err)"
    [ "$(sed -n 2p err)" = "  output: 5" ] || fail "source line: $(sed -n 2p err)"
    [ "$(sed -n 3p err)" = "          ^" ] || fail "caret: $(sed -n 3p err)"
    [ ! -e x.mp4 ] || fail "an output file was left"
    printf 'wobble: 1\nkind: photo\noutput: [1]\nphoto: {image: a.png}\n' > l.yaml
    expect_exit 2 "$WOBBLE" check l.yaml --fps 30 --golden g
    [ "$(sed -n 1p err)" = "l.yaml:3:9: error: 'output' expects a mapping (--fps sets 'output.fps'), found a sequence of 1 item" ] ||
        fail "stderr: $(cat err)"
    printf 'wobble: 1\nkind: photo\nphoto: {image: a.png}\n' > p.yaml
    expect_exit 2 "$WOBBLE" render p.yaml --set output=5 --until-settled -o x.mp4
    [ "$(sed -n 1p err)" = "--set:1:8: error: 'output' expects a mapping (--until-settled sets 'output.until_settled'), found '5'" ] ||
        fail "stderr: $(cat err)"
    [ "$(sed -n 2p err)" = "  output=5" ] || fail "source line: $(sed -n 2p err)"
    # a typed --set keeps its own place
    printf 'wobble: 1\nkind: photo\noutput: {fps: 30}\nphoto: {image: a.png}\n' > f.yaml
    expect_exit 2 "$WOBBLE" render f.yaml --set output.fps.x=1 -o x.mp4
    [ "$(sed -n 1p err)" = "--set:1:12: error: 'output.fps' holds a value, not a mapping; cannot set 'output.fps.x'" ] ||
        fail "stderr: $(cat err)"
}
