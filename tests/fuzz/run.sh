#!/bin/sh
# Run the libFuzzer harnesses built by `make fuzz` / `make fuzz-smoke`.
#
#   sh tests/fuzz/run.sh [--seconds N] [--jobs N] --build DIR
#                        [--cov-build DIR] [HARNESS...]
#
# Each harness first replays its crash inputs in tests/fuzz/regress/NAME/
# (every past finding stays fixed), then fuzzes for N seconds, JOBS harnesses
# at a time, starting from its seeds (tests/fuzz/corpus/NAME, read only) and
# growing a corpus in DIR/fuzz-corpus/NAME.  Logs and any crash, leak, OOM or
# timeout input land in DIR/fuzz-out/ (an earlier run's in fuzz-out/earlier/).
# At the end: a table of executions per harness and, with --cov-build, the
# loaders' line coverage reached by the corpus (llvm-profdata/llvm-cov).
# Exit 1 when anything was found.
set -u
cd "$(dirname "$0")/../.."

seconds=1800 jobs=2 build=build-fuzz cov=""
while [ $# -gt 0 ]; do
    case "$1" in
    --seconds) seconds=$2; shift ;;
    --jobs) jobs=$2; shift ;;
    --build) build=$2; shift ;;
    --cov-build) cov=$2; shift ;;
    -*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
    esac
    shift
done
names=${*:-$(for b in "$build"/fuzz/fuzz_*; do basename "$b" | sed 's/^fuzz_//'; done)}
out=$build/fuzz-out
mkdir -p "$out"

# Per-harness options: the dictionary and the largest input worth trying
# (scenes are a page or two; the pictures are seeds of a few hundred bytes;
# the state seeds are small bakes of a few KB to a few tens of KB).
# Memory: 2 GB of RSS, and no single allocation over 1 GB (issue #26's bound
# for anything the defaults accept).
opts_for() {
    case "$1" in
    scene) echo "-dict=tests/fuzz/yaml.dict -max_len=8192" ;;
    exif) echo "-dict=tests/fuzz/image.dict -max_len=4096" ;;
    state) echo "-dict=tests/fuzz/state.dict -max_len=32768" ;;
    *) echo "-dict=tests/fuzz/image.dict -max_len=16384" ;;
    esac
}
common="-timeout=60 -rss_limit_mb=2048 -malloc_limit_mb=1024 -print_final_stats=1"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

fail=0

# Replay: the files of regress/NAME, run once each (a crash exits non-zero).
for n in $names; do
    bin=$build/fuzz/fuzz_$n
    [ -x "$bin" ] || { echo "run.sh: no $bin (build it with make fuzz)" >&2; exit 2; }
    set -- tests/fuzz/regress/"$n"/*
    [ -e "$1" ] || continue
    # shellcheck disable=SC2046
    if "$bin" $(opts_for "$n") $common "$@" >"$out/$n.regress.log" 2>&1; then
        echo "fuzz: $n: $# regression input(s) pass"
    else
        echo "fuzz: $n: a regression input fails, see $out/$n.regress.log"
        fail=1
    fi
done

# Fuzz: NAME's log in out/NAME.log, JOBS at a time.
run_one() {
    n=$1
    mkdir -p "$build/fuzz-corpus/$n" "$out/earlier"
    # A past run's findings move aside, so the table counts this run's only.
    for a in "$out/$n"-*; do [ -e "$a" ] && mv "$a" "$out/earlier/"; done
    # shellcheck disable=SC2046
    "$build/fuzz/fuzz_$n" $(opts_for "$n") $common -max_total_time="$seconds" \
        -artifact_prefix="$out/$n-" "$build/fuzz-corpus/$n" "tests/fuzz/corpus/$n" \
        >"$out/$n.log" 2>&1
    echo $? >"$out/$n.rc"
}
echo "fuzz: $(echo "$names" | wc -w) harness(es), ${seconds}s each, $jobs at a time"
running=0
for n in $names; do
    rm -f "$out/$n.rc"
    run_one "$n" &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
        wait
        running=0
    fi
done
wait

stat() { sed -n "s/^stat::$2: *//p" "$out/$1.log" | tail -1; }
printf '%-9s %12s %9s %8s %6s  %s\n' harness executions exec/s corpus rss_mb result
for n in $names; do
    rc=$(cat "$out/$n.rc" 2>/dev/null || echo 1)
    found=$(ls "$out/$n"-* 2>/dev/null | grep -c -e '-crash-' -e '-leak-' -e '-oom-' -e '-timeout-' -e '-slow-unit-')
    if [ "$rc" = 0 ] && [ "$found" = 0 ]; then result=ok; else result="FOUND (rc $rc, see $out/$n.log)"; fail=1; fi
    printf '%-9s %12s %9s %8s %6s  %s\n' "$n" "$(stat "$n" number_of_executed_units)" \
        "$(stat "$n" average_exec_per_sec)" "$(ls "$build/fuzz-corpus/$n" | wc -l)" \
        "$(stat "$n" peak_rss_mb)" "$result"
done

# Coverage: replay the whole corpus (seeds and what fuzzing added) through
# the coverage build and report the loaders' lines.
if [ -n "$cov" ]; then
    prof=$cov/fuzz-prof
    rm -rf "$prof"
    mkdir -p "$prof"
    objs=""
    first=""
    for n in $names; do
        LLVM_PROFILE_FILE="$prof/$n.profraw" "$cov/fuzz/fuzz_$n" $(opts_for "$n") -runs=0 \
            "$build/fuzz-corpus/$n" "tests/fuzz/corpus/$n" >"$prof/$n.log" 2>&1
        if [ -z "$first" ]; then first=$cov/fuzz/fuzz_$n; else objs="$objs -object=$cov/fuzz/fuzz_$n"; fi
    done
    llvm-profdata merge -sparse "$prof"/*.profraw -o "$prof/all.profdata" || exit 1
    echo "fuzz: line coverage by the corpus (png.c and weightmap.c also hold"
    echo "      the writers and the painting, which no loader reaches)"
    printf '  %-22s %7s %7s %8s\n' file lines missed covered
    # shellcheck disable=SC2086
    llvm-cov report -instr-profile="$prof/all.profdata" "$first" $objs \
        src/scene/*.c src/io/image_load.c src/io/png.c src/sim/weightmap.c src/core/error.c \
        src/io/state.c src/run/snapshot.c |
        awk '$1 ~ /\.c$/ || $1 == "TOTAL" { printf "  %-22s %7s %7s %8s\n", $1, $8, $9, $10 }'
fi
exit $fail
