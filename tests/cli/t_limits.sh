# Limits on what an input may cost (issue 26): timeline events, nesting,
# pictures of every format refused from what they state before decoding,
# and a huge frame that answers a signal while it is being drawn.

# lim_first_err TEXT: the first line of ./err starts with TEXT.
lim_first_err() {
    _first=$(sed -n 1p err)
    case "$_first" in
    "$1"*) ;;
    *) fail "first line of stderr: '$_first', expected it to start with '$1'" ;;
    esac
}

# A scene may list any number of events; every step walks them, so a
# generated timeline of millions is refused up front with the option that
# raises the limit.  (The sort of the timeline is O(n log n), so loading
# such a file costs no more than reading it.)
test_limits_timeline_events() {
    python3 - <<'PY'
with open("j.yaml", "w") as f:
    f.write("wobble: 1\nkind: jiggle\noutput: {width: 64, height: 48, fps: 10, duration: 0.2}\n")
    f.write("jiggle: {view: 1d}\ntimeline:\n")
    for i in range(100001):
        f.write("  - {time: %.5f, shake: {}}\n" % ((100001 - i) * 1e-5))  # last first
PY
    expect_exit 2 "$WOBBLE" render j.yaml -o j.mkv
    lim_first_err "j.yaml: error: 'timeline' holds 100001 events, over the limit of 100000 (--max-events raises it)"
    expect_exit 2 "$WOBBLE" info j.yaml
    expect_grep "(--max-events raises it)" err
    expect_exit 2 "$WOBBLE" bake j.yaml -o j.state
    expect_grep "(--max-events raises it)" err
    expect_exit 0 "$WOBBLE" render j.yaml -o j.mkv --dry-run --max-events 100001
    expect_exit 0 "$WOBBLE" info j.yaml --max-events 200000
    expect_exit 2 "$WOBBLE" render j.yaml -o j.mkv --max-events 0
    ls -A | grep -q 'j\.mkv\|j\.state' && fail "output written" || true
}

# The scene's nesting is bounded where the tree is built (node.c), in YAML
# and JSON alike: the builder recurses, so a hostile file cannot overflow
# the stack.
test_limits_nesting_depth() {
    python3 -c '
d = 70
open("y.yaml", "w").write("wobble: 1\nkind: rope\nx: " + "[" * d + "]" * d + "\n")
open("j.json", "w").write("{\"wobble\": 1, \"kind\": \"rope\", \"x\": " + "[" * d + "]" * d + "}\n")
open("deep.yaml", "w").write("wobble: 1\nkind: rope\nx: " + "[" * 100000 + "]" * 100000 + "\n")
'
    expect_exit 2 "$WOBBLE" info y.yaml
    lim_first_err "y.yaml:3:"
    expect_grep "nesting deeper than 64 levels" err
    expect_exit 2 "$WOBBLE" info j.json
    expect_grep "nesting deeper than 64 levels" err
    expect_exit 2 "$WOBBLE" render deep.yaml -o d.mkv
    expect_grep "nesting deeper than 64 levels" err
}

