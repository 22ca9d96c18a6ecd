# The render farm scripts: chunked output equals a single render frame for frame.

# 20 frames: enough to split into uneven chunks.
farm_scene() { photo_scene f.yaml 2; }

frame_md5s() { ffmpeg -v error -i "$1" -f framemd5 - | grep -v '^#' | cut -d, -f6; }

test_farm_plan_covers_every_frame_once() {
    farm_scene
    sh "$ROOT/scripts/farm.sh" plan f.yaml 3 > plan
    [ "$(cat plan | tr '\n' ' ')" = "0:6 6:13 13:20 " ] || fail "plan: $(cat plan)"
}

test_farm_parallel_equals_single_render() {
    command -v parallel >/dev/null || fail "GNU parallel missing (scripts/deps.sh installs it)"
    farm_scene
    sh "$ROOT/scripts/farm.sh" f.yaml farm.mkv --chunks 3 --jobs 2 >/dev/null
    "$WOBBLE" render f.yaml -o single.mkv -q
    frame_md5s farm.mkv > a
    frame_md5s single.mkv > b
    [ "$(wc -l < a)" = 20 ] || fail "farm output has $(wc -l < a) frames"
    cmp a b || fail "farm output differs from the single render"
    ls | grep -q part- && fail "chunk files left behind"
    true
}

test_slurm_array_equals_single_render() {
    farm_scene
    # Play Slurm: run the array's tasks one after another with its variables.
    for k in 0 1 2 3; do
        SLURM_ARRAY_TASK_ID=$k SLURM_ARRAY_TASK_COUNT=4 SLURM_CPUS_PER_TASK=1 \
            bash "$ROOT/scripts/slurm-render.sbatch" f.yaml slurm.mkv
    done
    "$WOBBLE" render f.yaml -o single.mkv -q
    frame_md5s slurm.mkv > a
    frame_md5s single.mkv > b
    cmp a b || fail "slurm output differs from the single render"
    [ -e slurm.mkv.done ] && fail "bookkeeping left behind"
    true
}
