#!/usr/bin/env bash
# `cutune run <op>` on one GPU against `--device all` on every GPU of the machine, at equal
# GPU-seconds (MULTI_TIME seconds for the one, MULTI_TIME / N for the N), each from a fresh
# database and a cold kernel cache; in the run on all GPUs, one worker is killed KILL_AT
# seconds in (the run must go on and lose only that worker's trial in flight). Prints a
# table per size: each run's best and its ratio to the run's own cuBLAS yardstick.
#   scripts/multi-gpu.sh [OP]      (MULTI_TIME default 240, KILL_AT default 30)
set -u
root=$(pwd)
b=$root/build
out=${OUT:-$root/gpu-out}
op=${1:-matmul}
dir=$(mktemp -d)
mkdir -p "$out"
export NVIDIA_TF32_OVERRIDE=0
for lib in libcublas.so.13 libcublasLt.so.13; do
    if ! ldconfig -p | grep -q "$lib"; then
        d=$(find / -name "$lib*" -not -path "*/proc/*" 2>/dev/null | head -1)
        [ -n "$d" ] && export LD_LIBRARY_PATH=$(dirname "$d")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    fi
done
n=$(nvidia-smi -L | wc -l)
t1=${MULTI_TIME:-240}
tn=$(( t1 / n ))
nvidia-smi -L | tee "$out/gpus.txt"

timed_run() { # NAME TIME DEVICE
    local t0 t1_
    t0=$(date +%s.%N)
    CUTUNE_CACHE_DIR=$dir/cache-$1 "$b/cli/cutune" run "$op" --device "$3" --time "$2" \
        --db "$dir/$1.db" --json > "$out/$1.jsonl" 2> "$out/$1.err"
    echo "$1: exit $? wall $(awk "BEGIN{print $(date +%s.%N) - $t0}") s" | tee -a "$out/walls.txt"
}
timed_run one "$t1" 0
timed_run all "$tn" all &
runner=$!
sleep "${KILL_AT:-30}"
victim=$(pgrep -n -f cutune-worker)
[ -n "$victim" ] && kill -9 "$victim" && echo "killed worker $victim at ${KILL_AT:-30} s" | tee -a "$out/walls.txt"
wait $runner
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
def load(name):
    ev = [json.loads(l) for l in open("%s/%s.jsonl" % (out, name))]
    s = [e for e in ev if e["event"] == "summary"][-1]
    t = [e for e in ev if e["event"] == "trial"]
    return s, t
s1, t1 = load("one")
sn, tn = load("all")
print(open(out + "/walls.txt").read().strip())
print("one GPU: %d measurements, %s; all GPUs (%d): %d measurements, %d crashed, %s" % (
    len(t1), s1["device"], sn.get("ngpus", 0) or 0, len(tn),
    sum(1 for x in tn if x["status"] == "crashed"), sn["device"]))
by = {z["size"]: z for z in sn["sizes"]}
print("%-18s %10s %8s %10s %8s %9s" % ("size", "one ms", "vs yard", "all ms", "vs yard", "all/one"))
for z in s1["sizes"]:
    a = by.get(z["size"], {})
    r = lambda x: "%.3f" % (x["yardstick_ms"] / x["best_ms"]) if x.get("yardstick_ms") and x.get("best_ms") else "-"
    print("%-18s %10.4f %8s %10.4f %8s %9.3f" % (z["size"], z["best_ms"] or 0, r(z), a.get("best_ms") or 0, r(a),
          (z["best_ms"] / a["best_ms"]) if a.get("best_ms") and z["best_ms"] else 0))
PY