# bomb FILE FORMAT W H: a file of a few dozen bytes whose header states a
# W×H picture (and holds no pixels).
bomb() {
    python3 - "$@" <<'PY'
import struct, sys
path, fmt, w, h = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
if fmt == "jpeg":   # SOI, APP0 (JFIF), SOF0 with 3 components
    app0 = b"\xff\xe0" + struct.pack(">H", 16) + b"JFIF\0\x01\x01\0\0\x01\0\x01\0\0"
    sof = b"\xff\xc0" + struct.pack(">HBHHB", 17, 8, h, w, 3) + b"\x01\x22\0\x02\x11\x01\x03\x11\x01"
    data = b"\xff\xd8" + app0 + sof + b"\xff\xd9"
elif fmt == "webp":  # VP8X: canvas width-1, height-1 in 24 bits each
    vp8x = b"VP8X" + struct.pack("<I", 10) + b"\0\0\0\0" + (w - 1).to_bytes(3, "little") + (h - 1).to_bytes(3, "little")
    data = b"RIFF" + struct.pack("<I", 4 + len(vp8x)) + b"WEBP" + vp8x
elif fmt == "gif":
    data = b"GIF89a" + struct.pack("<HHBBB", w, h, 0, 0, 0) + b";"
elif fmt == "bmp":
    info = struct.pack("<IiiHHIIiiII", 40, w, h, 1, 24, 0, 0, 2835, 2835, 0, 0)
    data = b"BM" + struct.pack("<IHHI", 14 + 40 + 16, 0, 0, 54) + info + b"\0" * 16
elif fmt == "tiff":  # little-endian, IFD0 at 8: width, length (LONG)
    ifd = struct.pack("<H", 2) + struct.pack("<HHII", 256, 4, 1, w) + struct.pack("<HHII", 257, 4, 1, h) + b"\0\0\0\0"
    data = b"II*\0" + struct.pack("<I", 8) + ifd
elif fmt == "tga":   # RLE true colour, 24 bits
    data = struct.pack("<BBBHHBHHHHBB", 0, 0, 10, 0, 0, 0, 0, 0, w, h, 24, 0x20) + b"\xff\0\0\0" * 4
elif fmt == "ppm":
    data = b"P6\n%d %d\n255\n" % (w, h) + b"\0" * 30
elif fmt == "qoi":
    data = b"qoif" + struct.pack(">II", w, h) + b"\x04\x00" + b"\0" * 7 + b"\x01"
open(path, "wb").write(data)
PY
}

# Every picture format wobble decodes is refused from the size it states,
# before any decoding: the formats whose header wobble reads itself (JPEG,
# WebP, GIF, BMP, TIFF, PNG in t_hostile.sh) and the ones only FFmpeg
# knows (TGA, PPM, QOI: the decoder is stopped when it asks for the
# picture's memory).  Each file is a few dozen bytes claiming 12000x12000.
test_limits_every_format_refused_before_decoding() {
    cp "$ROOT/examples/photo.png" photo.png
    for fmt in jpeg webp gif bmp tiff tga ppm qoi; do
        bomb "big.$fmt" $fmt 12000 12000
        printf 'wobble: 1\nkind: photo\noutput: {width: 64, height: 48, duration: 0.1}\nphoto: {image: big.%s}\n' $fmt > b.yaml
        t0=$(date +%s%N)
        expect_exit 2 "$WOBBLE" render b.yaml -o b.mkv
        ms=$(( ($(date +%s%N) - t0) / 1000000 ))
        lim_first_err "b.yaml:4:16: error: 'photo.image': image 'big.$fmt' is 12000x12000 (144000000 pixels), over the limit of 25000000 pixels (--max-pixels raises it)"
        [ "$ms" -lt 5000 ] || fail "$fmt: refused after $ms ms"
        # as a mask too
        printf 'wobble: 1\nkind: photo\noutput: {width: 64, height: 48, duration: 0.1}\nphoto: {image: photo.png, mask: big.%s}\n' $fmt > m.yaml
        expect_exit 2 "$WOBBLE" info m.yaml
        expect_grep "'photo.mask': image 'big.$fmt' is 12000x12000" err
    done
    # A real picture in a format only FFmpeg reads passes its size check.
    ffmpeg -v error -i photo.png -frames:v 1 small.tga
    printf 'wobble: 1\nkind: photo\noutput: {width: 64, height: 48, duration: 0.1}\nphoto: {image: small.tga}\n' > s.yaml
    expect_exit 0 "$WOBBLE" render s.yaml -o s.mkv
    expect_exit 2 "$WOBBLE" render s.yaml -o s2.mkv --max-pixels 1000
    expect_grep "image 'small.tga' is " err
    ls -A | grep -q 'b\.mkv\|s2\.mkv' && fail "output written" || true
}

