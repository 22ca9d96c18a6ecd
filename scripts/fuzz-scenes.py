#!/usr/bin/env python3
"""Mutation fuzzer for wobble scene files.

Takes every examples/*.yaml, applies 1-4 random mutations (delete, duplicate
or swap lines; numbers made huge, negative, NaN, inf, 0, -0, 1e308; empty
values, wrong types, deep nesting, very long strings, invalid UTF-8, tabs,
unknown keys, YAML anchors/aliases/tags, truncation at a random byte), then
runs `wobble info SCENE` and a short render of two 64x48 frames, each under a
timeout.  It flags what wobble's robustness contract (SPEC section 6) rules
out:

  exit    info exits other than 0/2, render other than 0/2/3 (4, a diverged
          simulation, is reported separately as "diverged": it is allowed,
          but a scene that validation should have refused shows up there)
  signal  killed by a signal (crash, abort)
  timeout no exit within --timeout seconds
  sanitizer  ASan/UBSan/LSan output on stderr
  noloc   exit 2 whose first stderr line has no SCENE:LINE:COL (scene parse or
          validation errors must name the place); errors that name another
          file (an image, an output) or a binary scene are listed apart as
          "noloc-other", errors placed in the render's own --size override
          (--set:1:N) as "setloc"; neither counts as a finding for the exit
          status
  nocaret a SCENE:LINE:COL error without the source line and caret under it
  leftover an output file (or a temporary) left behind by a run that exited
          non-zero

Every distinct finding (its kind and the first stderr line with numbers
blanked) is saved once under OUT/ as case-N.yaml plus case-N.txt (the
command, the exit and stderr).  Same seed and iteration count, same cases.

Usage:
  python3 scripts/fuzz-scenes.py [ITERATIONS] [--seed N] [--jobs 2]
      [--wobble build-asan/wobble] [--timeout 10] [--out DIR]
"""

import argparse
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))

NUMBERS = [b"1e308", b"-1e308", b"1e309", b"-1e309", b".nan", b"NaN", b"nan",
           b".inf", b"-.inf", b"inf", b"-inf", b"0", b"-0", b"0.0", b"-0.0",
           b"-1", b"-1000000", b"1000000", b"2147483647", b"2147483648",
           b"-2147483649", b"9223372036854775807", b"18446744073709551616",
           b"4294967296", b"1e-308", b"5e-324", b"1e-400", b"0x10", b"0o17",
           b"1_000", b"+1", b"1.", b".5", b"1e", b"--1", b"0.0000001",
           b"65536", b"100000", b"1e9", b"-1e-9"]
VALUES = [b"", b'""', b"''", b"~", b"null", b"[]", b"{}", b"[1, 2]",
          b"[1, 2, 3, 4, 5]", b"[[1, 2], [3, 4]]", b"{a: 1}", b"true", b"no",
          b"abc", b'"1.5"', b"[0.5]", b"[0.5, .nan]", b"[.inf, 0]",
          b"[1e308, -1e308]", b"[480px, 374px]", b"[-5px, 1e9px]", b"12px",
          b"px", b"1e308px", b"[0.5, 0.5, 0.5]", b"#ff", b'"#zzzzzz"',
          b'"#ff000080"', b"/dev/null", b"/dev/zero", b"/", b"missing.png",
          b"photo-mask.png", b"photo.png", b"scene.yaml", b"..",
          b"[{}]", b"[{time: 0}]", b"[{time: -1, to: [0, 0]}]",
          b"{time: .nan}", b"!!binary aGVsbG8=", b"!!int 3", b"!!str 3",
          b"!foo bar", b"&a 1", b"*a", b"*undefined", b"|\n  text",
          b">\n  folded", b"? complex", b"- item", b"'unterminated",
          b'"unterminated', b"[unclosed", b"{unclosed", b"\\x00",
          b"\"\\u0000\"", b"\"\\ud800\"", b"-", b":", b"%", b"@", b"`"]
