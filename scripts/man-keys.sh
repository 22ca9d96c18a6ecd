#!/bin/sh
# Regenerate the scene-key list of man/wobble.1 (between the BEGIN KEYS and
# END KEYS markers) from `wobble info --keys`, the loader's own schema, so
# the manual can never document a key the loader does not read or miss one
# it does.  `--check` only compares (used by the tests).
# Usage: scripts/man-keys.sh [--check] [WOBBLE]
set -eu
check=0
if [ "${1:-}" = "--check" ]; then check=1; shift; fi
root=$(cd "$(dirname "$0")/.." && pwd)
wobble=${1:-$root/build/wobble}
man="$root/man/wobble.1"
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.keys" "$tmp.new"' EXIT

# `info --keys` prints fixed columns; re-read them as tab-separated fields
# from the machine-readable form.
"$wobble" info --keys --tsv | awk -F'\t' '
    NR == 1 { next }
    {
        key = $1; type = $2; def = $3; doc = $4
        gsub(/\\/, "\\e", type); gsub(/\\/, "\\e", doc); gsub(/\\/, "\\e", def)
        gsub(/-/, "\\-", key)
        print ".TP"
        print ".B " key
        line = doc "."
        if (type != "mapping") line = line " Type: " type
        if (def == "required") line = line "; required"
        else if (def != "" && def != "-") line = line "; default " def
        print line
    }' > "$tmp.keys"

awk -v keys="$tmp.keys" '
    /^\.\\" BEGIN KEYS/ { print; while ((getline l < keys) > 0) print l; skip = 1; next }
    /^\.\\" END KEYS/ { skip = 0 }
    !skip { print }' "$man" > "$tmp.new"

if [ $check -eq 1 ]; then
    if ! cmp -s "$man" "$tmp.new"; then
        diff "$man" "$tmp.new" | head -20 >&2
        echo "man/wobble.1 is out of date with 'wobble info --keys': run scripts/man-keys.sh" >&2
        exit 1
    fi
    exit 0
fi
cp "$tmp.new" "$man"
