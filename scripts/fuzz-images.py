#!/usr/bin/env python3
"""Corrupt pictures fed to wobble as photo.image, photo.mask and jiggle.weights.

Makes small PNG, JPEG, WebP, GIF, BMP and TIFF copies of examples/photo.png
with ffmpeg (plus the example mask and an exported weight map), then each
iteration corrupts one (truncation, bit flips, random bytes, empty file,
huge declared dimensions with valid PNG checksums, a header only), puts it in
a tiny scene in one of the three roles and runs `wobble info` and a short
render.  Flags exits other than 0/2 (info) or 0/2/3 (render), timeouts,
sanitizer output, files left by a failed render and exit-2 messages that
name neither the picture nor the scene.  Distinct findings are saved under
OUT/ as caseN.<ext> and caseN.txt.

Usage:
  python3 scripts/fuzz-images.py [ITERATIONS] [--seed N]
      [--wobble build-asan/wobble] [--out DIR]
"""
import argparse, os, random, re, signal, struct, subprocess, sys, tempfile, zlib, shutil, time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
ap.add_argument("iterations", nargs="?", type=int, default=200)
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("--wobble", default=os.environ.get("WOBBLE", os.path.join(ROOT, "build-asan", "wobble")))
ap.add_argument("--out", default=None)
a = ap.parse_args()
W = os.path.abspath(a.wobble)
N = a.iterations
SEED = a.seed
HERE = tempfile.mkdtemp(prefix="wobble-fuzz-img-")
OUT = a.out or tempfile.mkdtemp(prefix="wobble-fuzz-img-found-")
os.makedirs(OUT, exist_ok=True)
shutil.copy(os.path.join(ROOT, "examples", "photo.png"), HERE)
shutil.copy(os.path.join(ROOT, "examples", "photo-mask.png"), HERE)
for ext in ("png", "jpg", "webp", "gif", "bmp", "tiff"):
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", "photo.png", "-vf", "scale=160:120",
                    "small." + ext], cwd=HERE, check=True)
subprocess.run([W, "weights", "export", "orb", "-o", "w.png"], cwd=HERE, check=True)
BASES = ["photo.png", "small.png", "small.jpg", "small.webp", "small.gif", "small.bmp",
         "small.tiff", "photo-mask.png", "w.png"]
SAN = re.compile(r"AddressSanitizer|LeakSanitizer|runtime error:|SUMMARY: ")

PHOTO = """wobble: 1
kind: photo
output: {width: 64, height: 48, fps: 10, duration: 0.2}
photo: {image: %s, grid: 16, preset: jelly%s}
timeline:
  - time: 0.0
    grab: {at: [0.5, 0.5], path: [{time: 0.1, to: [0.6, 0.4]}]}
"""
JIGGLE = """wobble: 1
kind: jiggle
output: {width: 64, height: 48, fps: 10, duration: 0.2}
jiggle: {view: 3d, shape: orb, weights: %s}
"""


def png_fix_crc(b):
    # recompute every chunk CRC so decoders get past the checksum
    b = bytearray(b)
    p = 8
    while p + 12 <= len(b):
        n = struct.unpack(">I", b[p:p + 4])[0]
        if p + 12 + n > len(b):
            break
        crc = zlib.crc32(bytes(b[p + 4:p + 8 + n])) & 0xffffffff
        b[p + 8 + n:p + 12 + n] = struct.pack(">I", crc)
        p += 12 + n
    return bytes(b)


def huge_dims(r, name, d):
    d = bytearray(d)
    big = r.choice([0, 1, 65535, 65536, 100000, 0x7fffffff, 0xffffffff, 1 << 24])
    if d[:8] == b"\x89PNG\r\n\x1a\n":
        d[16:20] = struct.pack(">I", big if r.random() < 0.5 else struct.unpack(">I", d[16:20])[0])
        d[20:24] = struct.pack(">I", big)
        return png_fix_crc(bytes(d))
    if d[:2] == b"BM":
        d[18:22] = struct.pack("<i", big & 0x7fffffff)
        d[22:26] = struct.pack("<i", r.choice([big & 0x7fffffff, -(big & 0x7fffffff)]))
        return bytes(d)
    if d[:3] == b"GIF":
        d[6:8] = struct.pack("<H", big & 0xffff)
        d[8:10] = struct.pack("<H", big & 0xffff)
        return bytes(d)
    if d[:2] == b"\xff\xd8":
        i = d.find(b"\xff\xc0")
        if i < 0:
            i = d.find(b"\xff\xc2")
        if i > 0:
            d[i + 5:i + 7] = struct.pack(">H", big & 0xffff)
            d[i + 7:i + 9] = struct.pack(">H", big & 0xffff)
        return bytes(d)
    if d[:4] == b"RIFF":
        i = d.find(b"VP8 ")
        if i > 0:
            d[i + 14:i + 16] = struct.pack("<H", big & 0x3fff)
            d[i + 16:i + 18] = struct.pack("<H", big & 0x3fff)
        i = d.find(b"VP8X")
        if i > 0:
            d[i + 12:i + 15] = struct.pack("<I", big)[:3]
            d[i + 15:i + 18] = struct.pack("<I", big)[:3]
        return bytes(d)
    if d[:2] in (b"II", b"MM"):
        # patch ImageWidth (256) / ImageLength (257) in IFD0
        le = d[:2] == b"II"
        e = "<" if le else ">"
        off = struct.unpack(e + "I", d[4:8])[0]
        if off + 2 <= len(d):
            n = struct.unpack(e + "H", d[off:off + 2])[0]
            for k in range(n):
                q = off + 2 + 12 * k
                if q + 12 > len(d):
                    break
                tag, typ = struct.unpack(e + "HH", d[q:q + 4])
                if tag in (256, 257, 278, 273, 279):
                    v = big if typ == 4 else big & 0xffff
                    d[q + 8:q + 12] = struct.pack(e + ("I" if typ == 4 else "H2x"), v)
        return bytes(d)
    return bytes(d)


