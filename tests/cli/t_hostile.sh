# What a hostile user tries (issue 26): outputs over inputs, signals in
# long work, step sizes that break the clock, small files that cost
# gigabytes, finite explosions, full disks.  Each test failed before its fix.

# first_err TEXT: the first line of ./err starts with TEXT.
first_err() {
    _first=$(sed -n 1p err)
    case "$_first" in
    "$1"*) ;;
    *) fail "first line of stderr: '$_first', expected it to start with '$1'" ;;
    esac
}

# tiny_rope FILE STEP: a small rope scene with rope.step STEP on line 5.
tiny_rope() {
    cat > "$1" <<YAML
wobble: 1
kind: rope
output: {width: 64, height: 48, fps: 10, duration: 0.5}
rope:
  step: $2
  view: {width: 4, height: 3}
  ropes:
    - {from: [1, 0.5], to: [2.2, 0.5], nodes: 8}
YAML
}

# rope.step 1e-300 passed `info` and failed `render` with no place; 1e-44
# overflowed floorl(f·rate/fps) into int64_t (undefined behaviour, a rope
# that never moved); 1e-20 never finished a frame.  Each is now refused
# where it is written, by info and render alike.
test_hostile_tiny_rope_step() {
    for s in 1e-300 1e-44 1e-20 1e-9 0.000009; do
        tiny_rope bad.yaml "$s"
        expect_exit 2 "$WOBBLE" info bad.yaml
        first_err "bad.yaml:5:9: error: 'rope.step' must be"
        expect_grep "1e-05" err
        expect_render_error 5 9 "$(sed -n 1p err | sed 's/^bad.yaml:5:9: error: //')"
    done
    tiny_rope ok.yaml 1e-5
    expect_exit 0 "$WOBBLE" render ok.yaml -o ok.mkv --size 32x24 --duration 0.2
}

# --stats or -o naming the scene, the photo or the mask replaced it (exit
# 0); a PNG sequence whose frame 0 is the photo overwrote it.  Files are
# compared by device and inode, so a link or another spelling counts too.
# Exit 2 and every input untouched.
test_hostile_outputs_spare_inputs() {
    photo_scene s.yaml 0.3
    cp s.yaml keep.yaml
    cp photo.png keep.png
    expect_exit 2 "$WOBBLE" render s.yaml -o out.mkv --stats s.yaml
    first_err "wobble: error: --stats 's.yaml' is the scene file 's.yaml': it would be overwritten"
    expect_exit 2 "$WOBBLE" render s.yaml -o out.mkv --stats ./photo.png
    first_err "wobble: error: --stats './photo.png' is the photo.image"
    cp s.yaml scene.y4m
    expect_exit 2 "$WOBBLE" render scene.y4m -o scene.y4m
    first_err "wobble: error: output 'scene.y4m' is the scene file 'scene.y4m'"
    ln s.yaml hard.mkv
    expect_exit 2 "$WOBBLE" render s.yaml -o hard.mkv
    first_err "wobble: error: output 'hard.mkv' is the scene file"
    # A photo that is frame 0 (and one that is frame 2) of the sequence.
    mv photo.png f_0000.png
    sed 's/image: photo.png/image: f_0000.png/' keep.yaml > s.yaml
    expect_exit 2 "$WOBBLE" render s.yaml -o 'f_%04d.png'
    first_err "wobble: error: output 'f_%04d.png' names 'f_0000.png' (frame 0), the photo.image"
    mkdir -p d && mv f_0000.png d/f_2.png
    sed 's|image: photo.png|image: d/f_2.png|' keep.yaml > s.yaml
    expect_exit 2 "$WOBBLE" render s.yaml -o 'd/f_%d.png'
    first_err "wobble: error: output 'd/f_%d.png' names 'd/f_2.png' (frame 2), the photo.image"
    # Frame 2 lies outside --frames 0:2: nothing is written over.
    expect_exit 0 "$WOBBLE" render s.yaml -o 'd/f_%d.png' --frames 0:2
    cmp d/f_2.png keep.png || fail "the photo changed"
    cmp keep.yaml s.yaml >/dev/null 2>&1 || true
    [ ! -e out.mkv ] || fail "output written"
}

# full_fs CMD...: run CMD (in ./full, a 256 KiB tmpfs in a private mount
# namespace) and print its exit code; "skip" where no such mount can be made.
full_fs() {
    mkdir -p full
    unshare -r -m sh -c 'mount -t tmpfs -o size=256k none full' 2>/dev/null || { echo skip; return 0; }
    set +e
    unshare -r -m sh -c 'mount -t tmpfs -o size=256k none full && dd if=/dev/zero of=full/pad bs=1k count=250 2>/dev/null; "$@" >out 2>err; echo $?' sh "$@"
    set -e
}