KEYS = [b"bogus", b"wobble", b"kind", b"output", b"width", b"height", b"fps",
        b"duration", b"photo", b"image", b"mask", b"grid", b"preset",
        b"timeline", b"time", b"grab", b"release", b"at", b"path", b"to",
        b"ease", b"jiggle", b"weights", b"rope", b"ropes", b"cloth", b"seed",
        b"view", b"shape", b"drive", b"camera", b"pins", b"nodes", b"points",
        b"background", b"fabric", b"solver", b"substeps", b"iterations",
        b"\xc3\xa9t\xc3\xa9", b"<<", b"", b"?"]
BAD_UTF8 = [b"\xff", b"\xfe\xff", b"\xc3", b"\xc3\x28", b"\xed\xa0\x80",
            b"\xf4\x90\x80\x80", b"\xc0\xaf", b"\x80", b"\x00", b"\xef\xbb\xbf",
            b"\x1b[31m", b"\r", b"\x7f", b"\xe2\x80\xa8"]
NUM_RE = re.compile(rb"(?<![A-Za-z_#%.\d])[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
VAL_RE = re.compile(rb"^(\s*-?\s*[A-Za-z_][A-Za-z_0-9]*:)(\s*)(.*)$")
FLOWVAL_RE = re.compile(rb"([A-Za-z_][A-Za-z_0-9]*:\s*)([^,{}\[\]]+|\[[^\[\]]*\])")


def lines_of(data):
    return data.split(b"\n")


def m_delete(r, d):
    ls = lines_of(d)
    if len(ls) > 1:
        del ls[r.randrange(len(ls))]
    return b"\n".join(ls)


def m_duplicate(r, d):
    ls = lines_of(d)
    i = r.randrange(len(ls))
    ls.insert(i, ls[i])
    return b"\n".join(ls)


def m_swap(r, d):
    ls = lines_of(d)
    i, j = r.randrange(len(ls)), r.randrange(len(ls))
    ls[i], ls[j] = ls[j], ls[i]
    return b"\n".join(ls)


def m_number(r, d):
    ms = list(NUM_RE.finditer(d))
    if not ms:
        return d
    m = r.choice(ms)
    return d[:m.start()] + r.choice(NUMBERS) + d[m.end():]


def m_numbers_all_on_line(r, d):
    ls = lines_of(d)
    i = r.randrange(len(ls))
    v = r.choice(NUMBERS)
    ls[i] = NUM_RE.sub(lambda _m: v, ls[i])
    return b"\n".join(ls)


def m_value(r, d):
    ls = lines_of(d)
    cand = [i for i, l in enumerate(ls) if VAL_RE.match(l) or FLOWVAL_RE.search(l)]
    if not cand:
        return d
    i = r.choice(cand)
    v = r.choice(VALUES)
    m = VAL_RE.match(ls[i])
    if m and (r.random() < 0.5 or not FLOWVAL_RE.search(ls[i])):
        ls[i] = m.group(1) + b" " + v
    else:
        ms = list(FLOWVAL_RE.finditer(ls[i]))
        m2 = r.choice(ms)
        ls[i] = ls[i][:m2.start(2)] + v + ls[i][m2.end(2):]
    return b"\n".join(ls)


def m_nesting(r, d):
    depth = r.choice([50, 500, 5000, 100000])
    if r.random() < 0.5:
        v = b"[" * depth + b"1" + b"]" * depth
    else:
        v = b"{a: " * depth + b"1" + b"}" * depth
    if r.random() < 0.3:  # unbalanced
        v = v[: len(v) // 2 + r.randrange(3)]
    return m_value_with(r, d, v)


def m_value_with(r, d, v):
    ls = lines_of(d)
    cand = [i for i, l in enumerate(ls) if VAL_RE.match(l)]
    if not cand:
        return d + b"\nbogus: " + v
    i = r.choice(cand)
    ls[i] = VAL_RE.match(ls[i]).group(1) + b" " + v
    return b"\n".join(ls)


def m_long(r, d):
    n = r.choice([300, 5000, 70000, 1000000])
    c = r.choice([b"x", b"1", b"\xc3\xa9", b" ", b"/"])
    v = c * n
    if r.random() < 0.3:
        v = b'"' + v + b'"'
    if r.random() < 0.3:  # a long key
        ls = lines_of(d)
        i = r.randrange(len(ls))
        ls.insert(i, b"  " + v + b": 1")
        return b"\n".join(ls)
    return m_value_with(r, d, v)


def m_badutf8(r, d):
    p = r.randrange(len(d) + 1)
    return d[:p] + r.choice(BAD_UTF8) + d[p:]


def m_tabs(r, d):
    ls = lines_of(d)
    i = r.randrange(len(ls))
    l = ls[i]
    s = len(l) - len(l.lstrip(b" "))
    if s and r.random() < 0.6:
        ls[i] = b"\t" * max(1, s // 2) + l[s:]
    else:
        p = r.randrange(len(l) + 1)
        ls[i] = l[:p] + b"\t" + l[p:]
    return b"\n".join(ls)


def m_unknown_key(r, d):
    ls = lines_of(d)
    i = r.randrange(len(ls))
    l = ls[i]
    ind = l[: len(l) - len(l.lstrip(b" "))]
    k = r.choice(KEYS)
    v = r.choice(VALUES + NUMBERS)
    ls.insert(i, ind + k + b": " + v)
    return b"\n".join(ls)


def m_truncate(r, d):
    return d[: r.randrange(len(d) + 1)]


def m_yaml_special(r, d):
    specials = [b"---", b"...", b"%YAML 1.1", b"%YAML 2.0", b"%TAG ! tag:x,2000:",
                b"--- !!map", b"--- []", b"--- 1", b"&anchor", b"*anchor",
                b"<<: *anchor", b"!!set", b"? [a, b]\n: 1", b"\x00", b"#",
                b"- - - -", b"key: &x [*x]"]
    ls = lines_of(d)
    i = r.randrange(len(ls) + 1)
    ls.insert(i, r.choice(specials))
    return b"\n".join(ls)


def m_alias_bomb(r, d):
    bomb = [b"a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for k in range(1, 9):
        bomb.append(b"a%d: &a%d [" % (k, k) + b", ".join([b"*a%d" % (k - 1)] * 10) + b"]")
    if r.random() < 0.5:
        return b"\n".join(bomb) + b"\n" + d
    # use the alias as a real value
    return b"\n".join(bomb[:4]) + b"\n" + m_value_with(r, d, b"*a3")


def m_duplicate_key_block(r, d):
    ls = lines_of(d)
    i = r.randrange(len(ls))
    j = min(len(ls), i + r.randrange(1, 6))
    return b"\n".join(ls[:j] + ls[i:j] + ls[j:])


def m_list_len(r, d):
    ms = list(re.finditer(rb"\[([^\[\]]*)\]", d))
    if not ms:
        return d
    m = r.choice(ms)
    items = [x for x in m.group(1).split(b",")]
    op = r.randrange(3)
    if op == 0 and items:
        items = items[:-1]
    elif op == 1:
        items = items + items
    else:
        items = []
    return d[:m.start()] + b"[" + b",".join(items) + b"]" + d[m.end():]


def m_bitflip(r, d):
    if not d:
        return d
    b = bytearray(d)
    p = r.randrange(len(b))
    b[p] ^= 1 << r.randrange(8)
    return bytes(b)


def m_crlf(r, d):
    return d.replace(b"\n", b"\r\n")


def m_kind(r, d):
    kinds = [b"photo", b"jiggle", b"rope", b"cloth", b"bogus", b"", b"[photo]"]
    return re.sub(rb"(?m)^kind:.*$", b"kind: " + r.choice(kinds), d, count=1)


MUTATORS = [
    (m_delete, 6), (m_duplicate, 4), (m_swap, 3), (m_number, 12),
    (m_numbers_all_on_line, 4), (m_value, 12), (m_nesting, 2), (m_long, 2),
    (m_badutf8, 3), (m_tabs, 3), (m_unknown_key, 5), (m_truncate, 3),
    (m_yaml_special, 3), (m_alias_bomb, 1), (m_duplicate_key_block, 3),
    (m_list_len, 5), (m_bitflip, 3), (m_crlf, 1), (m_kind, 2),
]


def mutate(r, data):
    names = []
    for _ in range(r.choice([1, 1, 1, 2, 2, 3])):
        f = r.choices([m for m, _ in MUTATORS], [w for _, w in MUTATORS])[0]
        data = f(r, data)
        names.append(f.__name__[2:])
    return data, names


SAN_RE = re.compile(r"AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|"
                    r"runtime error:|SUMMARY: |MemorySanitizer|ThreadSanitizer")
LOC_RE = re.compile(r"^scene\.yaml:\d+:\d+: error: ")
SET_RE = re.compile(r"^--set:\d+:\d+: error: ")
OTHER_FILE_RE = re.compile(r"cannot (read|write|open|decode)|image|'[^']*\.(png|jpg|webp)'|"
                           r"is not a text file")


def run(cmd, cwd, timeout):
    p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, start_new_session=True)
    try:
        _, err = p.communicate(timeout=timeout)
        return p.returncode, err.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        _, err = p.communicate()
        return None, err.decode("utf-8", "replace")


def classify(which, rc, err, allowed, files_after, files_before, cwd):
    out = []
    first = err.split("\n", 1)[0]
    if rc is None:
        out.append("timeout")
    elif rc < 0:
        out.append("signal%d" % -rc)
    elif rc == 4:
        out.append("diverged")
    elif rc not in allowed:
        out.append("exit%d" % rc)
    if SAN_RE.search(err):
        out.append("sanitizer")
    if rc == 2:
        if SET_RE.match(first):
            # the render's --size is an override: a scene whose output is not
            # a mapping is reported at it (listed, not counted as a defect)
            out.append("setloc")
        elif not LOC_RE.match(first):
            out.append("noloc-other" if OTHER_FILE_RE.search(first) else "noloc")
        else:
            ls = err.split("\n")
            if len(ls) < 3 or "^" not in ls[2]:
                out.append("nocaret")
    if rc not in (0, None) and rc >= 0:
        new = sorted(set(files_after) - set(files_before))
        if new:
            out.append("leftover")
    return [(which + ":" + k) for k in out]


def signature(kind, err):
    first = err.split("\n", 1)[0]
    if "sanitizer" in kind:
        m = re.search(r"(ERROR: \w+Sanitizer: [\w-]+|runtime error: [^\n]*|"
                      r"SUMMARY: [^\n]*)", err)
        first = m.group(1) if m else first
        # the first frame inside wobble's own sources
        m = re.search(r"in (\w+) \S*src/(\S+):\d+", err)
        if m:
            first += " @ " + m.group(1) + " " + m.group(2)
    first = re.sub(r"\d+", "N", first)
    first = re.sub(r"'[^']*'", "'S'", first)
    return kind + " | " + first[:160]


def one_case(i, seed, examples, assets, wobble, timeout, workroot):
    r = random.Random("%d-%d" % (seed, i))
    src = r.choice(examples)
    with open(src, "rb") as f:
        data = f.read()
    data, names = mutate(r, data)
    wd = os.path.join(workroot, "w%d" % i)
    os.mkdir(wd)
    for a in assets:
        os.symlink(a, os.path.join(wd, os.path.basename(a)))
    with open(os.path.join(wd, "scene.yaml"), "wb") as f:
        f.write(data)
    outs = r.choice([["-o", "out.y4m"], ["-o", "out.y4m"], ["-o", "f_%03d.png"],
                     ["-o", "out.mkv"], ["-o", "out.gif"], ["-o", "sub/f_%d.png"]])
    findings = []
    t0 = time.time()
    before = os.listdir(wd)
    rc, err = run([wobble, "info", "scene.yaml"], wd, timeout)
    for k in classify("info", rc, err, (0, 2), os.listdir(wd), before, wd):
        findings.append((k, ["info", "scene.yaml"], rc, err))
    before = os.listdir(wd)
    rargs = ["render", "scene.yaml", "--frames", "0:2", "--size", "64x48"] + outs
    rc2, err2 = run([wobble] + rargs, wd, timeout)
    for k in classify("render", rc2, err2, (0, 2, 3), os.listdir(wd), before, wd):
        findings.append((k, rargs, rc2, err2))
    dt = time.time() - t0
    res = {"i": i, "src": os.path.basename(src), "muts": names, "data": data,
           "findings": findings, "rc": (rc, rc2), "dt": dt}
    shutil.rmtree(wd, ignore_errors=True)
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("iterations", nargs="?", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--wobble", default=os.environ.get("WOBBLE",
                                                       os.path.join(ROOT, "build-asan", "wobble")))
    ap.add_argument("--timeout", type=float, default=10)
    ap.add_argument("--out", default=None, help="where findings go (default: a new temp dir)")
    ap.add_argument("--start", type=int, default=0, help="first iteration number")
    a = ap.parse_args()
    wobble = os.path.abspath(a.wobble)
    if not os.access(wobble, os.X_OK):
        sys.exit("fuzz-scenes: no executable wobble at %s (--wobble)" % wobble)
    out = a.out or tempfile.mkdtemp(prefix="wobble-fuzz-")
    os.makedirs(out, exist_ok=True)
    exdir = os.path.join(ROOT, "examples")
    examples = sorted(os.path.join(exdir, f) for f in os.listdir(exdir) if f.endswith(".yaml"))
    assets = sorted(os.path.join(exdir, f) for f in os.listdir(exdir) if not f.endswith(".yaml"))
    workroot = tempfile.mkdtemp(prefix="wobble-fuzz-work-")
    os.environ.setdefault("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=0")
    os.environ.setdefault("UBSAN_OPTIONS", "print_stacktrace=1")
    seen = {}
    counts = {}
    exits = {}
    t0 = time.time()
    n = 0
    try:
        with ThreadPoolExecutor(max_workers=a.jobs) as ex:
            futs = [ex.submit(one_case, i, a.seed, examples, assets, wobble, a.timeout, workroot)
                    for i in range(a.start, a.start + a.iterations)]
            for fu in futs:
                res = fu.result()
                n += 1
                exits[res["rc"]] = exits.get(res["rc"], 0) + 1
                for kind, cmd, rc, err in res["findings"]:
                    counts[kind] = counts.get(kind, 0) + 1
                    sig = signature(kind, err)
                    if sig in seen:
                        seen[sig][1] += 1
                        continue
                    k = len(seen)
                    seen[sig] = [k, 1]
                    with open(os.path.join(out, "case-%d.yaml" % k), "wb") as f:
                        f.write(res["data"])
                    with open(os.path.join(out, "case-%d.txt" % k), "w") as f:
                        f.write("iteration %d (seed %d) from %s, mutations %s\n"
                                % (res["i"], a.seed, res["src"], " ".join(res["muts"])))
                        f.write("command: wobble %s  (scene.yaml = case-%d.yaml)\n"
                                % (" ".join(cmd), k))
                        f.write("finding: %s, exit %s\n--- stderr\n%s" % (kind, rc, err[:20000]))
                    print("NEW %-22s case-%d  %s" % (kind, k, sig), flush=True)
                if n % 100 == 0:
                    print("... %d iterations, %.0f s" % (n, time.time() - t0), flush=True)
    finally:
        shutil.rmtree(workroot, ignore_errors=True)
    dt = time.time() - t0
    print("\n%d iterations (seed %d, from %d) in %.0f s; findings in %s"
          % (n, a.seed, a.start, dt, out))
    print("exit codes (info, render): " +
          ", ".join("%s:%d" % (k, v) for k, v in sorted(exits.items(), key=lambda kv: -kv[1])))
    for kind, c in sorted(counts.items()):
        print("  %-24s %d" % (kind, c))
    for sig, (k, c) in sorted(seen.items(), key=lambda kv: kv[1][0]):
        print("  case-%-4d x%-5d %s" % (k, c, sig))
    bad = [s for s in seen if not s.split(" |")[0].endswith(("diverged", "noloc-other", "setloc"))]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
