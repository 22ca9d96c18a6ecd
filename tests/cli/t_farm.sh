# The render farm (scripts/farm.sh): bake → chunks from the state → join.
# Its output equals a single render frame for frame, or it fails (exit 3).

# 20 frames: enough to split into uneven chunks.
farm_scene() { photo_scene f.yaml 2; }

frame_md5s() { ffmpeg -v error -i "$1" -f framemd5 - | grep -v '^#' | cut -d, -f6; }

# same_frames A B: the decoded frames of A and B are equal, as many of each.
same_frames() {
    frame_md5s "$1" > a.md5
    frame_md5s "$2" > b.md5
    [ -s a.md5 ] || fail "$1 has no frames"
    cmp -s a.md5 b.md5 || fail "$1: $(wc -l < a.md5) frames, $2: $(wc -l < b.md5); or they differ"
}

duration() { ffprobe -v error -show_entries format=duration -of csv=p=0 "$1"; }

farm() { sh "$ROOT/scripts/farm.sh" "$@"; }

need_parallel() {
    command -v parallel >/dev/null || fail "GNU parallel missing (scripts/deps.sh installs it)"
}

test_farm_parallel_equals_single_render() {
    need_parallel
    farm_scene
    farm f.yaml farm.mkv --chunks 3 --jobs 2 >/dev/null
    "$WOBBLE" render f.yaml -o single.mkv -q
    same_frames farm.mkv single.mkv
    [ "$(count_frames farm.mkv)" = 20 ] || fail "farm output has $(count_frames farm.mkv) frames"
    ls | grep -q 'part-\|\.farm\|\.tmp' && fail "work files left behind: $(ls)"
    true
}

# The plan counts up to where the scene stops, not its duration.
test_farm_settling_scene_stops_where_single_render_does() {
    need_parallel
    photo_scene f.yaml 6
    sed -i 's/fps: 10, duration: 6}/fps: 10, duration: 6, until_settled: true}/' f.yaml
    "$WOBBLE" render f.yaml -o single.mkv -q
    n=$(count_frames single.mkv)
    # The last chunks start after the settling point (each used to add frames).
    [ "$n" -lt 50 ] || fail "the scene does not settle before frame 50 ($n frames): no test"
    farm f.yaml farm.mkv --chunks 6 --jobs 2 >/dev/null
    same_frames farm.mkv single.mkv
}

# -- --frames A:B cuts the whole farm's range; it does not replace the chunks'.
test_farm_user_frames_restrict_the_whole_range() {
    need_parallel
    farm_scene
    farm f.yaml farm.mkv --chunks 3 --jobs 2 -- --frames 5:15 >/dev/null
    "$WOBBLE" render f.yaml -o single.mkv -q --frames 5:15
    same_frames farm.mkv single.mkv
}

# One palette for the whole GIF, and its true duration.
test_farm_gif_equals_single_render() {
    need_parallel
    farm_scene
    farm f.yaml farm.gif --chunks 3 --jobs 2 >/dev/null
    "$WOBBLE" render f.yaml -o single.gif -q
    same_frames farm.gif single.gif
    [ "$(duration farm.gif)" = "$(duration single.gif)" ] ||
        fail "duration $(duration farm.gif) s, single render $(duration single.gif) s"
}

# WebP and y4m used to fail the join and leave a 0-byte output.
test_farm_webp_and_y4m_join() {
    need_parallel
    farm_scene
    farm f.yaml farm.webp --chunks 3 --jobs 2 >/dev/null
    [ "$(webpmux -info farm.webp | sed -n 's/^Number of frames: //p')" = 20 ] || fail "farm.webp: not 20 frames"
    farm f.yaml farm.y4m --chunks 3 --jobs 2 >/dev/null
    [ "$(count_frames farm.y4m)" = 20 ] || fail "farm.y4m: not 20 frames"
    ls | grep -q '\.farm\|\.tmp' && fail "work files left behind: $(ls)"
    true
}

