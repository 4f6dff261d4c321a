#!/usr/bin/env bash
# `cutune run --device all` on a fake machine of several GPUs (tests/fake_worker.c, whose
# evaluations take CUTUNE_FAKE_DELAY_MS): --device checked before anything starts, 'all' on
# one GPU, 4 GPUs ending the same run well before 1 GPU does with the same trials and the
# same bests, the per-GPU table of where the time went, each GPU re-timing the winners found
# elsewhere before it takes its next size, a worker killed mid-run costing only its trial in
# flight, and a GPU lost for good whose size the others finish. Also (2b) the plan of a run
# with --epilogue bias, which needs a device.
# Usage: test_multi_gpu.sh PATH_TO_CUTUNE PATH_TO_FAKE_WORKER
set -u
exe=$1
export CUTUNE_WORKER=$2
. "$(dirname "$0")/lib.sh"
# a cache of this test's own: the first run fills it, so that the timed runs compile nothing
export CUTUNE_CACHE_DIR=$tmp/cache
sizes=()
for k in 1 2 3 4 5 6 7 8; do sizes+=(--size $((k * 1048576))); done
run() { "$exe" run axpy "${sizes[@]}" --no-progress "$@"; }

# --- 1. --device is checked before anything starts: no database is made
CUTUNE_FAKE_DEVICES=2 expect 2 "names GPU 0 twice" -- run --device 0,0 --db "$tmp/bad.db"
CUTUNE_FAKE_DEVICES=2 expect 2 "there is no GPU 5; this machine has 2" -- run --device 0,5 --db "$tmp/bad.db"
CUTUNE_FAKE_DEVICES=2 expect 2 "there is no GPU 2" -- run --device 2 --db "$tmp/bad.db"
[ -e "$tmp/bad.db" ] && bad "a refused --device made a database"
CUTUNE_FAKE_NO_DEVICE=1 expect 3 "no CUDA driver or device" -- run --device all --db "$tmp/bad.db"

# --- 2. 'all' on a machine of one GPU is --device 0, and says so (this run fills the cache)
CUTUNE_FAKE_DEVICES=1 expect 0 "this machine has one GPU, so the run is the same as --device 0" -- \
    run --device all --db "$tmp/one-gpu.db"
grep -q "^device: cutune fake GPU   run" "$tmp/out" || { bad "'all' on one GPU: not one GPU"; cat "$tmp/out"; }

# --- 2b. (the plan) --epilogue bias over the default sizes: those the op refuses with a bias
# (fp32, matmul_cublaslt's 4096x4096x4096) are left out, as a variant that computes no bias
# is; a size given with --size that the op refuses is an error that says why
CUTUNE_FAKE_DEVICES=1 expect 0 "4096x11008x4096-bf16-nt-bias" -- "$exe" run matmul --variant \
    matmul_cublaslt --epilogue bias --device 0 --budget 1 --no-progress --db "$tmp/bias.db"
[ "$(grep -cE '^[0-9x]+-bf16-nt-bias ' "$tmp/out")" = 8 ] && ! grep -qE '^4096x4096x4096 ' "$tmp/out" ||
    { bad "--epilogue bias: not the 8 bf16 sizes alone"; cat "$tmp/out"; }
CUTUNE_FAKE_DEVICES=1 expect 1 "the bias epilogue is offered in fp16 and bf16" -- "$exe" run matmul \
    --variant matmul_cublaslt --size 64x64x64-bias --device 0 --no-progress --db "$tmp/bias.db"

# --- 3. the same run on 1 and on 4 GPUs, each evaluation 60 ms: 4 end in well under half
# the time (the sizes are shared out whole), with the same search trials and bests
export CUTUNE_FAKE_DELAY_MS=60 CUTUNE_FAKE_SETUP_MS=40 CUTUNE_FAKE_DEVICES=4
timed() { # NAME DEVICE: the run as --json in $tmp/NAME.json, its wall time in $tmp/NAME.wall
    local t0
    t0=$(date +%s.%N)
    run --device "$2" --db "$tmp/$1.db" --json >"$tmp/$1.json" 2>"$tmp/$1.err" ||
        { bad "the run on --device $2 failed"; cat "$tmp/$1.err"; }
    python3 -c "import sys; print(float(sys.argv[2]) - float(sys.argv[1]))" "$t0" "$(date +%s.%N)" >"$tmp/$1.wall"
}
timed one 0
timed four all
grep -q "^GPU  name" "$tmp/four.err" || { bad "no per-GPU table on 4 GPUs"; cat "$tmp/four.err"; }
grep -q "^GPU  name" "$tmp/one.err" && bad "a per-GPU table on one GPU"
python3 - "$tmp" <<'EOF' || fail=1
import json, sys
d = sys.argv[1]
def load(name):
    ev = [json.loads(l) for l in open("%s/%s.json" % (d, name))]
    return ev[-1], [e for e in ev if e["event"] == "trial"], float(open("%s/%s.wall" % (d, name)).read())
