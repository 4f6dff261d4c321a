#!/usr/bin/env bash
# The product's headline on the GPU machine: `cutune run <op> --device 0` with no other flag
# (but --json, for the quality-against-time curve), from a fresh database and a cold kernel
# cache (cutune's and the CUDA driver's compute cache, ~/.nv/ComputeCache, where NVRTC 12.9+
# keeps a cache of its own when CUTUNE_NVRTC_CACHE=1 turns it on for cutune's compiles);
# then the identical command again; then the best configs known from the long searches of
# bench/RESULTS.md re-timed in a database of their own; then bench_matmul (cuBLAS in the same
# process) on the main database. Run from the repository root with the build in ./build.
#
#   scripts/main-job.sh start [OP]   start the main job in the background (a device call
#                                    may be shorter than the run's 10 minutes), wait up to
#                                    MAIN_WAIT seconds (default 540) for it
#   scripts/main-job.sh wait         wait for it to end (up to MAIN_WAIT seconds)
#   scripts/main-job.sh finish [OP]  the second run, the known bests, bench_matmul; copies
#                                    everything to $OUT and prints a table
#   scripts/main-job.sh memory       the main job of each memory-bound op (MEMORY_OPS), each
#                                    against its yardstick
#
# MAIN_ARGS adds flags to the first run (for an ablation: --warm-start db); MAIN_DIR is where
# the run keeps its files between calls (default /tmp/cutune-main); MAIN_NVCACHE names another
# driver compute cache than the fresh $MAIN_DIR/nvcache (to measure a warm one).
set -u
root=$(pwd)
b=$root/build
dir=${MAIN_DIR:-/tmp/cutune-main}
out=${OUT:-$root/gpu-out}
export NVIDIA_TF32_OVERRIDE=0
export CUTUNE_CACHE_DIR=$dir/kcache
# NVRTC's own cache lives in the driver's compute cache (a second run's compiles took 22-317 ms
# against 1-2 s on an H200, 2026-11-26, before cutune turned it off with -no-cache): give each
# main job a fresh one anyway, so that a second `start` is as cold as the first whatever
# CUTUNE_NVRTC_CACHE says
export CUDA_CACHE_PATH=${MAIN_NVCACHE:-$dir/nvcache}
mkdir -p "$out"
cmd=${1:-start}
op=${2:-matmul}

wait_done() {
    local limit=${MAIN_WAIT:-540} t=0
    while [ ! -f "$dir/done" ] && [ $t -lt "$limit" ]; do
        sleep 5
        t=$((t + 5))
    done
    if [ -f "$dir/done" ]; then
        echo "main job ended: exit $(cat "$dir/done"), wall $(cat "$dir/wall") s"
    else
        echo "main job still running after ${limit} s of waiting: call '$0 wait' again"
    fi
    tail -c 2000 "$dir/run1.err" 2>/dev/null | tr '\r' '\n' | tail -5
}

# cuBLAS (the yardstick in the worker, and bench_matmul) may live inside a Python package
for lib in libcublas.so.13 libcublasLt.so.13; do
    if ! ldconfig -p | grep -q "$lib"; then
        d=$(find / -name "$lib*" -not -path "*/proc/*" 2>/dev/null | head -1)
        [ -n "$d" ] && export LD_LIBRARY_PATH=$(dirname "$d")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    fi
done

case $cmd in
start)
    rm -rf "$dir"
    mkdir -p "$dir"
    nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > "$dir/gpu.txt"
    cat "$dir/gpu.txt"
    # setsid: the run outlives this device call; its wall time is measured around it
    setsid bash -c "t0=\$(date +%s.%N); '$b/cli/cutune' run $op --device 0 --db '$dir/main.db' \
        --json ${MAIN_ARGS:-} > '$dir/run1.jsonl' 2> '$dir/run1.err'; rc=\$?; \
        t1=\$(date +%s.%N); awk \"BEGIN{printf \\\"%.1f\\\", \$t1 - \$t0}\" > '$dir/wall'; \
        echo \$rc > '$dir/done'" < /dev/null > /dev/null 2>&1 &
    sleep 2
    wait_done
    ;;
