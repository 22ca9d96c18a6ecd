# scripts/slurm-farm.sh on a real Slurm: a one-node cluster on localhost
# (Debian's slurm-wlm and munge, `scripts/deps.sh slurm-wlm munge`), started
# here as root with its own config and state in this test's folder, and
# stopped at the end even when the test fails.

slurm_start() {
    command -v slurmctld >/dev/null && command -v munged >/dev/null ||
        fail "slurm-wlm or munge missing (scripts/deps.sh slurm-wlm munge installs them)"
    [ "$(id -u)" = 0 ] || fail "the Slurm test starts slurmctld and slurmd: run it as root"
    S=$PWD/slurm
    mkdir -p "$S/spool" "$S/state" "$S/munge" "$S/run"
    chmod 700 "$S/munge"
    dd if=/dev/urandom of="$S/munge/key" bs=1024 count=1 2>/dev/null
    chmod 400 "$S/munge/key"
    # Ports of our own, so a cluster already on this machine is not disturbed.
    base=$((20000 + $$ % 20000))
    cat > "$S/slurm.conf" <<EOF
ClusterName=wobbletest
SlurmctldHost=localhost
SlurmctldPort=$base
SlurmdPort=$((base + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$S/run/munge.sock
CredType=cred/munge
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/run/slurmctld.pid
SlurmdPidFile=$S/run/slurmd.pid
ProctrackType=proctrack/pgid
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
# A job whose dependency failed is cancelled, not left pending.
SchedulerParameters=kill_invalid_depend
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=localhost CPUs=2 State=UNKNOWN
PartitionName=test Nodes=localhost Default=YES MaxTime=10 State=UP
EOF
    export SLURM_CONF="$S/slurm.conf"
    munged --socket="$S/run/munge.sock" --key-file="$S/munge/key" --pid-file="$S/run/munged.pid" \
        --log-file="$S/munged.log" --seed-file="$S/munge/seed" -f
    trap slurm_stop EXIT
    slurmctld -f "$SLURM_CONF" -L "$S/slurmctld.log" -i
    slurmd -f "$SLURM_CONF" -L "$S/slurmd.log"
    i=0
    until sinfo -h -o %t 2>/dev/null | grep -q 'idle'; do
        i=$((i + 1))
        [ $i -lt 60 ] || { tail -n 20 "$S"/*.log; fail "the test cluster did not come up"; }
        sleep 0.5
    done
}

slurm_stop() {
    for p in slurmd slurmctld munged; do
        [ -f "$S/run/$p.pid" ] || continue
        pid=$(cat "$S/run/$p.pid")
        kill "$pid" 2>/dev/null || continue
        i=0   # gone before the test's folder is removed
        while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    done
    true
}

frame_md5s() { ffmpeg -v error -i "$1" -f framemd5 - | grep -v '^#' | cut -d, -f6; }

test_slurm_three_jobs_equal_single_render() {
    # CI runs the suite three times (gcc, clang, sanitizers); the cluster once.
    [ -n "${WOBBLE_SLURM_DONE:-}" ] && return 0
    slurm_start
    photo_scene f.yaml 2
    mkdir elsewhere
    # Submitted from another folder, with relative paths.
    (cd elsewhere && timeout 300 sh "$ROOT/scripts/slurm-farm.sh" ../f.yaml ../out.mkv --chunks 3 --cpus 1 --wait) > sub ||
        { cat sub; tail -n 30 out.mkv.logs/*.log; fail "the Slurm farm failed"; }
    cat sub
    "$WOBBLE" render f.yaml -o single.mkv -q
    frame_md5s out.mkv > a
    frame_md5s single.mkv > b
    [ "$(wc -l < a)" = 20 ] || fail "the Slurm farm wrote $(wc -l < a) frames"
    cmp -s a b || fail "the Slurm farm's output differs from the single render"
    # Every stage logged; three chunk tasks (0, 1 and 2), one a log.
    for f in out.mkv.logs/*.log; do [ -s "$f" ] || fail "$f is empty"; done
    [ "$(ls out.mkv.logs | grep -c '^chunk-.*_[012]\.log$')" = 3 ] || fail "chunk logs: $(ls out.mkv.logs)"
    [ -e out.mkv.farm ] && fail "work folder left behind"
    true
}

# A stand-in for sbatch that runs each job at once, in order, with the
# array's task ids; FAIL_TASK=K makes task K fail.  Records its arguments.
fake_sbatch() {
    mkdir -p bin
    cat > bin/sbatch <<'SH'
#!/bin/sh
echo "$*" >> "$SBATCH_LOG"
array=""; wrap=""; log=""
while [ $# -gt 0 ]; do
    case "$1" in
        --array=*) array=${1#--array=} ;;
        --output=*) log=${1#--output=} ;;
        --wrap) wrap=$2; shift ;;
    esac
    shift
done
id=$(($(wc -l < "$SBATCH_LOG") + 100))
echo "$id"
case "$array" in "") tasks=x ;; *-*) tasks=$(seq "${array%-*}" "${array#*-}") ;; *) tasks=$array ;; esac
for t in $tasks; do
    l=$(echo "$log" | sed "s/%A/$id/; s/%a/$t/; s/%j/$id/")
    [ "$t" = "${FAIL_TASK:-}" ] && { echo failed > "$l"; continue; }
    SLURM_ARRAY_TASK_ID=$t sh -c "$wrap" > "$l" 2>&1 || true
done
SH
    chmod +x bin/sbatch
    export SBATCH_LOG=$PWD/sbatch.log PATH=$PWD/bin:$PATH
}

# Resubmitting a failed task renders that chunk of the plan: the count is
# the plan's, not the new submission's.
test_slurm_rerun_keeps_the_chunk_count() {
    fake_sbatch
    photo_scene f.yaml 2
    FAIL_TASK=1 sh "$ROOT/scripts/slurm-farm.sh" f.yaml out.mkv --chunks 3 > sub
    [ -e out.mkv ] && fail "joined without chunk 1"
    grep -q 'missing frames 6-12' out.mkv.logs/join-*.log || fail "join log: $(cat out.mkv.logs/join-*.log)"
    grep -q -e '--array=0-2' sbatch.log || fail "array: $(cat sbatch.log)"
    sh "$ROOT/scripts/slurm-farm.sh" rerun out.mkv 1 > sub2
    tail -n 2 sbatch.log | head -n 1 | grep -q -e '--array=1 ' || fail "rerun: $(tail -n 2 sbatch.log)"
    "$WOBBLE" render f.yaml -o single.mkv -q
    frame_md5s out.mkv > a
    frame_md5s single.mkv > b
    cmp -s a b || fail "the rerun farm differs from the single render"
}
