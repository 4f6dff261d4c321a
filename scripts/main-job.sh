#!/usr/bin/env bash
# The product's headline on the GPU machine: `cutune run <op> --device 0` with no other flag
# (but --json, for the quality-against-time curve), from a fresh database and a cold kernel
# cache; then the identical command again; then the best configs known from the long
# searches of bench/RESULTS.md re-timed in a database of their own; then bench_matmul
# (cuBLAS in the same process) on the main database. Run from the repository root with the
# build in ./build.
#
#   scripts/main-job.sh start [OP]   start the main job in the background (a device call
#                                    may be shorter than the run's 10 minutes), wait up to
#                                    MAIN_WAIT seconds (default 540) for it
#   scripts/main-job.sh wait         wait for it to end (up to MAIN_WAIT seconds)
#   scripts/main-job.sh finish [OP]  the second run, the known bests, bench_matmul; copies
#                                    everything to $OUT and prints a table
#
# MAIN_ARGS adds flags to the first run (for an ablation: --warm-start db); MAIN_DIR is where
# the run keeps its files between calls (default /tmp/cutune-main).
set -u
root=$(pwd)
b=$root/build
dir=${MAIN_DIR:-/tmp/cutune-main}
out=${OUT:-$root/gpu-out}
export NVIDIA_TF32_OVERRIDE=0
export CUTUNE_CACHE_DIR=$dir/kcache
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

case $cmd in
start)
    for lib in libcublas.so.13 libcublasLt.so.13; do # for bench_matmul, later
        ldconfig -p | grep -q "$lib" || true
    done
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
        for lib in libcublas.so.13 libcublasLt.so.13; do
            if ! ldconfig -p | grep -q "$lib"; then
                d=$(find / -name "$lib*" -not -path "*/proc/*" 2>/dev/null | head -1)
                [ -n "$d" ] && export LD_LIBRARY_PATH=$(dirname "$d")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
            fi
        done
        sizes=$(python3 -c "
import json
for l in open('$dir/run1.jsonl'):
    e = json.loads(l)
    if e['event'] == 'summary':
        print(' '.join(s['size'] for s in e['sizes']))")
        "$b/bench/bench_matmul" --db "$dir/main.db" $sizes > "$dir/bench.log" 2>&1
    fi
    python3 "$root/bench/main_job_table.py" "$dir" "$op" | tee "$dir/table.txt"
    for f in run1.jsonl run1.err run2.out known.out bench.log table.txt gpu.txt; do
        [ -f "$dir/$f" ] && cp "$dir/$f" "$out/"
    done
    cp "$dir/main.db" "$out/main.db"
    ;;
*)
    echo "usage: $0 start|wait|finish [OP]"
    exit 2
    ;;
esac