wait)
    wait_done
    ;;
finish)
    [ -f "$dir/done" ] || { echo "the main job has not ended"; exit 1; }
    t0=$(date +%s.%N)
    "$b/cli/cutune" run "$op" --device 0 --db "$dir/main.db" --no-progress > "$dir/run2.out" 2>&1
    rc2=$?
    t1=$(date +%s.%N)
    awk "BEGIN{printf \"%.1f\", $t1 - $t0}" > "$dir/wall2"
    echo "second run: exit $rc2, wall $(cat "$dir/wall2") s"
    if [ "$op" = matmul ]; then
        # the known bests, each measured at its size into known.db (same process order: after
        # the main job, on the same GPU, in this call)
        while read -r size cfg; do
            case $size in ''|'#'*) continue ;; esac
            "$b/cli/cutune" run matmul --device 0 --variant matmul_async --size "$size" \
                --where "$cfg" --strategy exhaustive --retune --db "$dir/known.db" --no-progress \
                >> "$dir/known.out" 2>&1
        done < "$root/bench/matmul_best_known.txt"
        sizes=$(python3 -c "
import json
for l in open('$dir/run1.jsonl'):
    e = json.loads(l)
    if e['event'] == 'summary':
        print(' '.join(s['size'] for s in e['sizes']))")
        "$b/bench/bench_matmul" --db "$dir/main.db" $sizes > "$dir/bench.log" 2>&1
    fi
    { cat "$dir/gpu.txt"; python3 "$root/bench/main_job_table.py" "$dir" "$op" --svg "$dir/quality.svg"; } |
        tee "$dir/table.txt"
    for f in run1.jsonl run1.err run2.out known.out bench.log table.txt quality.svg; do
        [ -f "$dir/$f" ] && cp "$dir/$f" "$out/"
    done
    cp "$dir/main.db" "$out/main.db"
    ;;
memory)
    # the main job of every memory-bound op, one after another, each from a fresh database
    # and a cold kernel cache; one line per size: its best against the op's yardstick
    rm -rf "$dir/mem" && mkdir -p "$dir/mem"
    for o in ${MEMORY_OPS:-transpose matadd reduce_sum histogram topk}; do
        export CUTUNE_CACHE_DIR=$dir/mem/kcache-$o CUDA_CACHE_PATH=$dir/mem/nvcache-$o
        t0=$(date +%s.%N)
        "$b/cli/cutune" run "$o" --device 0 --db "$dir/mem/$o.db" --json > "$dir/mem/$o.jsonl" \
            2> "$dir/mem/$o.err"
        rc=$?
        t1=$(date +%s.%N)
        python3 - "$dir/mem/$o.jsonl" "$o" "$rc" "$(awk "BEGIN{print $t1 - $t0}")" <<'PY'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
s = [e for e in ev if e["event"] == "summary"]
n = sum(1 for e in ev if e["event"] == "trial")
print("%s: exit %s, wall %.1f s, %d measurements" % (sys.argv[2], sys.argv[3], float(sys.argv[4]), n))
for z in (s[-1]["sizes"] if s else []):
    y = z.get("vs_yardstick")
    print("  %-22s %-20s %9.4f ms  %-14s %s  %s" % (z["size"], z["variant"], z["best_ms"] or 0,
          z.get("yardstick") or "-", ("%.3fx" % y) if y else "-", z["config"]))
PY
    done 2>&1 | tee "$dir/memory.txt"
    cp "$dir/memory.txt" "$out/"
    tar czf "$out/memory-runs.tgz" -C "$dir/mem" $(cd "$dir/mem" && ls *.jsonl *.err)
    ;;
*)
    echo "usage: $0 start|wait|finish|memory [OP]"
    exit 2
    ;;
esac
