#!/usr/bin/env bash
# examples/slurm against a real Slurm: a single-node cluster (munged, slurmctld, slurmd, all
# started here in a temporary folder, with four fake GPUs as gres) runs
# examples/slurm/submit.sh: a job array of four shards of `cutune run axpy` with the fake
# worker (tests/fake_worker.c: real trials, no GPU), one GPU per task, then the dependent
# merge job. Checked: every task and the merge completed, each size was tuned by exactly one
# shard, every shard's trials are in the merged database once, and its best per size is the
# fastest verified trial of any shard. Then a shard stopped by SIGTERM (as the time limit
# stops it) still saves what it measured, whole, to the shared folder; and in an array with
# one shard cancelled (scancel) mid-run the merge still runs and names it, and the same
# array submitted again tunes only what is missing. Exits 77 (skipped)
# where Slurm is not installed or cannot start. Not in the default suite (meson test --suite
# slurm).
#
#   test_slurm.sh CUTUNE_EXE FAKE_WORKER SOURCE_ROOT
set -u
exe=$(realpath "$1") fake=$(realpath "$2") src=$(realpath "$3")
for cmd in munged slurmctld slurmd sbatch squeue scontrol sinfo python3; do
    command -v "$cmd" >/dev/null 2>&1 || { echo "slurm: $cmd not found: skipped (apt-get install slurm-wlm munge)"; exit 77; }
