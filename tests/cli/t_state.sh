# State files: wobble bake, render --state, render --resume.

# chunks_equal SCENE EVERY "A:B ..." [ARGS...]: render SCENE whole as PNG
# frames, bake it with a snapshot every EVERY frames, render each range from
# the state; fail unless every chunk frame has the very bytes of the whole
# render's frame.
chunks_equal() {
    _scene=$1 _every=$2 _ranges=$3
    shift 3
    rm -rf full s.state
    mkdir full
    expect_exit 0 "$WOBBLE" render "$_scene" -o full/%04d.png -q "$@"
    expect_exit 0 "$WOBBLE" bake "$_scene" -o s.state --every "$_every" -q "$@"
    for _r in $_ranges; do
        rm -rf part
        mkdir part
        expect_exit 0 "$WOBBLE" render "$_scene" -o part/%04d.png -q --state s.state \
            --frames "$_r" "$@"
        _a=${_r%:*} _b=${_r#*:}
        [ "$(ls part | wc -l)" = $((_b - _a)) ] || fail "$_scene $_r: $(ls part | wc -l) frames"
        for _f in part/*.png; do
            cmp -s "$_f" "full/$(basename "$_f")" ||
                fail "$(basename "$_scene") $_r: frame $(basename "$_f") differs from the full render"
        done
    done
}

# A small photo scene with every command: pins, a grab that is pinned down,
# a release, an unpin (events at frames 0, 2, 8, 10, 16 at 10 fps).
photo_pins_scene() {
    cp "$ROOT/examples/photo.png" photo.png
    cat > p.yaml <<YAML
wobble: 1
kind: photo
output: {width: 96, height: 72, fps: 10, duration: 2.5}
photo: {image: photo.png, grid: 32, preset: jelly}
timeline:
  - {time: 0.0, pin: {at: [0.25, 0.5], name: left}}
  - time: 0.2
    grab: {at: [0.5, 0.3], path: [{time: 0.8, to: [0.5, 0.18], ease: in-out}]}
  - {time: 0.8, pin: {at: [0.5, 0.3], radius: 0.12, name: hold}}
  - {time: 1.0, release: {}}
  - {time: 1.6, unpin: {name: hold}}
YAML
}

test_state_chunks_photo() {
    photo_pins_scene
    # chunks start on events (2, 8, 10, 16), between snapshots and on them
    chunks_equal p.yaml 3 "0:2 2:8 8:10 10:16 16:25 5:13 24:25"
}

test_state_chunks_rope() {
    # the cut is at 0.6 s: frame 18
    chunks_equal "$ROOT/examples/rope-cut.yaml" 7 "0:18 18:30 30:45 14:21" \
        --size 96x72 --duration 1.5 --aa 1
}

test_state_chunks_cloth() {
    # the pins let go at 0.7 s: frame 21; self-collision on
    chunks_equal "$ROOT/examples/cloth-drop-self.yaml" 10 "0:21 21:30 25:36" \
        --size 64x48 --duration 1.2 --aa 1
}

test_state_chunks_cloth_wind() {
    # the wind changes (ramps) at 2 s: frame 60
    chunks_equal "$ROOT/examples/cloth-flag-wind.yaml" 25 "50:60 60:66 70:75" \
        --size 64x48 --duration 2.5 --aa 1
}

test_state_chunks_jiggle() {
    # 2d: shake at 3.6 s (frame 108), reseed at 4.8 s (frame 144)
    chunks_equal "$ROOT/examples/jiggle-2d-ring.yaml" 40 "100:108 108:120 140:150" \
        --size 64x48 --duration 5 --aa 1
    # 1d: the traces remember the past
    chunks_equal "$ROOT/examples/jiggle-1d.yaml" 16 "20:30 33:40" --size 64x48 --duration 1.5 --aa 1
    # 3d
    chunks_equal "$ROOT/examples/jiggle-capsule.yaml" 16 "17:24 30:36" --size 64x48 --duration 1.2 --aa 1
}

test_state_chunks_jiggle_chain() {
    # the chain's state is its links' own offsets; the tips are drawn
    chunks_equal "$ROOT/examples/jiggle-chain-2d.yaml" 16 "20:28 33:40" --size 64x48 --duration 1.5 --aa 1
    chunks_equal "$ROOT/examples/jiggle-chain-1d.yaml" 16 "20:30 33:40" --size 64x48 --duration 1.5 --aa 1
    # 3d: the shake at 4 s (frame 120)
    chunks_equal "$ROOT/examples/jiggle-chain-3d.yaml" 40 "116:124 124:130" --size 64x48 --duration 4.4 --aa 1
}

test_bake_format_and_options() {
    photo_scene s.yaml 2
    expect_exit 0 "$WOBBLE" bake s.yaml -o s.state --json
    expect_grep '"frames": 20, "every": 20, "snapshots": 1' out
    expect_exit 0 "$WOBBLE" bake s.yaml -o s.state --every 3 --json
    expect_grep '"every": 3, "snapshots": 7' out
    [ "$(head -c 7 s.state)" = WBSTATE ] || fail "no WBSTATE header"
    [ "$(tail -c 4 s.state)" = WEND ] || fail "no WEND trailer"
    ls -a | grep -q '\.tmp$' && fail "temporary file left behind"
    expect_exit 2 "$WOBBLE" bake s.yaml
    expect_grep "missing -o STATE" err
    expect_exit 2 "$WOBBLE" bake s.yaml -o x.state --frames 0:3
    expect_exit 2 "$WOBBLE" bake s.yaml -o s.yaml
    expect_grep "is the scene file" err
    [ ! -e x.state ] || fail "state written after an error"
    true
}

# expect_state_error STATE TEXT: render from STATE exits 2 naming the file
# and TEXT, and writes nothing.
expect_state_error() {
    expect_exit 2 "$WOBBLE" render s.yaml -o frames/%04d.png --state "$1" --frames 5:8
    expect_grep "state '$1'" err
    expect_grep "$2" err
    [ ! -e frames ] || fail "frames written from a bad state"
}

test_state_file_is_an_input() {
    # the state a run reads is an input like the scene: no output may be it
    photo_scene s.yaml 2
    expect_exit 0 "$WOBBLE" bake s.yaml -o s.state
    cp s.state keep.state
    expect_exit 2 "$WOBBLE" render s.yaml -o o.mkv --state s.state --stats s.state
    expect_grep "the --state file 's.state'" err
    ln s.state s.pc2
    expect_exit 2 "$WOBBLE" export "$ROOT/examples/cloth-flag-wind.yaml" -o s --state s.pc2
    expect_grep "'s.pc2' is the --state file" err
    cmp -s s.state keep.state || fail "the state file was changed"
    [ ! -e o.mkv ] && [ ! -e s.obj ] || fail "an output was written"
}

test_state_refused_when_wrong() {
    photo_scene s.yaml 2
    expect_exit 0 "$WOBBLE" bake s.yaml -o s.state --every 3
    expect_state_error missing.state "No such file"
    echo "not a state" > text.state
    expect_state_error text.state "not a wobble state file"
    head -c 100 s.state > short.state
    expect_state_error short.state "truncated"
    size=$(wc -c < s.state)
    head -c $((size - 9)) s.state > cut.state
    expect_state_error cut.state "truncated"
    # one byte flipped inside the snapshot of frame 3
    python3 - <<'PY'
d = bytearray(open("s.state", "rb").read())
i = d.find(b"SNAP", d.find(b"SNAP") + 1) + 200
d[i] ^= 0x01
open("flip.state", "wb").write(d)
PY
    expect_state_error flip.state "snapshot of frame 3: corrupt (checksum mismatch)"
    # another version: the version hash rewritten, the header's CRC made right
    python3 - <<'PY'
import struct, zlib
d = bytearray(open("s.state", "rb").read())
d[24] ^= 0xff
struct.pack_into("<I", d, 60, zlib.crc32(bytes(d[:60])))
open("old.state", "wb").write(d)
PY
    expect_state_error old.state "another version of wobble"
    # another scene: other --set, other size, another input picture
    expect_exit 2 "$WOBBLE" render s.yaml -o frames/%04d.png --state s.state --frames 5:8 \
        --set photo.elasticity=0.5
    expect_grep "baked from another scene" err
    expect_exit 2 "$WOBBLE" render s.yaml -o frames/%04d.png --state s.state --size 48x36
    expect_grep "baked from another scene" err
    "$WOBBLE" testcard -o photo.png --size 64x48
    expect_exit 2 "$WOBBLE" render s.yaml -o frames/%04d.png --state s.state
    expect_grep "baked from another scene" err
    [ ! -e frames ] || fail "frames written from a bad state"
    true
}

# start_render DIR SIGNAL ARGS...: render to DIR/%04d.png with --resume in the
# background, send SIGNAL once 8 frames are finished, wait for it to end.
stop_render() {
    _dir=$1 _sig=$2
    shift 2
    mkdir -p "$_dir"
    "$WOBBLE" render "$@" -o "$_dir/%04d.png" -q --resume 2>stop.err &
    _pid=$!
    _n=0
    while [ "$(ls "$_dir" | grep -c 'png$')" -lt 8 ] && [ $_n -lt 600 ]; do
        sleep 0.05
        _n=$((_n + 1))
    done
    kill "-$_sig" $_pid 2>/dev/null || true
    wait $_pid || true
}

test_resume_after_kill_9_and_sigterm() {
    set -- "$ROOT/examples/cloth-drop-self.yaml" --size 160x120 --duration 3 --aa 1
    mkdir full
    expect_exit 0 "$WOBBLE" render "$@" -o full/%04d.png -q
    expect_exit 0 "$WOBBLE" bake "$@" -o s.state --every 10
    for sig in KILL TERM INT; do
        rm -rf part
        stop_render part $sig "$@"
        done=$(ls part | grep -c 'png$')
        [ "$done" -lt 90 ] || fail "$sig: the render finished before it was stopped"
        [ -e part/0000.png.resume ] || fail "$sig: no journal"
        ino=$(ls -i part/0001.png | cut -d' ' -f1)
        # a finished frame damaged after the stop is found and drawn again
        printf 'junk' > part/0004.png
        # the TERM and INT runs go on from the state's snapshot before frame 4
        st=""
        [ $sig = KILL ] || st="--state s.state"
        expect_exit 0 "$WOBBLE" render "$@" -o part/%04d.png -q --resume $st
        [ "$(ls part | grep -c 'png$')" = 90 ] || fail "$sig: $(ls part | wc -l) files"
        for f in full/*.png; do
            cmp -s "$f" "part/$(basename "$f")" || fail "$sig: $(basename "$f") differs"
        done
        [ "$(ls -i part/0001.png | cut -d' ' -f1)" = "$ino" ] ||
            fail "$sig: a checked frame was drawn again"
        [ ! -e part/0000.png.resume ] || fail "$sig: journal left after the range completed"
    done
    # no journal: every frame is drawn; other outputs cannot resume
    expect_exit 0 "$WOBBLE" render "$@" -o full/%04d.png -q --resume
    expect_exit 2 "$WOBBLE" render "$@" -o x.mkv --resume
    expect_grep "--resume needs a PNG sequence" err
}

test_state_chunks_after_a_teleport() {
    # a jiggle's drive path and a rope's anchor path are shifted by the
    # teleports fired so far: a state saved after one keeps the shift
    chunks_equal "$ROOT/examples/jiggle-2d-teleport.yaml" 16 "60:64 66:70" \
        --size 64x48 --duration 2.4 --aa 1
    cat > r.yaml <<'YAML'
wobble: 1
kind: rope
output: {width: 64, height: 48, fps: 10, duration: 2}
rope:
  view: {width: 8, height: 6}
  ropes:
    - from: [2, 1]
      to: [3.5, 1]
      nodes: 10
      pin: start
      start_path: [{time: 1.8, to: [3, 1.5], ease: in-out}]
timeline:
  - {time: 0.65, teleport: {by: [2, 0.5]}}
YAML
    chunks_equal r.yaml 4 "8:12 13:20"
}

test_state_chunks_cloth_teleport() {
    # the flag and its pole jump at 2.5 s: frame 75; a state saved after
    # it has the pole where the teleport put it
    chunks_equal "$ROOT/examples/cloth-teleport.yaml" 20 "70:75 75:78 80:84" \
        --size 64x48 --duration 2.8 --aa 1
}