test_farm_png_sequence_equals_single_render() {
    need_parallel
    farm_scene
    mkdir farm single
    farm f.yaml 'farm/f_%04d.png' --chunks 3 --jobs 2 >/dev/null
    "$WOBBLE" render f.yaml -o 'single/f_%04d.png' -q
    [ "$(ls farm | wc -l)" = 20 ] || fail "farm: $(ls farm | wc -l) files"
    for f in single/*; do cmp -s "$f" "farm/${f#single/}" || fail "$f differs"; done
}

# A chunk that never ran: the join fails naming its frames and writes nothing.
test_farm_missing_chunk_is_exit_3_naming_frames() {
    farm_scene
    farm bake f.yaml out.mkv 3 >/dev/null
    farm chunk out.mkv 0 >/dev/null
    farm chunk out.mkv 2 >/dev/null
    expect_exit 3 farm join out.mkv
    expect_grep "missing frames 6-12" err
    [ -e out.mkv ] && fail "out.mkv written"
    ls | grep -q '\.tmp' && fail "temp file left"
    farm chunk out.mkv 1 >/dev/null
    farm join out.mkv >/dev/null
    "$WOBBLE" render f.yaml -o single.mkv -q
    same_frames out.mkv single.mkv
}

# A join that fails leaves neither a partial OUT nor its temp file.
test_farm_failed_join_leaves_nothing() {
    farm_scene
    farm bake f.yaml out.webm 2 >/dev/null
    farm chunk out.webm 0 >/dev/null
    farm chunk out.webm 1 >/dev/null
    mkdir bin
    printf '#!/bin/sh\nfor a; do last=$a; done\necho partial > "$last"\nexit 1\n' > bin/ffmpeg
    chmod +x bin/ffmpeg
    PATH=$PWD/bin:$PATH expect_exit 3 sh "$ROOT/scripts/farm.sh" join out.webm
    ls | grep -q 'out.webm$\|\.tmp' && fail "left behind: $(ls)"
    true
}

# Markers and frames of an earlier run count for nothing.
test_farm_bake_clears_stale_markers() {
    farm_scene
    mkdir -p out.mkv.done out.mkv.farm
    touch out.mkv.done/0 out.mkv.done/1 out.mkv.farm/f_000003.png out.mkv.farm/plan
    farm bake f.yaml out.mkv 2 >/dev/null
    [ -e out.mkv.done ] && fail "stale out.mkv.done kept"
    [ -e out.mkv.farm/f_000003.png ] && fail "stale frame kept"
    expect_exit 3 farm join out.mkv
    expect_grep "missing frames 0-19" err
}

# A chunk stopped by SIGTERM leaves nothing that looks complete: the join
# refuses it, and the chunk run again resumes and completes it.
test_farm_chunk_stopped_by_sigterm_resumes() {
    farm_scene
    sed -i 's/width: 96, height: 72/width: 640, height: 480/' f.yaml
    farm bake f.yaml out.mkv 1 >/dev/null
    sh "$ROOT/scripts/farm.sh" chunk out.mkv 0 >/dev/null 2>&1 &
    pid=$!
    i=0
    while [ ! -e out.mkv.farm/f_000002.png ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
    pkill -TERM -P $pid wobble 2>/dev/null || true
    wait $pid || true
    n=$(ls out.mkv.farm | grep -c '^f_.*png$' || true)
    [ "$n" -lt 20 ] || fail "the chunk finished before SIGTERM: no test"
    expect_exit 3 farm join out.mkv
    expect_grep "missing frames" err
    farm chunk out.mkv 0 >/dev/null
    farm join out.mkv >/dev/null
    "$WOBBLE" render f.yaml -o single.mkv -q
    same_frames out.mkv single.mkv
}

# A stand-in for ssh: runs the command here, but in another $HOME, as sshd
# does, and logs it to ssh.log.  With FAKE_UNSHARED the "host" shares
# nothing: in a private mount namespace an empty tmpfs hides this test's
# folder, and its $HOME (remote/HOST, bound to /mnt first) is all it keeps
# from one connection to the next.  The wobble binary stays where it is.
# Like sshd it sets SHELL (parallel's remote worker runs the command in
# $SHELL; CI starts with an empty environment).
fake_ssh() {
    mkdir -p home remote
    cat > ssh.sh <<EOF
#!/bin/sh
while [ \$# -gt 0 ]; do case "\$1" in -*) shift ;; *) break ;; esac; done
host=\$1; shift
[ "\${1:-}" = "--" ] && shift
echo "\$host: \$*" >> "$PWD/ssh.log"
export SHELL=/bin/sh
if [ -n "\${FAKE_UNSHARED:-}" ]; then
    mkdir -p "$PWD/remote/\$host"
    exec unshare -m sh -c 'mount --bind "\$0/remote/\$1" /mnt && mount -t tmpfs none "\$0" && cd /mnt && HOME=/mnt exec sh -c "\$2"' "$PWD" "\$host" "\$*"
fi
cd "$PWD/home"
exec sh -c "\$*"
EOF
    chmod +x ssh.sh
}

# Remote jobs start in $HOME: relative paths must still work.
test_farm_sshlogin_relative_paths() {
    need_parallel
    farm_scene
    fake_ssh
    FARM_SSH=$PWD/ssh.sh farm f.yaml farm.mkv --chunks 3 --sshlogin 2/node1 >/dev/null
    "$WOBBLE" render f.yaml -o single.mkv -q
    same_frames farm.mkv single.mkv
}

# Hosts that share nothing (the README's relative-path example): the scene,
# its photo and mask (in another folder, named with ..) and the state go
# over, the chunks come back, the join runs here.  The remote never sees
# this folder and keeps nothing.
test_farm_sshlogin_unshared_is_staged() {
    need_parallel
    command -v rsync >/dev/null || fail "rsync missing (scripts/deps.sh installs it)"
    mkdir scenes pics
    (cd pics && photo_scene ../scenes/f.yaml 2)
    sed -i 's|image: photo.png|image: ../pics/photo.png, mask: ../pics/mask.png|' scenes/f.yaml
    ffmpeg -v error -f lavfi -i 'color=c=gray:s=48x36' -frames:v 1 pics/mask.png
    fake_ssh
    cd scenes
    FAKE_UNSHARED=1 FARM_SSH=$PWD/../ssh.sh farm f.yaml ../farm.mkv --chunks 4 --sshlogin 1/node1,1/node2 >/dev/null 2>../err ||
        fail "the farm failed: $(cat ../err)"
    "$WOBBLE" render f.yaml -o ../single.mkv -q
    cd ..
    same_frames farm.mkv single.mkv
    grep -q 'rsync --server' ssh.log || fail "nothing was staged: $(cat ssh.log)"
    grep -q 'node2: ' ssh.log || fail "node2 ran nothing"
    # No remote command named this folder, and the hosts kept nothing.
    grep -v 'cat .*/shared' ssh.log | grep -q -F "$PWD" && fail "a remote command used a local path: $(grep -F "$PWD" ssh.log)"
    [ -z "$(ls -A remote/node1)$(ls -A remote/node2)" ] || fail "left on the hosts: $(ls -AR remote)"
    ls | grep -q '\.farm\|\.tmp' && fail "work files left behind: $(ls)"
    true
}

