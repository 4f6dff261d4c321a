#!/usr/bin/env bash
# `cutune run <op>` on 1 GPU, on 2, and on every GPU of the machine (`--device all`), each from
# a fresh database and a cold kernel cache and left to end by itself; then one more run on all
# GPUs in which one worker is killed KILL_AT seconds in (the run must go on and lose only that
# worker's trial in flight). Prints each run's wall time and speedup over 1 GPU, its
# measurements, where each GPU's time went (the run's per-GPU table), and per size each run's
# best with its ratio to the run's own yardstick (cuBLAS for matmul).
#   scripts/multi-gpu.sh [OP]
#   JOB=llm   the larger job instead of the op's default sizes: 30 GEMMs of a 7B and a 70B
#             language model at batch 1, 16 and 2048 (matmul only), on 1 GPU and on all
#   MULTI_TIME  --time of every run (default: none given, the run's default budget)
#   KILL_AT     seconds into the kill run (default 30; 0: no kill run)
#   DTYPE       --dtype of every run (default: as the sizes say, fp32)
#   LAYOUT      --layout of every run (default: as the sizes say, nn)
#   RUNS        which of the runs (default "one two all"; "all" runs only on more than 2 GPUs)
#   BUILD       the build tree whose cli/cutune runs (default ./build): another commit's, to
#               compare two on one machine
# Output in $OUT (default ./gpu-out): walls.txt, per run NAME.jsonl (run --json) and NAME.err.
set -u
root=$(pwd)
b=${BUILD:-$root/build}
out=${OUT:-$root/gpu-out}
op=${1:-matmul}
dir=$(mktemp -d)
mkdir -p "$out"
: >"$out/walls.txt"
export NVIDIA_TF32_OVERRIDE=0
for lib in libcublas.so.13 libcublasLt.so.13; do
    if ! ldconfig -p | grep -q "$lib"; then
        d=$(find / -name "$lib*" -not -path "*/proc/*" 2>/dev/null | head -1)
        [ -n "$d" ] && export LD_LIBRARY_PATH=$(dirname "$d")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    fi
done
n=$(nvidia-smi -L | wc -l)
nvidia-smi -L | tee "$out/gpus.txt"
nproc | sed 's/^/CPU cores: /' | tee -a "$out/gpus.txt"

args=()
[ -n "${MULTI_TIME:-}" ] && args+=(--time "$MULTI_TIME")
[ -n "${DTYPE:-}" ] && args+=(--dtype "$DTYPE")
[ -n "${LAYOUT:-}" ] && args+=(--layout "$LAYOUT")
if [ "${JOB:-}" = llm ]; then
    # (N, K) of the GEMMs of a layer: fused QKV, attention out, gate/up, down; and the LM head
    for m in 1 16 2048; do
        for nk in 12288x4096 4096x4096 11008x4096 4096x11008 32000x4096 \
            10240x8192 8192x8192 28672x8192 8192x28672 32000x8192; do
            args+=(--size "${m}x${nk}")
        done
    done
fi

timed_run() { # NAME DEVICE [KILL_AT]: a fresh database and kernel cache
    local t0 pid victim
    t0=$(date +%s.%N)
    CUTUNE_CACHE_DIR=$dir/cache-$1 "$b/cli/cutune" run "$op" --device "$2" "${args[@]}" \
        --db "$dir/$1.db" --json >"$out/$1.jsonl" 2>"$out/$1.err" &
    pid=$!
    if [ -n "${3:-}" ]; then
        sleep "$3"
        # the newest child that holds a GPU open: a GPU worker, not one of the compile
        # processes (cutune-worker too, opening no device), whose loss costs no trial
        victim=
        for c in $(pgrep -P "$pid" | sort -rn); do
            if ls -l /proc/"$c"/fd 2>/dev/null | grep -q '/dev/nvidia[0-9]'; then
                victim=$c
                break
            fi
        done
        [ -n "$victim" ] && kill -9 "$victim" &&
            echo "$1: killed GPU worker $victim at $3 s" | tee -a "$out/walls.txt"
    fi
    wait "$pid"
    echo "$1: exit $? wall $(awk "BEGIN{print $(date +%s.%N) - $t0}") s" | tee -a "$out/walls.txt"
}
want=" ${RUNS:-one two all} "
runs=()
if [[ $want == *" one "* ]]; then
    timed_run one 0
    runs+=(one)
