# The command line, outputs and inputs as users of ffmpeg-like tools expect.

# --- the command line

test_mistyped_command_gets_a_suggestion() {
    expect_exit 2 "$WOBBLE" rendr x.yaml
    expect_grep "unknown command 'rendr' (did you mean 'render'?)" err
    expect_exit 2 "$WOBBLE" wieghts export orb
    expect_grep "(did you mean 'weights'?)" err
    expect_exit 2 "$WOBBLE" zzzzzz
    ! grep -q "did you mean" err || fail "a suggestion for a word close to nothing"
}

test_mistyped_option_gets_a_suggestion() {
    expect_exit 2 "$WOBBLE" render x.yaml --fsp 30
    expect_grep "render: unrecognized option '--fsp' (did you mean '--fps'?)" err
    expect_grep "Try 'wobble render --help'" err
    expect_exit 2 "$WOBBLE" info --kyes
    expect_grep "(did you mean '--keys'?)" err
    expect_exit 2 "$WOBBLE" render x.yaml --dry-rnu=1
    expect_grep "(did you mean '--dry-run'?)" err
    expect_exit 2 "$WOBBLE" render x.yaml --fps
    expect_grep "render: option '--fps' needs a value" err
}

test_help_names_the_man_page_in_the_source_tree() {
    "$WOBBLE" --help > h
    expect_grep "man ./man/wobble.1" h
    [ -f "$ROOT/man/wobble.1" ] || fail "man/wobble.1 missing"
    if command -v man >/dev/null; then
        (cd "$ROOT" && MANWIDTH=80 man ./man/wobble.1 2>/dev/null | grep -q "wobble") ||
            fail "man ./man/wobble.1 shows nothing"
    fi
}

test_man_synopsis_lists_every_command() {
    sed -n '/^\.SH SYNOPSIS/,/^\.SH DESCRIPTION/p' "$ROOT/man/wobble.1" > syn
    for c in render check presets info testcard weights; do
        grep -q "^\.B wobble $c" syn || fail "$c not in the SYNOPSIS"
    done
}

test_closed_pipe_is_quiet() {
    "$WOBBLE" info --keys 2>err | head -n 2 > out
    [ "$(wc -l < out)" = 2 ] || fail "head saw $(wc -l < out) lines"
    [ ! -s err ] || fail "stderr: $(cat err)"
    # The exit status of wobble itself, not of head.
    { "$WOBBLE" info --keys 2>err2; echo $? > rc; } | head -n 1 > /dev/null
    [ "$(cat rc)" = 0 ] || fail "exit $(cat rc) on a closed pipe"
    [ ! -s err2 ] || fail "stderr: $(cat err2)"
}
