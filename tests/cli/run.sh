#!/bin/sh
# Command-line test runner.  Every tests/cli/t_*.sh file defines shell
# functions named test_*; each runs in its own subshell, inside a fresh
# temporary directory, with these helpers available (tests/cli/lib.sh):
#   $WOBBLE             the binary under test (absolute path)
#   $ROOT               the repository root
#   expect_exit N cmd…  run cmd, fail unless it exits with N
#   fail MSG            fail the current test
# Prints one line per failure and closes with "N passed, N failed".
# Usage: tests/cli/run.sh [PATTERN]   (runs test functions matching PATTERN)
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
: "${WOBBLE:=$ROOT/build/wobble}"
export ROOT WOBBLE
pattern=${1:-}
pass=0; failn=0; failed=""
for f in "$ROOT"/tests/cli/t_*.sh; do
    [ -e "$f" ] || continue
    tests=$(sed -n 's/^\(test_[A-Za-z0-9_]*\)[ ]*()[ ]*{*.*/\1/p' "$f")
    for t in $tests; do
        if [ -n "$pattern" ] && ! echo "$(basename "$f"):$t" | grep -q -- "$pattern"; then continue; fi
        tmp=$(mktemp -d)
        out=$( cd "$tmp" && sh -c ". '$ROOT/tests/cli/lib.sh'; . '$f'; set -e; $t" 2>&1 )
        rc=$?
        if [ $rc -eq 0 ]; then
            pass=$((pass + 1))
        else
            failn=$((failn + 1))
            failed="$failed $t"
            echo "FAIL $(basename "$f"):$t"
            echo "$out" | sed 's/^/    /' | tail -n 25
        fi
        rm -rf "$tmp"
    done
done
echo "cli: $pass passed, $failn failed"
[ $failn -eq 0 ]