s1, t1, w1 = load("one")
s4, t4, w4 = load("four")
ok = True
def need(cond, what):
    global ok
    if not cond:
        print("FAIL: " + what); ok = False
print("1 GPU %.2f s, 4 GPUs %.2f s (%.2fx)" % (w1, w4, w4 / w1))
need(w4 < 0.5 * w1, "4 GPUs took %.2f s, 1 GPU %.2f s: want under half" % (w4, w1))
need(s4["ngpus"] == 4 and len(s4["gpus"]) == 4, "want 4 GPUs in the summary")
search1 = sorted((t["size"], t["config"]) for t in t1 if t["phase"] != "re-time")
search4 = sorted((t["size"], t["config"]) for t in t4 if t["phase"] != "re-time")
need(search1 == search4, "the searches differ: %d trials on 1 GPU, %d on 4" % (len(search1), len(search4)))
# each size's winner re-timed once on each GPU that did not tune it, and twice on the one
# that did (beside the yardstick, at the end of its search)
need(sum(t["phase"] == "re-time" for t in t4) == 5 * 8, "want 40 re-times on 4 GPUs")
need(sum(t["phase"] == "re-time" for t in t1) == 2 * 8, "want 16 re-times on one GPU")
best1 = {z["size"]: (z["config"], z["best_ms"]) for z in s1["sizes"]}
best4 = {z["size"]: (z["config"], z["best_ms"]) for z in s4["sizes"]}
need(best1 == best4, "the bests differ: %s / %s" % (best1, best4))
for g in s4["gpus"]:
    busy = g["measure_s"] + g["retime_s"] + g["compile_wait_s"] + g["setup_s"] + g["other_s"]
    need(abs(busy + g["idle_s"] - s4["wall_s"]) < 0.05 * s4["wall_s"] + 0.1,
         "GPU %d: busy %.2f + idle %.2f is not the wall %.2f" % (g["device"], busy, g["idle_s"], s4["wall_s"]))
    need(g["sizes"] >= 1 and g["trials"] > 0 and g["measure_s"] > 0 and g["retime_s"] > 0,
         "GPU %d did no share of the work: %s" % (g["device"], g))
    # 40 ms a setup: each size it tuned was set up at least once
    need(g["setup_s"] >= 0.8 * 0.04 * g["sizes"],
         "GPU %d: %.2f s of setup for %d sizes" % (g["device"], g["setup_s"], g["sizes"]))
    # 60 ms a trial: its time in the worker is about its trials' delays
    need(0.8 * 0.06 * g["trials"] < g["measure_s"] + g["retime_s"] < 0.06 * g["trials"] + 1,
         "GPU %d: %.2f s in the worker for %d trials" % (g["device"], g["measure_s"] + g["retime_s"], g["trials"]))
need(sum(g["sizes"] for g in s4["gpus"]) == 8, "want every size tuned once")
need(all(isinstance(t.get("device"), int) for t in t4), "a trial without its GPU")
need(sum(g["trials"] for g in s4["gpus"]) == len(t4), "the GPUs' trials do not add up to the run's")
sys.exit(0 if ok else 1)
EOF

# --- 3a. a GPU re-times each winner found elsewhere before it begins its next size: that
# work is its own, and left for the end it made a tail on every GPU. On 2 GPUs, the second
# costliest of 8 sizes takes 5 times as long: GPU 1 tunes it while GPU 0 tunes the largest
# and then the small ones, and GPU 0 re-times it before the next small size it takes. 40 ms
# a trial, so that the fake GPUs' time outweighs the tuner's own on a busy 2-core machine (at
# 20 ms, with a build beside it, GPU 0 had taken every small size before the slow one ended).
CUTUNE_FAKE_DELAY_MS=40 CUTUNE_FAKE_SLOW_SIZE=7340032 run --device 0,1 --db "$tmp/retime.db" \
    --json >"$tmp/retime.json" 2>"$tmp/retime.err" || { bad "the 2-GPU run failed"; cat "$tmp/retime.err"; }
python3 - "$tmp/retime.json" <<'EOF' || fail=1
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
done, began, retimed, tuner = {}, {}, {}, {}
for e in ev:
    if e["event"] == "size":
        done[e["size"]] = e["elapsed_s"]
    elif e["event"] == "trial":
        g, z = e["device"], e["size"]
        if e["phase"] == "re-time":
            retimed.setdefault((g, z), e["elapsed_s"])
        elif z not in tuner:
            tuner[z] = g
            began[z] = e["elapsed_s"]