# An extended WebP (VP8X) whose canvas is 8x6 but whose picture chunk
# claims 13832x13878: the decoder allocates what the bitstream says, so
# that is the size checked (found by the image fuzzer: it took minutes).
test_limits_webp_canvas_hiding_a_bigger_picture() {
    cp "$ROOT/tests/fuzz/regress/image/webp-vp8x-canvas-8x6-bitstream-13832x13878" bomb.webp
    printf 'wobble: 1\nkind: photo\noutput: {width: 64, height: 48, duration: 0.1}\nphoto: {image: bomb.webp}\n' > b.yaml
    expect_exit 2 "$WOBBLE" render b.yaml -o b.mkv
    expect_grep "image 'bomb.webp' is 13832x13878 (191960496 pixels), over the limit" err
    [ ! -e b.mkv ] || fail "output written"
}

# A frame can take far longer than a second (a cloth at 8000x8000 with 16
# samples per pixel: seconds even on a fast machine): the raster looks at
# the stop flag between bands, so SIGTERM and SIGINT end the draw of frame
# 0 and the run finalizes as any interrupt does (here: nothing to keep).
# Before, the frame was finished and written first.
test_limits_signal_inside_a_huge_frame() {
    cat > c.yaml <<'YAML'
wobble: 1
kind: cloth
output: {width: 8000, height: 8000, fps: 10, duration: 2}
cloth: {grid: 120, pin: top-edge}
YAML
    for sig in TERM INT; do
        "$WOBBLE" render c.yaml -o c.y4m --aa 16 --threads 2 >out 2>err &
        pid=$!
        n=0
        while ! ls -A | grep -q '\.tmp$' && [ $n -lt 1200 ]; do sleep 0.1; n=$((n + 1)); done
        sleep 0.5
        t0=$(date +%s%N)
        kill -$sig $pid
        set +e
        wait $pid
        rc=$?
        set -e
        ms=$(( ($(date +%s%N) - t0) / 1000000 ))
        [ "$rc" = 130 ] || { cat err; fail "SIG$sig: exit $rc, expected 130"; }
        [ "$ms" -lt 8000 ] || fail "SIG$sig answered after $ms ms"
        # the signal lands in frame 0's draw or, on a fast machine, in a
        # later one: either way the draw stops and what was done is kept
        if grep -q "interrupted; before the first frame; nothing written" err; then
            [ ! -e c.y4m ] || fail "an empty output was left"
        else
            grep -q "interrupted; [0-9]* frames finalized in 'c.y4m'" err || { cat err; fail "SIG$sig: neither nothing written nor frames finalized"; }
            [ -s c.y4m ] || fail "the finalized output is missing"
            rm -f c.y4m
        fi
        ls -A | grep -q '\.tmp$' && fail "temporary left" || true
    done
}

# Found by fuzz_state: a state file whose CRCs are right but whose runner
# step is far below its snapshot's (a forged file; CRCs stop accidents,
# not intent) made the next advance loop 2^40 steps.  The loaded counters
# are now held to their range, so the render ends in its normal time.
test_limits_forged_state_step_is_bounded() {
    cat > r.yaml <<'YAML'
wobble: 1
kind: rope
output: {width: 64, height: 48, fps: 10, duration: 1}
rope: {view: {width: 4, height: 3}, ropes: [{from: [1, 0.5], to: [3, 0.5], nodes: 10}]}
YAML
    expect_exit 0 "$WOBBLE" bake r.yaml -o r.wbs --every 5
    python3 - <<'PY'
import struct, zlib
d = bytearray(open("r.wbs", "rb").read())
at = struct.unpack_from("<Q", d, len(d) - 16)[0]
n = struct.unpack_from("<I", d, at + 4)[0]
name = b"\x09rope.step\x04"
for i in range(n):
    off = struct.unpack_from("<Q", d, at + 16 + 16 * i)[0]
    size = struct.unpack_from("<Q", d, off + 24)[0]
    k = d.index(name, off + 32)
    struct.pack_into("<q", d, k + len(name) + 8, -(1 << 40))
    crc = zlib.crc32(bytes(d[off:off + 32 + size]))
    struct.pack_into("<I", d, off + 32 + size, crc)
open("forged.wbs", "wb").write(d)
PY
    set +e
    timeout 60 "$WOBBLE" render r.yaml -o r.mkv --state forged.wbs --frames 6: >out 2>err
    rc=$?
    set -e
    [ "$rc" = 0 ] || { cat err; fail "exit $rc (124: still running after 60 s)"; }
}