fi
if [ "$n" -ge 2 ] && [[ $want == *" two "* ]]; then
    timed_run two 0,1
    runs+=(two)
fi
if [ "$n" -gt 2 ] && [[ $want == *" all "* ]]; then
    timed_run all all
    runs+=(all)
fi
if [ "${KILL_AT:-30}" != 0 ] && [ "$n" -ge 2 ]; then
    timed_run kill all "${KILL_AT:-30}"
    runs+=(kill)
fi

python3 - "$out" "${runs[@]}" <<'PY'
import json, re, sys
out, names = sys.argv[1], sys.argv[2:]
walls = {}
for line in open(out + "/walls.txt"):
    m = re.match(r"(\w+): exit (\d+) wall ([0-9.]+) s", line)
    if m:
        walls[m.group(1)] = (int(m.group(2)), float(m.group(3)))
runs = {}
for name in names:
    ev = [json.loads(l) for l in open("%s/%s.jsonl" % (out, name)) if l.startswith("{")]
    s = [e for e in ev if e["event"] == "summary"]
    runs[name] = (s[-1] if s else {}, [e for e in ev if e["event"] == "trial"])
print(open(out + "/walls.txt").read().strip())
w1 = walls.get("one", (0, 0))[1]
print("\n%-5s %5s %5s %8s %7s %13s %8s %8s" % ("run", "GPUs", "exit", "wall s", "speedup", "measurements",
                                             "re-times", "crashed"))
for name in names:
    s, t = runs[name]
    rc, w = walls.get(name, (-1, 0))
    print("%-5s %5s %5d %8.1f %7s %13d %8d %8d" % (
        name, s.get("ngpus", "?"), rc, w, "%.2fx" % (w1 / w) if w and w1 else "-",
        sum(x["phase"] != "re-time" for x in t), sum(x["phase"] == "re-time" for x in t),
        sum(x["status"] == "crashed" for x in t)))
for name in names:
    s, _ = runs[name]
    if not s.get("gpus"):
        continue
    print("\nwhere the time went, run %s (wall %.1f s; busy: all but idle)" % (name, s["wall_s"]))
    print("%-4s %5s %8s %8s %8s %8s %8s %8s %6s %9s %6s %7s" % ("GPU", "sizes", "measure", "re-time",
          "compile", "setup", "other", "idle", "busy", "NVRTC cpu", "trials", "crashed"))
    for g in s["gpus"]:
        setup = g.get("setup_s", 0)
        busy = g["measure_s"] + g["retime_s"] + g["compile_wait_s"] + setup + g["other_s"]
        print("%-4d %5d %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f %5.0f%% %9.1f %6d %7d%s" % (
            g["device"], g["sizes"], g["measure_s"], g["retime_s"], g["compile_wait_s"], setup, g["other_s"],
            g["idle_s"], 100 * busy / (busy + g["idle_s"]) if busy + g["idle_s"] > 0 else 0,
            g["compile_cpu_s"], g["trials"], g["crashed"], "  lost" if g["lost"] else ""))
    if s.get("compiled_ahead"):
        print("compiled ahead on idle compile threads: %d configs, %.1f s of NVRTC cpu" % (
            s["compiled_ahead"], s.get("compile_ahead_cpu_s", 0)))
print("\nquality per size: best ms, and the yardstick's time over the best's, both re-timed back to back at the size's end (> 1: faster than it)")
print("%-22s" % "size" + "".join("%12s %7s" % (n + " ms", "vs yard") for n in names))
base = runs[names[0]][0].get("sizes", [])
for z in base:
    row = "%-22s" % z["size"]
    for name in names:
        a = {x["size"]: x for x in runs[name][0].get("sizes", [])}.get(z["size"], {})
        ratio = "%.3f" % a["vs_yardstick"] if a.get("vs_yardstick") else "-"
        row += "%12.4f %7s" % (a.get("best_ms") or 0, ratio)
    print(row)
PY
rm -rf "$dir"