# A GIF whose write failed skipped av_write_trailer, and FFmpeg's GIF
# muxer frees its held packet only there: LeakSanitizer reported 60 KB and
# the exit became 1.  Run with the LeakSanitizer runtime preloaded (an
# ASan build has it already and refuses a preload).
test_hostile_gif_full_disk_frees_the_muxer() {
    lsan=$(ls /usr/lib/*/liblsan.so.0 2>/dev/null | head -n 1)
    if ldd "$WOBBLE" 2>/dev/null | grep -q libasan; then lsan=""
    elif [ -z "$lsan" ]; then return 0; fi
    # Moving frames, large enough that a write fails before the trailer.
    photo_scene s.yaml 1.5
    sed -i 's/width: 96, height: 72/width: 480, height: 360/' s.yaml
    ln -s /dev/full full.gif
    LD_PRELOAD=$lsan LSAN_OPTIONS=exitcode=23 expect_exit 3 "$WOBBLE" render s.yaml -o full.gif
    expect_grep "full.gif" err
    ! grep -q LeakSanitizer err || fail "leak reported"
}

# "photo.png\0.txt" named photo.png: an escaped NUL cut the string short.
test_hostile_nul_in_a_string() {
    photo_scene s.yaml 0.2
    printf 'wobble: 1\nkind: photo\nphoto: {image: "photo.png\\0.txt"}\n' > bad.yaml
    expect_render_error 3 16 'a value may not hold a NUL character (\0)'
    expect_exit 2 "$WOBBLE" info s.yaml --set 'photo.image="photo.png\0"'
    first_err "--set:1:13: error: a value may not hold a NUL character"
}

# `width: !foo 320` and `!!binary` were read as if untagged.
test_hostile_yaml_tags_refused() {
    photo_scene s.yaml 0.2
    sed 's/width: 96/width: !foo 96/' s.yaml > bad.yaml
    expect_render_error 3 17 'YAML tags (!foo) are not supported in scene files; write the value plainly'
    sed 's/image: photo.png/image: !!binary cGhvdG8ucG5n/' s.yaml > bad.yaml
    expect_render_error 4 16 'YAML tags (tag:yaml.org,2002:binary) are not supported in scene files; write the value plainly'
    sed 's/^output: /output: !!map /' s.yaml > bad.yaml
    expect_exit 2 "$WOBBLE" info bad.yaml
    first_err "bad.yaml:3:9: error: YAML tags"
}

# info exited 0 for a photo.image that is missing or not an image, which
# render refuses: it reads the inputs as render does.
test_hostile_info_reads_the_inputs() {
    photo_scene s.yaml 0.2
    sed 's/image: photo.png/image: nothere.png/' s.yaml > bad.yaml
    expect_exit 2 "$WOBBLE" render bad.yaml -o x.mkv
    sed -n 1p err > render.err
    expect_exit 2 "$WOBBLE" info bad.yaml
    [ "$(sed -n 1p err)" = "$(cat render.err)" ] || fail "info: '$(sed -n 1p err)', render: '$(cat render.err)'"
    [ ! -s out ] || fail "info printed the scene"
    echo "not an image" > text.png
    sed 's/image: photo.png/image: text.png/' s.yaml > bad.yaml
    expect_exit 2 "$WOBBLE" info bad.yaml
    first_err "bad.yaml:4:16: error: 'photo.image': cannot read image"
}

# A PNG sequence on a full disk said libpng's "Write Error".
test_hostile_png_sequence_full_disk_says_why() {
    # Frames larger than stdio's buffer, so libpng's own fwrite fails.
    photo_scene s.yaml 1
    sed -i 's/width: 96, height: 72/width: 320, height: 240/' s.yaml
    rc=$(full_fs "$WOBBLE" render s.yaml -o 'full/f_%04d.png')
    [ "$rc" != skip ] || return 0
    [ "$rc" = 3 ] || { cat err; fail "exit $rc, expected 3"; }
    expect_grep "No space left on device" err
}

# `--set photo.image=/` gave a message with no source line and caret.
test_hostile_set_folder_shows_the_caret() {
    photo_scene s.yaml 0.2
    expect_exit 2 "$WOBBLE" info s.yaml --set photo.image=/
    first_err "--set:1:13: error: 'photo.image'"
    [ "$(sed -n 2p err)" = "  photo.image=/" ] || fail "source line: '$(sed -n 2p err)'"
    [ "$(sed -n 3p err)" = "              ^" ] || fail "caret: '$(sed -n 3p err)'"
}

# A SIGKILLed run leaves .NAME.PID.tmp behind: the next run into that
# place removes those of dead processes (and leaves a live one's alone).
test_hostile_stale_temporaries_swept() {
    photo_scene s.yaml 0.2
    echo junk > .a.mkv.2147483646.tmp
    echo junk > ".f_0003.png.2147483645.tmp"
    echo live > ".a.mkv.$$.tmp"
    echo other > .b.mkv.2147483646.tmp
    expect_exit 0 "$WOBBLE" render s.yaml -o a.mkv
    [ ! -e .a.mkv.2147483646.tmp ] || fail "stale temporary left"
    [ -e ".a.mkv.$$.tmp" ] || fail "a live run's temporary removed"
    [ -e .b.mkv.2147483646.tmp ] || fail "another output's temporary removed"
    expect_exit 0 "$WOBBLE" render s.yaml -o 'f_%04d.png'
    [ ! -e .f_0003.png.2147483645.tmp ] || fail "stale frame temporary left"
}

# heavy_cloth FILE GRID SUBSTEPS ITERATIONS PIN: a cloth scene an hour
# long, in wind (it never settles).
heavy_cloth() {
    cat > "$1" <<YAML
wobble: 1
kind: cloth
output: {width: 64, height: 48, fps: 10, duration: 3600}
cloth: {grid: $2, substeps: $3, iterations: $4, pin: $5, wind: {strength: 10}}
YAML
}

# term_after SECONDS CMD...: start CMD, wait until its output is open (its
# temporary file exists: the signal handlers are in place) and SECONDS
# more, send SIGTERM and print "EXIT MS": its exit code and how long it
# took to answer, in ms.
term_after() {
    _s=$1; shift
    "$@" >out 2>err &
    _pid=$!
    _n=0
    while ! ls -A | grep -q '\.tmp$' && [ $_n -lt 600 ]; do sleep 0.1; _n=$((_n + 1)); done
    sleep "$_s"
    _t0=$(date +%s%N)
    kill -TERM "$_pid"
    set +e
    wait "$_pid"
    _rc=$?
    set -e
    echo "$_rc $(( ($(date +%s%N) - _t0) / 1000000 ))"
}

# How soon a signal must be answered, in ms: inside Slurm's 30 s grace
# before SIGKILL (the bug answered after the whole step, 30 s and more)
# with room for a loaded machine; sanitizer builds run 3-4× slower.
answer_ms() {
    if ldd "$WOBBLE" 2>/dev/null | grep -q libasan; then echo 20000; else echo 10000; fi
}

# A `--frames 20000:` fast-forward is one advance() call: SIGTERM was
# answered after it (30 s), past Slurm's grace before SIGKILL.  Now inside
# it, with nothing to keep: exit 130 and no output.
test_hostile_sigterm_inside_fast_forward() {
    heavy_cloth c.yaml 60 6 10 left-edge
    set -- $(term_after 1 "$WOBBLE" render c.yaml -o c.mkv --frames 20000:)
    [ "$1" = 130 ] || { cat err; fail "exit $1, expected 130"; }
    [ "$2" -lt "$(answer_ms)" ] || fail "answered after $2 ms"
    expect_grep "interrupted; before the first frame; nothing written" err
    [ ! -e c.mkv ] || fail "an empty output was left"
    ls -A | grep -q '\.tmp$' && fail "temporary left" || true
}

# A heavy cloth step (substeps × iterations sweeps over a large grid) ran
# to its end whatever the signal: now the sweeps look at it.  Whatever was
# finished is finalized and plays.
test_hostile_sigterm_inside_a_heavy_step() {
    heavy_cloth c.yaml 700 100 1000 none
    set -- $(term_after 3 "$WOBBLE" render c.yaml -o c.mkv)
    [ "$1" = 130 ] || { cat err; fail "exit $1, expected 130"; }
    [ "$2" -lt "$(answer_ms)" ] || fail "answered after $2 ms"
    if grep -q "nothing written" err; then
        [ ! -e c.mkv ] || fail "an empty output was left"
    else
        n=$(sed -n 's/.*interrupted; \([0-9]*\) frames finalized.*/\1/p' err)
        [ "$(count_frames c.mkv)" = "$n" ] || fail "c.mkv does not hold the $n frames"
    fi
}

# Links stretched thousands of times their length, yet finite and within
# the runaway bound, rendered as garbage with exit 0: a stretch past 100×
# the rest length is now a divergence (exit 4) with the usual message.
test_hostile_watchdog_sees_finite_explosions() {
    cat > r.yaml <<'YAML'
wobble: 1
kind: rope
output: {width: 64, height: 48, fps: 10, duration: 2}
rope: {step: 0.1, passes: 1, gravity: 1000, damping: 1,
  view: {width: 4, height: 3},
  ropes: [{from: [1, 0.5], to: [3, 0.5], nodes: 40, end_mass: 1000}]}
YAML
    expect_exit 4 "$WOBBLE" render r.yaml -o r.mkv
    first_err "wobble: error: frame 2: rope 0 node 0 diverged (position 1, 0.5, a link stretched"
    # the frames before the explosion are kept, as after an interrupt
    [ "$(count_frames r.mkv)" = 2 ] || fail "r.mkv should hold the 2 frames before frame 2"
    cat > c.yaml <<'YAML'
wobble: 1
kind: cloth
output: {width: 64, height: 48, fps: 10, duration: 2}
cloth: {grid: 20, substeps: 1, iterations: 1, max_stretch: 0, wind_response: 1, pin: left-edge,
  gravity: 1000, wind: {strength: 1000, bias: 10}}
YAML
    expect_exit 4 "$WOBBLE" render c.yaml -o c.mkv
    first_err "wobble: error: frame 1: cloth particle (0, 0) diverged (position"
    expect_grep "a link stretched" err
}

# png_header FILE W H: a PNG that states W×H and holds no pixels (a few
# dozen bytes): refused from its header, it is never decoded.
png_header() {
    python3 - "$@" <<'PY'
import struct, sys, zlib
c = b"IHDR" + struct.pack(">IIBBBBB", int(sys.argv[2]), int(sys.argv[3]), 8, 2, 0, 0, 0)
open(sys.argv[1], "wb").write(b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + c + struct.pack(">I", zlib.crc32(c)))
PY
}

# A 420 KB PNG of 12000x12000 took 1.3 GB, a 16000² weight map 6 GB, and
# --dry-run took a 1080p GIF of 216,000 frames (1.8 TB buffered).  Each is
# refused from what its header or the scene states, with the limit and
# the option that raises it.
test_hostile_limits_refuse_before_decoding() {
    photo_scene s.yaml 0.2
    png_header big.png 12000 12000
    sed 's/image: photo.png/image: big.png/' s.yaml > bad.yaml
    expect_exit 2 "$WOBBLE" render bad.yaml -o b.mkv
    first_err "bad.yaml:4:16: error: 'photo.image': image 'big.png' is 12000x12000 (144000000 pixels), over the limit of 25000000 pixels (--max-pixels raises it)"
    expect_exit 2 "$WOBBLE" info bad.yaml
    first_err "bad.yaml:4:16: error: 'photo.image': image 'big.png' is 12000x12000"
    # Raised, the header passes and the (empty) file fails to decode.
    expect_exit 2 "$WOBBLE" render bad.yaml -o b.mkv --max-pixels 200000000
    first_err "bad.yaml:4:16: error: 'photo.image': cannot read image 'big.png'"
    # A mask as large.
    sed 's/grid: 32,/grid: 32, mask: big.png,/' s.yaml > bad.yaml
    expect_exit 2 "$WOBBLE" render bad.yaml -o b.mkv
    expect_grep "'photo.mask': image 'big.png' is 12000x12000" err
    # A weight map.
    png_header w.png 16000 16000
    printf 'wobble: 1\nkind: jiggle\njiggle: {view: 2d, weights: w.png}\n' > j.yaml
    expect_exit 2 "$WOBBLE" render j.yaml -o j.mkv
    expect_grep "image 'w.png' is 16000x16000 (256000000 pixels), over the limit" err
    # A GIF buffers every frame: 1080p for 7200 s at 30 fps, even dry.
    expect_exit 2 "$WOBBLE" render s.yaml -o a.gif --dry-run --size 1920x1080 --duration 3600 --fps 60
    first_err "wobble: error: a GIF holds every frame until the end: 216000 frames of 1920x1080"
    expect_grep "(--max-gif-pixels raises it" err
    expect_exit 0 "$WOBBLE" render s.yaml -o a.gif --dry-run --size 1920x1080 --duration 3600 --fps 60 --max-gif-pixels 500000000000
    ls -A | grep -q 'a\.gif\|b\.mkv\|j\.mkv' && fail "output written" || true
}
