# The help texts, the man page and the loader's key list never disagree.

help_options() {
    for c in "" render check presets info testcard weights bake export; do
        if [ -z "$c" ]; then "$WOBBLE" --help; else "$WOBBLE" "$c" --help; fi
    done | grep -o -e '--[a-z][a-z-]*' | sort -u
}

man_options() {
    # Options as the man page writes them: \-\-name-with-plain-hyphens, so
    # that a search for the option's own spelling finds it.
    # RENDER FARMS documents the scripts' options (test_farm_man_options_are_the_scripts).
    sed '/^\.SH RENDER FARMS/,/^\.SH /{/^\.SH RENDER FARMS/d;/^\.SH /!d}' "$ROOT/man/wobble.1" |
        grep -o -e '\\-\\-[a-z][a-z-]*' | sed 's/^\\-\\-/--/' | sort -u
}

test_farm_man_options_are_the_scripts() {
    sed -n '/^\.SH RENDER FARMS/,/^\.SH STATE/p' "$ROOT/man/wobble.1" |
        grep -o -e '\\-\\-[a-z][a-z-]*' | sed 's/^\\-\\-/--/' | sort -u > m
    [ -s m ] || fail "no RENDER FARMS section"
    while read -r o; do
        cat "$ROOT/scripts/farm.sh" "$ROOT/scripts/slurm-farm.sh" | grep -q -e "$o" ||
            "$WOBBLE" --help | grep -q -e "$o" || "$WOBBLE" bake --help | grep -q -e "$o" ||
            fail "man RENDER FARMS: $o is in neither script"
    done < m
}

test_every_help_option_is_in_the_man_page() {
    help_options > h
    man_options > m
    missing=$(comm -23 h m)
    [ -z "$missing" ] || fail "in --help but not in man/wobble.1: $missing"
}

test_every_man_option_is_in_a_help() {
    help_options > h
    man_options > m
    extra=$(comm -13 h m)
    [ -z "$extra" ] || fail "in man/wobble.1 but in no --help: $extra"
}

test_man_page_keys_match_the_loader() {
    sh "$ROOT/scripts/man-keys.sh" --check "$WOBBLE" || fail "man page keys out of date"
}

test_man_page_renders_without_warnings() {
    command -v groff >/dev/null || return 0
    groff -t -man -Tutf8 -ww -z "$ROOT/man/wobble.1" 2>warn || true
    [ ! -s warn ] || { cat warn; fail "groff warnings"; }
}

test_exit_codes_documented() {
    for code in 0 1 2 3 4 130; do
        grep -q "^\.B $code\$" "$ROOT/man/wobble.1" || fail "exit code $code not in the man page"
    done
    "$WOBBLE" --help > h
    expect_grep "130 interrupted" h
}
