#!/bin/sh
# Command-line test runner.  Every tests/cli/t_*.sh file defines shell
# functions named test_*; each runs in its own subshell, inside a fresh
# temporary directory, with these helpers available (tests/cli/lib.sh):
#   $WOBBLE             the binary under test (absolute path)
#   $ROOT               the repository root
#   expect_exit N cmd…  run cmd, fail unless it exits with N
#   fail MSG            fail the current test
# Tests run JOBS at a time (each is one process tree in its own folder); the
# report comes in file order whatever the order they ended in: one block per
# failure, the slowest tests, then "N passed, N failed".
# Usage: tests/cli/run.sh [--jobs N] [PATTERN]
#        (runs the test functions whose "file:function" matches PATTERN)
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
: "${WOBBLE:=$ROOT/build/wobble}"
export ROOT WOBBLE

# One test, by its number in the list: its output, exit code and
# milliseconds go to $CLI_RES/N.out, N.rc and N.ms.
if [ "${1:-}" = --one ]; then
    line=$(sed -n "${2}p" "$CLI_RES/list")
    t=${line%% *}
    f=${line#* }
    tmp=$(mktemp -d)
    t0=$(date +%s%N)
    ( cd "$tmp" && sh -c ". '$ROOT/tests/cli/lib.sh'; . '$f'; set -e; $t" ) >"$CLI_RES/$2.out" 2>&1
    echo $? >"$CLI_RES/$2.rc"
    echo $((($(date +%s%N) - t0) / 1000000)) >"$CLI_RES/$2.ms"
    rm -rf "$tmp"
    exit 0
fi

jobs=1
case "${1:-}" in
--jobs) jobs=$2; shift 2 ;;
--jobs=*) jobs=${1#--jobs=}; shift ;;
esac
case "$jobs" in '' | *[!0-9]* | 0) echo "run.sh: --jobs wants a count, not '$jobs'" >&2; exit 2 ;; esac
pattern=${1:-}

CLI_RES=$(mktemp -d)
export CLI_RES
trap 'rm -rf "$CLI_RES"' EXIT
trap 'exit 130' INT TERM

# The list: "FUNCTION FILE", one line per selected test, in file order.
: >"$CLI_RES/list"
for f in "$ROOT"/tests/cli/t_*.sh; do
    [ -e "$f" ] || continue
    for t in $(sed -n 's/^\(test_[A-Za-z0-9_]*\)[ ]*()[ ]*{*.*/\1/p' "$f"); do
        if [ -n "$pattern" ] && ! echo "$(basename "$f"):$t" | grep -q -- "$pattern"; then continue; fi
        echo "$t $f" >>"$CLI_RES/list"
    done
done
n=$(wc -l <"$CLI_RES/list")

[ "$n" -gt 0 ] && seq 1 "$n" | xargs -P "$jobs" -n 1 sh "$0" --one

pass=0 failn=0 i=0
while IFS= read -r line; do
    i=$((i + 1))
    t=${line%% *}
    f=${line#* }
    rc=$(cat "$CLI_RES/$i.rc" 2>/dev/null || echo 1)
    echo "$(cat "$CLI_RES/$i.ms" 2>/dev/null || echo 0) $(basename "$f"):$t" >>"$CLI_RES/times"
    if [ "$rc" -eq 0 ]; then
        pass=$((pass + 1))
    else
        failn=$((failn + 1))
        echo "FAIL $(basename "$f"):$t"
        sed 's/^/    /' "$CLI_RES/$i.out" 2>/dev/null | tail -n 25
    fi
done <"$CLI_RES/list"
if [ "$n" -gt 0 ]; then
    echo "cli: slowest (seconds):"
    sort -rn "$CLI_RES/times" | head -n 8 | awk '{ printf "  %7.1f  %s\n", $1 / 1000, $2 }'
fi
echo "cli: $pass passed, $failn failed ($jobs at a time)"
[ $failn -eq 0 ]