# What cannot be staged: an input named by an absolute path.
test_farm_sshlogin_unshared_absolute_input_is_refused() {
    need_parallel
    farm_scene
    sed -i "s|image: photo.png|image: $PWD/photo.png|" f.yaml
    fake_ssh
    FAKE_UNSHARED=1 FARM_SSH=$PWD/ssh.sh expect_exit 2 \
        sh "$ROOT/scripts/farm.sh" f.yaml farm.mkv --chunks 3 --sshlogin 2/node1
    expect_grep "names $PWD/photo.png by an absolute path" err
    [ -e farm.mkv ] && fail "farm.mkv written"
    ls | grep -q '\.farm' && fail "work folder left behind"
    true
}

# The chunks start from snapshots near their first frames: together they
# simulate no more than 1.125 times one render (render --json: simulated_steps).
test_farm_chunks_simulate_about_one_render() {
    farm_scene
    farm bake f.yaml out.mkv 3 >/dev/null
    sum=0
    while IFS= read -r range; do
        "$WOBBLE" render f.yaml --state out.mkv.farm/state --frames "$range" -q --json -o c.mkv > c.json
        sum=$((sum + $(sed -n 's/.*"simulated_steps": \([0-9]*\).*/\1/p' c.json)))
    done < out.mkv.farm/ranges
    "$WOBBLE" render f.yaml -q --json -o single.mkv > s.json
    one=$(sed -n 's/.*"simulated_steps": \([0-9]*\).*/\1/p' s.json)
    [ "$one" -gt 0 ] || fail "no simulated_steps in $(cat s.json)"
    [ $((sum * 1000)) -le $((one * 1125)) ] || fail "chunks simulated $sum steps, one render $one"
}
