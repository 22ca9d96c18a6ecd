#!/bin/sh
# check-layers.sh — includes in src/ go one way only.
#
#   core                      the bottom: includes only core/
#   scene, sim, io            core/ and their own folder
#   render                    sim/, core/ and render/
#   run                       core/ scene/ sim/ io/ render/ and run/
#   cli                       everything below it (through run/ where it can)
#   src/main.c                on top: anything
#
# Every `#include "folder/file.h"` in a .c or .h under src/ is checked
# against its own folder's row; an include without a folder is the file's
# own folder.  Prints each offending `file:line -> folder/` and exits 1 if
# there is any; a folder in no row is an error too.
# Usage: sh scripts/check-layers.sh [SRC_DIR]   (default: src)

root=${1:-src}

allowed() {
    case $1 in
    core) echo "core" ;;
    scene) echo "core scene" ;;
    sim) echo "core sim" ;;
    io) echo "core io" ;;
    render) echo "core sim render" ;;
    run) echo "core scene sim io render run" ;;
    cli) echo "core scene sim io render run cli" ;;
    *) return 1 ;;
    esac
}

if [ ! -d "$root" ]; then
    echo "check-layers: no folder '$root'" >&2
    exit 2
fi

bad=$(find "$root" -name '*.[ch]' | LC_ALL=C sort | while IFS= read -r f; do
    rel=${f#"$root"/}
    case $rel in
    */*) layer=${rel%%/*} ;;
    *) continue ;;          # src/main.c and its like sit on top
    esac
    if ! ok=$(allowed "$layer"); then
        echo "$f: folder $layer/ is in no layer (add it to scripts/check-layers.sh)"
        continue
    fi
    awk -v f="$f" -v ok=" $ok " '
        /^[ \t]*#[ \t]*include[ \t]*"/ {
            s = $0
            sub(/^[^"]*"/, "", s)
            sub(/".*/, "", s)
            i = index(s, "/")
            if (i > 1) {
                t = substr(s, 1, i - 1)
                if (index(ok, " " t " ") == 0)
                    print f ":" FNR " -> " t "/"
            }
        }' "$f"
done)

if [ -n "$bad" ]; then
    printf '%s\n' "$bad"
    n=$(printf '%s\n' "$bad" | wc -l | tr -d ' ')
    echo "check-layers: $n problem(s) against the layers (core < scene, sim, io < render < run < cli < main.c)" >&2
    exit 1
fi
echo "check-layers: every include in $root/ goes down the layers"