slow = "7340032"
g = 1 - tuner.get(slow, 0)
# the sizes that GPU g began more than half a second after the slow size was done
after = [z for z, t in began.items() if tuner[z] == g and slow in done and t > done[slow] + 0.5]
if not after:
    print("FAIL: GPU %d began no size after %s was done: %s" % (g, slow, sorted(began.items(), key=lambda x: x[1])))
    sys.exit(1)
if retimed.get((g, slow), float("inf")) > min(began[z] for z in after):
    print("FAIL: GPU %d began %s before it re-timed %s" % (g, after, slow))
    sys.exit(1)
EOF

# --- 3b. the costliest size first: on 2 GPUs, the largest of 7 sizes listed last starts
# before any size is done (taken in the order given, it would start after the first six)
CUTUNE_FAKE_DELAY_MS=20 "$exe" run axpy --size 65536 --size 131072 --size 196608 --size 262144 \
    --size 327680 --size 393216 --size 16777216 --device 0,1 --db "$tmp/order.db" --json \
    --no-progress >"$tmp/order.json" 2>"$tmp/order.err" || { bad "the 7-size run failed"; cat "$tmp/order.err"; }
python3 - "$tmp/order.json" <<'EOF' || fail=1
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
first_big = min(i for i, e in enumerate(ev) if e["event"] == "trial" and e["size"] == "16777216")
first_done = min(i for i, e in enumerate(ev) if e["event"] == "size")
if first_big > first_done:
    print("FAIL: the largest size began after %s was done" % ev[first_done]["size"])
    sys.exit(1)
EOF

# --- 4. a worker killed mid-run (kill -9, as scripts/multi-gpu.sh does) costs its trial in
# flight: recorded crashed, the GPU goes on in a fresh worker, the run ends 0
"$exe" run axpy "${sizes[@]}" --device all --db "$tmp/kill.db" --json >"$tmp/kill.json" 2>"$tmp/kill.err" &
runner=$!
for _ in $(seq 100); do
    [ "$(grep -c '"event": "trial"' "$tmp/kill.json")" -ge 8 ] && break
    sleep 0.1
done
victim=$(pgrep -P $runner -f fake_worker | head -1) # one of the workers, not the tuner
[ -n "$victim" ] && kill -9 "$victim"
wait $runner || { bad "the run with a worker killed exited $?"; cat "$tmp/kill.err"; }
grep -q "going on in a fresh worker" "$tmp/kill.err" || { bad "no note of the killed worker"; cat "$tmp/kill.err"; }
python3 - "$tmp/kill.json" <<'EOF' || fail=1
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
s, t = ev[-1], [e for e in ev if e["event"] == "trial"]
crashed = [e for e in t if e["status"] == "crashed"]
ok = len(crashed) == 1 and "signal 9" in (crashed[0]["message"] or "")
ok = ok and sum(g["crashed"] for g in s["gpus"]) == 1 and s["gpus_lost"] == 0
ok = ok and all(z["best_ms"] for z in s["sizes"]) and len(s["sizes"]) == 8
if not ok:
    print("FAIL: a killed worker: %d crashed trials (%s), gpus %s" % (len(crashed), crashed, s["gpus"]))
sys.exit(0 if ok else 1)
EOF

# --- 5. a GPU lost for good mid-run (its replacement worker cannot open it): its trial in
# flight is recorded crashed, its size goes back to the others, which finish the run
rm -f "$tmp/gone"
CUTUNE_FAKE_GONE=$tmp/gone "$exe" run axpy "${sizes[@]}" --device all --db "$tmp/gone.db" --json \
    >"$tmp/gone.json" 2>"$tmp/gone.err" &
runner=$!
for _ in $(seq 100); do
    [ "$(grep -c '"event": "trial"' "$tmp/gone.json")" -ge 8 ] && break
    sleep 0.1
done
echo 2 >"$tmp/gone"
wait $runner || { bad "the run with GPU 2 lost exited $?"; cat "$tmp/gone.err"; }
grep -q "GPU 2 (cutune fake GPU) stopped: .*the GPU fell off the bus" "$tmp/gone.err" ||
    { bad "no note of GPU 2 lost"; cat "$tmp/gone.err"; }
grep -q "^2 .*(stopped before the end)" "$tmp/gone.err" || { bad "the table does not show GPU 2 stopped"; cat "$tmp/gone.err"; }
python3 - "$tmp/gone.json" <<'EOF' || fail=1
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
s, t = ev[-1], [e for e in ev if e["event"] == "trial"]
crashed = [e for e in t if e["status"] == "crashed"]
ok = len(crashed) == 1 and s["gpus_lost"] == 1 and [g["lost"] for g in s["gpus"]] == [False, False, True, False]
ok = ok and len(s["sizes"]) == 8 and all(z["best_ms"] for z in s["sizes"])
if not ok:
    print("FAIL: GPU 2 lost: %d crashed trials, summary %s" % (len(crashed), s))
sys.exit(0 if ok else 1)
EOF
exit $fail
