# The fuzzing dictionary keeps up with the scene keys (tests/fuzz/gen_dict.py).

test_fuzz_dictionary_matches_the_loader() {
    command -v python3 >/dev/null || return 0
    python3 "$ROOT/tests/fuzz/gen_dict.py" "$WOBBLE" > dict
    diff dict "$ROOT/tests/fuzz/yaml.dict" ||
        fail "tests/fuzz/yaml.dict is out of date: python3 tests/fuzz/gen_dict.py build/wobble > tests/fuzz/yaml.dict"
}