def mutate(r, name, d):
    k = r.randrange(7)
    if k == 0:
        return "trunc", d[:r.randrange(len(d))]
    if k == 1:
        b = bytearray(d)
        for _ in range(r.choice([1, 2, 5, 20, 100])):
            p = r.randrange(len(b))
            b[p] ^= 1 << r.randrange(8)
        return "flip", bytes(b)
    if k == 2:
        return "empty", b""
    if k == 3:
        return "huge", huge_dims(r, name, d)
    if k == 4:
        b = bytearray(d)
        p = r.randrange(len(b))
        n = r.choice([4, 16, 256])
        b[p:p + n] = bytes(r.randrange(256) for _ in range(n))
        if d[:4] == b"\x89PNG" and r.random() < 0.7:
            return "bytes+crc", png_fix_crc(bytes(b))
        return "bytes", bytes(b)
    if k == 5:
        return "huge+trunc", huge_dims(r, name, d)[: r.randrange(len(d))]
    return "header-only", d[: r.choice([8, 16, 33, 64, 100])]


def run(cmd, cwd):
    p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         start_new_session=True)
    try:
        _, e = p.communicate(timeout=20)
        return p.returncode, e.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        _, e = p.communicate()
        return None, e.decode("utf-8", "replace")


r = random.Random(SEED)
seen = {}
wd = os.path.join(HERE, "wd")
t0 = time.time()
stats = {}
for i in range(N):
    shutil.rmtree(wd, ignore_errors=True)
    os.mkdir(wd)
    base = r.choice(BASES)
    with open(os.path.join(HERE, base), "rb") as f:
        data = f.read()
    how, bad = mutate(r, base, data)
    ext = os.path.splitext(base)[1]
    fn = "bad" + ext
    with open(os.path.join(wd, fn), "wb") as f:
        f.write(bad)
    shutil.copy(os.path.join(HERE, "photo.png"), os.path.join(wd, "photo.png"))
    role = r.choice(["image", "image", "mask", "weights"])
    if role == "image":
        sc = PHOTO % (fn, "")
    elif role == "mask":
        sc = PHOTO % ("photo.png", ", mask: " + fn)
    else:
        sc = JIGGLE % fn
    with open(os.path.join(wd, "s.yaml"), "w") as f:
        f.write(sc)
    out = r.choice(["o.y4m", "o.mkv", "f_%d.png"])
    findings = []
    rc, err = run([W, "info", "s.yaml"], wd)
    if rc not in (0, 2):
        findings.append("info-exit%s" % rc)
    if SAN.search(err):
        findings.append("info-san")
    before = set(os.listdir(wd))
    rc2, err2 = run([W, "render", "s.yaml", "-o", out], wd)
    stats[(role, rc2)] = stats.get((role, rc2), 0) + 1
    if rc2 not in (0, 2, 3):
        findings.append("render-exit%s" % rc2)
    if SAN.search(err2):
        findings.append("render-san")
    if rc2 not in (0, None) and rc2 > 0:
        left = set(os.listdir(wd)) - before
        if left:
            findings.append("leftover")
    if rc2 == 2 and fn not in err2.split("\n")[0] and "s.yaml" not in err2.split("\n")[0]:
        findings.append("noname")
    for fnd in findings:
        m = re.search(r"(ERROR: \w+Sanitizer: [\w-]+|runtime error: [^\n]*)", err + err2)
        first = (err2 or err).split("\n")[0]
        sig = fnd + " " + role + " " + ext + " " + re.sub(r"\d+", "N", m.group(1) if m else first)[:120]
        if sig in seen:
            continue
        seen[sig] = i
        k = len(seen)
        shutil.copy(os.path.join(wd, fn), os.path.join(OUT, "case%d%s" % (k, ext)))
        with open(os.path.join(OUT, "case%d.txt" % k), "w") as f:
            f.write("%s role=%s base=%s how=%s out=%s rc=%s/%s\n%s\n--- info\n%s\n--- render\n%s"
                    % (sig, role, base, how, out, rc, rc2, sc, err[:8000], err2[:8000]))
        print("NEW case%d %s (%s)" % (k, sig, how), flush=True)
    if (i + 1) % 50 == 0:
        print("... %d in %.0f s" % (i + 1, time.time() - t0), flush=True)
shutil.rmtree(wd, ignore_errors=True)
print("%d iterations, seed %d, %.0f s; %d findings in %s" % (N, SEED, time.time() - t0,
      len(seen), OUT))
print("render exits by role: %s" % sorted(stats.items(), key=str))
shutil.rmtree(HERE, ignore_errors=True)
sys.exit(1 if seen else 0)