done
tmp=$(mktemp -d /tmp/cutune-slurm.XXXXXX)
pids=()
array= merge=
cleanup() {
    [ -n "$array$merge" ] && scancel $array $merge 2>/dev/null # this test's own cluster
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
    for p in "${pids[@]}"; do
        for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    done
    rm -rf "$tmp"
}
trap cleanup EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
skip() { echo "slurm: $*: skipped"; for f in "$tmp"/*.log; do echo "--- $f"; tail -n 5 "$f"; done; exit 77; }

# --- a cluster of one node, said to have 16 CPUs (the example asks 8 a task) and 4 GPUs
host=$(hostname -s)
user=$(id -un)
read -r port1 port2 < <(python3 -c 'import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
head -c 1024 /dev/urandom >"$tmp/munge.key" && chmod 400 "$tmp/munge.key"
munged -F -f --socket="$tmp/munge.sock" --key-file="$tmp/munge.key" --log-file="$tmp/munged.log" \
    --pid-file="$tmp/munged.pid" --seed-file="$tmp/munged.seed" >>"$tmp/munged.log" 2>&1 &
pids+=($!)
mkdir -p "$tmp/state" "$tmp/spool" "$tmp/shards" "$tmp/local"
for i in 0 1 2 3; do ln -s /dev/null "$tmp/gpu$i"; done # gres needs device files
cat >"$tmp/slurm.conf" <<EOF
ClusterName=cutunetest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
AuthInfo=socket=$tmp/munge.sock
CredType=cred/munge
SlurmctldPort=$port1
SlurmdPort=$port2
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
PlugStackConfig=$tmp/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
GresTypes=gpu
SlurmdParameters=config_overrides
NodeName=$host NodeAddr=127.0.0.1 CPUs=16 RealMemory=1000 Gres=gpu:4 State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
echo "NodeName=$host Name=gpu File=$tmp/gpu[0-3]" >"$tmp/gres.conf"
: >"$tmp/plugstack.conf"
export SLURM_CONF=$tmp/slurm.conf
for _ in $(seq 50); do [ -S "$tmp/munge.sock" ] && break; sleep 0.1; done
[ -S "$tmp/munge.sock" ] || skip "munged did not start"
slurmctld -D -f "$SLURM_CONF" >>"$tmp/slurmctld.log" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" >>"$tmp/slurmd.log" 2>&1 &
pids+=($!)
state=
for _ in $(seq 150); do
    state=$(sinfo -h -o %t 2>/dev/null)
    [ "$state" = idle ] && break
    sleep 0.2
done
[ "$state" = idle ] || skip "the node did not come up (state '$state')"

# --- the array of shards and the merge, as a user submits them
start=$(date +%s)
export CUTUNE="$exe" CUTUNE_WORKER="$fake" CUTUNE_SHARD_DIR="$tmp/shards" TMPDIR="$tmp/local"
unset CUTUNE_FAKE_RULES CUTUNE_FAKE_LOG
sizes=(4096 8192 16384 32768 65536 131072)
args=()
for s in "${sizes[@]}"; do args+=(--size "$s"); done
(cd "$tmp" && "$src/examples/slurm/submit.sh" 4 axpy "${args[@]}" --max-seconds 0.05) \
    >"$tmp/submit.out" 2>&1 || { cat "$tmp/submit.out"; bad "submit.sh failed"; exit 1; }
read -r array merge <"$tmp/shards/jobs"
trials_on_node() { # SHARD: waits up to 30 s for a trial in SHARD.db on the node's disk; prints its trials
    local db n=0
    for _ in $(seq 300); do
        db=$(find "$tmp/local" -name "$1.db" 2>/dev/null | head -1)
        [ -n "$db" ] && n=$(python3 -c 'import sqlite3, sys
try:
    print(sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True).execute("SELECT count(*) FROM trials").fetchone()[0])
except sqlite3.Error:  # not created whole yet
    print(0)' "$db")
        [ "$n" -gt 0 ] && break
        sleep 0.1
    done
    echo "$n"
}
job_state() { scontrol show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | sort -u | tr '\n' ' '; }
final=
for _ in $(seq 360); do
    final=$(job_state "$merge")
    case "$final" in *COMPLETED* | *FAILED* | *CANCELLED* | *TIMEOUT* | *NODE_FAIL* | *OUT_OF_MEMORY*) break ;; esac
    sleep 0.5
done
echo "slurm: the array and the merge took $(($(date +%s) - start)) s"
[ "$final" = "COMPLETED " ] || bad "the merge job ended '$final' (want COMPLETED)"
tasks=$(job_state "$array")
[ "$tasks" = "COMPLETED " ] || bad "the array's tasks ended '$tasks'"
if [ $fail != 0 ]; then
    scontrol show job "$array" "$merge" | grep -E "JobId|JobState|Reason"
    for f in "$tmp"/shards/*.out "$tmp"/slurm*.log; do echo "--- $f"; tail -n 20 "$f"; done
    exit 1
fi
grep -q "gpu\|GPU [0-9]" "$tmp/shards/shard-0.out" || bad "a shard's log does not name its GPU"

# --- the databases
PYTHONPATH="$src/tests" python3 - "$tmp/shards" "${sizes[@]}" <<'EOF' || fail=1
import sys
from checks import Checks, rows
d, sizes = sys.argv[1], sys.argv[2:]
check = Checks()
TRIALS = ("SELECT r.uuid, p.size, t.config, t.status, t.median_ms, t.created_at FROM trials t"
          " JOIN problems p ON p.id = t.problem_id JOIN runs r ON r.id = t.run_id")
shards = ["%s/shard-%d.db" % (d, i) for i in range(4)]
merged = "%s/merged.db" % d
owners = {}
union = []
for i, s in enumerate(shards):
    ts = rows(s, TRIALS)
    union += ts
    for size in set(t[1] for t in ts):
        owners.setdefault(size, []).append(i)
    check(rows(s, "SELECT count(*) FROM runs WHERE status = 'done'") == [(1,)], "shard %d: one run, done" % i)
check(sorted(owners) == sorted(sizes) and all(len(v) == 1 for v in owners.values()),
      "each size tuned by exactly one shard: %s" % owners)
check(sorted(sum(1 for v in owners.values() if v == [i]) for i in range(4)) == [1, 1, 2, 2],
      "6 sizes over 4 shards: 2, 2, 1 and 1")
m = rows(merged, TRIALS)
# each trial as many times as the shards hold it: a size's best re-timed beside the
# yardstick in the same second, at the fake worker's fixed time, is two equal rows
check(sorted(m) == sorted(union),
      "merged: %d trials, the shards hold %d; each as often" % (len(m), len(union)))
check(rows(merged, "PRAGMA integrity_check") == [("ok",)], "merged database integrity")
check(rows(merged, "SELECT count(*) FROM runs") == [(4,)], "merged: the 4 shards' runs")
want = {}
for t in union:
    if t[3] == "ok" and (t[1] not in want or t[4] < want[t[1]][1]):
        want[t[1]] = (t[2], t[4])
got = {r[0]: (r[1], r[2]) for r in rows(merged, "SELECT size, config, median_ms FROM best_configs")}
check(got == want, "merged best per size:\n  got  %s\n  want %s" % (sorted(got.items()), sorted(want.items())))
print("slurm: %d shards, %d trials merged, %d bests checked" % (len(shards), len(m), len(got)))
sys.exit(1 if check.failures else 0)
EOF
# --- a shard stopped as the time limit stops it (SIGTERM to the job's processes): cutune
# keeps what it measured, and the script still copies the database to the shared folder.
# Each evaluation takes 200 ms here, so that the run is still going when it is stopped.
export CUTUNE_SHARD_DIR="$tmp/stopped"
mkdir -p "$CUTUNE_SHARD_DIR"
long=()
for s in $(seq 20); do long+=(--size $((4096 * s))); done
stopped=$(cd "$tmp" && CUTUNE_FAKE_DELAY_MS=200 sbatch --parsable --array=0-0 --output="$CUTUNE_SHARD_DIR/shard-%a.out" \
    "$src/examples/slurm/cutune-shard.sbatch" axpy "${long[@]}" --max-seconds 0.05)
stopped=${stopped%%;*}
measured=$(trials_on_node shard-0)
[ "$measured" -gt 0 ] || bad "the shard to stop measured nothing in 30 s: $(find "$tmp/local")"
scancel --full --signal=TERM "${stopped}_0"
for _ in $(seq 300); do
    case "$(job_state "$stopped")" in *PENDING* | *RUNNING* | *COMPLETING* | "") sleep 0.1 ;; *) break ;; esac
done
python3 - "$CUTUNE_SHARD_DIR/shard-0.db" <<'EOF2' || bad "the stopped shard's database was not saved whole"
import sqlite3, sys
con = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
n = con.execute("SELECT count(*) FROM trials").fetchone()[0]
st = con.execute("SELECT status FROM runs").fetchall()
ok = con.execute("PRAGMA integrity_check").fetchone()[0]
print("slurm: the stopped shard saved %d trials, run %s, integrity %s" % (n, st, ok))
sys.exit(0 if n > 0 and st == [("interrupted",)] and ok == "ok" else 1)
EOF2
grep -q "ended with exit code 130" "$CUTUNE_SHARD_DIR/shard-0.out" ||
    { bad "the stopped shard did not end with cutune's 130"; tail -n 5 "$CUTUNE_SHARD_DIR/shard-0.out"; }
[ -z "$(ls -A "$tmp/local")" ] || bad "the shards left files on the node's disk: $(ls "$tmp/local")"

# --- one shard of an array cancelled mid-run (scancel): the merge, which waits with afterany,
# still runs, merges both shards and names the one that stopped early; the same array
# submitted again (same folder, same options) tunes only what is missing. Evaluations take
# 100 ms in the first submission, so that shard 1 is still running when it is cancelled.
export CUTUNE_SHARD_DIR="$tmp/cancel"
mkdir -p "$CUTUNE_SHARD_DIR"
csizes=()
for s in $(seq 12); do csizes+=(--size $((4096 * s))); done
submit() {
    (cd "$tmp" && "$src/examples/slurm/submit.sh" 2 axpy "${csizes[@]}" --max-seconds 0.05) \
        >>"$tmp/cancel-submit.out" 2>&1 || { cat "$tmp/cancel-submit.out"; bad "submit.sh failed"; }
    read -r carray cmerge <"$CUTUNE_SHARD_DIR/jobs"
}
wait_job() { # JOB: until it has ended; prints its final state
    local st=
    for _ in $(seq 600); do
        st=$(job_state "$1")
        case "$st" in *PENDING* | *RUNNING* | *COMPLETING* | *CONFIGURING* | "") sleep 0.2 ;; *) break ;; esac
    done
    echo "$st"
}
CUTUNE_FAKE_DELAY_MS=100 submit
measured=$(trials_on_node shard-1)
[ "$measured" -gt 0 ] || bad "shard 1 measured nothing in 30 s"
scancel "${carray}_1"
cfinal=$(wait_job "$cmerge")
[ "$cfinal" = "COMPLETED " ] || bad "after scancel of one shard the merge ended '$cfinal' (want COMPLETED)"
grep -q "shard 1 (exit code .*) stopped early" "$CUTUNE_SHARD_DIR/merge.out" ||
    bad "the merge did not say that shard 1 stopped early: $(cat "$CUTUNE_SHARD_DIR/merge.out")"
grep -q "shard 0 .*stopped early" "$CUTUNE_SHARD_DIR/merge.out" &&
    bad "the merge says shard 0, which finished, stopped early"
[ "$(job_state "${carray}_1")" = "CANCELLED " ] || bad "shard 1 ended '$(job_state "${carray}_1")', not CANCELLED"
# the same array again, evaluations at full speed: only what shard 1 had not finished
CUTUNE_FAKE_DELAY_MS=0 submit
cfinal=$(wait_job "$cmerge")
[ "$cfinal" = "COMPLETED " ] || bad "the second merge ended '$cfinal'"
grep -q "stopped early\|missing" "$CUTUNE_SHARD_DIR/merge.out" &&
    bad "the second merge still finds shards missing or stopped: $(cat "$CUTUNE_SHARD_DIR/merge.out")"
PYTHONPATH="$src/tests" python3 - "$CUTUNE_SHARD_DIR" "${#csizes[@]}" <<'EOF3' || fail=1
import sys
from checks import Checks, rows
d, nsizes = sys.argv[1], int(sys.argv[2]) // 2
check = Checks()
PER_RUN = ("SELECT r.id, r.status, count(t.id) FROM runs r LEFT JOIN trials t ON t.run_id = r.id"
           " GROUP BY r.id ORDER BY r.id")
s0, s1 = rows(d + "/shard-0.db", PER_RUN), rows(d + "/shard-1.db", PER_RUN)
print("slurm: trials per run of shard 0 %s, of shard 1 %s" % (s0, s1))
check(len(s1) == 2 and s1[0][1] == "interrupted" and s1[0][2] > 0 and s1[1][1] == "done",
      "shard 1 was interrupted with its trials kept, then finished: %s" % s1)
# a size that an earlier run finished is not searched again: its best is only re-timed (one
# trial, no search); the others are searched
SEARCHED_AGAIN = ("SELECT count(*) FROM searches a JOIN searches b ON a.problem_id = b.problem_id"
                  " AND a.variant_id = b.variant_id AND a.run_id < b.run_id WHERE a.status = 'done'")
RETIMES = ("SELECT count(*) FROM trials t WHERE t.run_id = 2 AND NOT EXISTS (SELECT 1 FROM"
           " searches s WHERE s.run_id = 2 AND s.problem_id = t.problem_id)")
SEARCHED = "SELECT count(*) FROM searches WHERE run_id = %d"
for i in (0, 1):
    db = "%s/shard-%d.db" % (d, i)
    check(rows(db, SEARCHED_AGAIN) == [(0,)], "shard %d searched a finished size again" % i)
    first = rows(db, "SELECT count(*) FROM searches WHERE run_id = 1 AND status = 'done'")[0][0]
    check(rows(db, RETIMES)[0][0] <= first, "shard %d: more than one re-time per finished size" % i)
check(rows(d + "/shard-0.db", SEARCHED % 2) == [(0,)], "shard 0 finished, yet was searched again")
check(rows(d + "/shard-1.db", SEARCHED % 2)[0][0] > 0, "shard 1's second run searched nothing")
merged = d + "/merged.db"
done = rows(merged, "SELECT count(DISTINCT problem_id) FROM searches WHERE status = 'done'")[0][0]
check(done == nsizes, "merged: %d sizes with a finished search, want %d" % (done, nsizes))
check(rows(merged, "SELECT count(*) FROM runs") == [(4,)], "merged: 2 runs of each shard")
n = sum(r[2] for r in s0 + s1)
check(rows(merged, "SELECT count(*) FROM trials") == [(n,)], "merged: every shard's %d trials once" % n)
sys.exit(1 if check.failures else 0)
EOF3

[ $fail = 0 ] && echo "slurm: ok" || echo "slurm: FAILED"
exit $fail
