#!/bin/sh
# Regenerate the preset tables shown in README.md and man/wobble.1 from the
# engine (`wobble presets photo|fabric|rope`), between their BEGIN/END
# PRESETS markers.  The rope table leaves out the microseconds column, which
# is a timing and differs from machine to machine.
# `--check` only compares, and fails when a committed table differs from a
# fresh run (tests/cli/t_presets.sh runs it).
# Usage: scripts/regen-presets.sh [--check] [WOBBLE]
set -eu
check=0
if [ "${1:-}" = "--check" ]; then check=1; shift; fi
root=$(cd "$(dirname "$0")/.." && pwd)
wobble=${1:-$root/build/wobble}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$wobble" presets photo --format csv > "$tmp/photo.csv"
"$wobble" presets fabric --format md > "$tmp/fabric.table"
"$wobble" presets rope --format md --no-timing | sed 's/ | us_per_step |$/ |/; s/|---:|$/|/; s/ | 0\.00 |$/ |/' > "$tmp/rope.table"

# README: a Markdown table.
{
    echo "| preset | frequency (Hz) | bounce ζ | period | oscillations | settles in |"
    echo "|---|---:|---:|---:|---:|---:|"
    tail -n +2 "$tmp/photo.csv" | awk -F, '{ printf "| %s | %s | %s | %s s | %s | %s s |\n", $1, $2, $4, $5, $6, $7 }'
} > "$tmp/readme.table"

# Man page: a tbl table.
{
    echo ".TS"
    echo "l r r r r r."
    printf 'preset\tfrequency\tbounce\tperiod\toscillations\tsettles in\n'
    tail -n +2 "$tmp/photo.csv" | awk -F, '{ printf "%s\t%s Hz\t%s\t%s s\t%s\t%s s\n", $1, $2, $4, $5, $6, $7 }'
    echo ".TE"
} > "$tmp/man.table"

splice() { # FILE BEGIN-REGEX END-REGEX TABLE
    awk -v table="$4" -v b="$2" -v e="$3" '
        $0 ~ b { print; while ((getline l < table) > 0) print l; skip = 1; next }
        $0 ~ e { skip = 0 }
        !skip { print }' "$1" > "$tmp/out"
    if [ $check -eq 1 ]; then
        if ! cmp -s "$1" "$tmp/out"; then
            diff "$1" "$tmp/out" >&2 || true
            echo "$1: preset table differs from the engine: run scripts/regen-presets.sh" >&2
            return 1
        fi
    else
        cp "$tmp/out" "$1"
    fi
}

# The markers are comments: <!-- BEGIN PRESETS photo --> and .\" BEGIN PRESETS.
splice "$root/README.md" 'BEGIN PRESETS photo' 'END PRESETS photo' "$tmp/readme.table"
splice "$root/README.md" 'BEGIN PRESETS fabric' 'END PRESETS fabric' "$tmp/fabric.table"
splice "$root/README.md" 'BEGIN PRESETS rope' 'END PRESETS rope' "$tmp/rope.table"
splice "$root/man/wobble.1" 'BEGIN PRESETS' 'END PRESETS' "$tmp/man.table"
