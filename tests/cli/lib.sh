# Helpers for the CLI tests (sourced by tests/cli/run.sh).
fail() { echo "fail: $*" >&2; exit 1; }

# expect_exit N cmd...: run cmd with stdout/stderr captured in ./out and ./err.
expect_exit() {
    want=$1; shift
    set +e
    "$@" >out 2>err
    got=$?
    set -e
    if [ "$got" -ne "$want" ]; then
        echo "command: $*" >&2
        echo "--- stdout"; head -c 2000 out; echo "--- stderr"; head -c 2000 err
        fail "exit $got, expected $want"
    fi
}

# expect_grep PATTERN FILE: fail unless FILE contains the fixed string.
expect_grep() {
    grep -qF -- "$1" "$2" || { echo "--- $2:"; head -c 2000 "$2"; fail "'$1' not in $2"; }
}

# probe FILE ENTRY: one ffprobe stream field of the first video stream.
probe() {
    ffprobe -v error -select_streams v:0 -show_entries "stream=$2" \
        -of default=noprint_wrappers=1:nokey=1 "$1"
}

# count_frames FILE: decoded frame count of the first video stream.
count_frames() {
    ffprobe -v error -select_streams v:0 -count_frames \
        -show_entries stream=nb_read_frames -of default=noprint_wrappers=1:nokey=1 "$1"
}
