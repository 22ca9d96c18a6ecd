#!/usr/bin/env python3
"""Write tests/fuzz/yaml.dict: scene keys, enum values and dotted --set
paths from `wobble info --keys --tsv`, then YAML syntax tokens.
Usage: python3 tests/fuzz/gen_dict.py build/wobble > tests/fuzz/yaml.dict"""
import re
import subprocess
import sys

TSV = subprocess.run([sys.argv[1], "info", "--keys", "--tsv"], check=True,
                     capture_output=True, text=True).stdout.splitlines()[1:]
TOKENS = ["wobble: 1", "kind: ", "\\x0a", "\\x0a  ", "- ", "? ", ": ", "{", "}", "[", "]",
          ", ", "\\\"", "'", "#", "---", "...", "|", ">", "|-", ">+", "&a", "*a", "!!str",
          "!!int", "!tag", "%YAML 1.2", "%TAG", "<<", "~", "null", "true", "false", "yes",
          "no", ".inf", "-.inf", ".nan", "0x1F", "0o17", "1e308", "-0", "1e-300",
          "4294967296", "2147483648", "px", "\\x09", "\\xc2\\x85", "\\xe2\\x80\\xa8",
          "\\\\0", "\\\\u0000", "\\x00"]

keys, enums, paths = set(), set(), set()
for line in TSV:
    path, typ = line.split("\t")[:2]
    paths.add(path.replace("[]", ""))
    keys.update(part.replace("[]", "") for part in path.split("."))
    enums.update(e.strip() for e in typ.split("|")
                 if "|" in typ and re.fullmatch(r"[a-z0-9_\-]+", e.strip()))
print("# tests/fuzz/yaml.dict: libFuzzer dictionary for fuzz_scene, written by")
print("# tests/fuzz/gen_dict.py from `wobble info --keys --tsv` (the key tables")
print("# of src/scene/keys_*.c), then YAML syntax; \\x00 separates --set overrides.")
for k in sorted(keys - {""}):
    print(f'"{k}:"')
for e in sorted(enums):
    print(f'"{e}"')
for p in sorted(p for p in paths if "." in p):
    print(f'"{p}="')
for t in TOKENS:
    print(f'"{t}"')
