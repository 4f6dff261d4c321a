#!/usr/bin/env bash
# Run cutune's GPU work on the GPU machine, from the repository root, with a build made
# elsewhere in ./build (carried along). One call does one or more steps:
#
#   scripts/gpu-check.sh [tests] [smoke] [tune] [bench] ...
#
#   tests  every test program (CPU and GPU), as `meson test` would run them
#          (scripts/run-tests.py; their output goes to $OUT/tests.log)
#   smoke  `cutune run matmul` on one size, and bench_matmul on it
#   tune   `cutune run matmul --device 0` on the default sizes from a fresh database, then
#          the identical command again (it must compile nothing), then `cutune query`
#   bench  bench_matmul on the default sizes against the database of `tune`
#   memory `cutune run OP --device 0` for transpose, matadd, reduce_sum, histogram and topk
#          on their default sizes (8192x8192, 2^28 elements, k = 1024: the issue's) into
#          a fresh memory.db, then bench_memory (CUB and cudaMemcpy) against it
#
# Logs and the database go to $OUT (or ./gpu-out); a short table comes last.
set -u
root=$(pwd)
out=${OUT:-$root/gpu-out}
mkdir -p "$out"
steps=${*:-tests}
b=$root/build
export NVIDIA_TF32_OVERRIDE=0
export CUTUNE_CACHE_DIR=/tmp/cutune-cache
summary=$out/summary.txt
: > "$summary"
note() { echo "$*" | tee -a "$summary"; }

# Libraries the GPU machine may keep elsewhere (cuBLAS inside Python packages).
for lib in libcublas.so.13 libcublasLt.so.13; do
    if ! ldconfig -p | grep -q "$lib"; then
        d=$(find / -name "$lib*" -not -path "*/proc/*" 2>/dev/null | head -1)
        [ -n "$d" ] && export LD_LIBRARY_PATH=$(dirname "$d")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    fi
done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader | tee -a "$summary"
if ldd "$b/cli/cutune" "$b/bench/bench_matmul" "$b/bench/bench_memory" | grep "not found"; then
    note "missing libraries (above)"
fi

run_tests() {
    rm -f "$out/tests.log"
    python3 "$root/scripts/run-tests.py" "$b" "$out/tests.log" | tee -a "$summary"
}

timed() { # timed LABEL LOG command...
    local label=$1 log=$2
    shift 2
    local t0=$(date +%s.%N)
    "$@" > "$log" 2>&1
    local rc=$? t1=$(date +%s.%N)
    note "$(printf '%-28s exit %d  %7.1fs' "$label" $rc "$(awk "BEGIN{print $t1 - $t0}")")"
    return $rc
}

sizes="1000x1000x1000 1024x1024x1024 2048x2048x2048 4096x4096x4096 4096x1024x8192"
for step in $steps; do
    case $step in
    tests) run_tests ;;
    smoke)
        rm -rf "$CUTUNE_CACHE_DIR"
        timed "run matmul 1024 (cold)" "$out/smoke_run.log" \
            "$b/cli/cutune" run matmul --device 0 --size 1024 --db "$out/smoke.db" --no-progress
        tail -6 "$out/smoke_run.log"
        timed "bench 1024" "$out/smoke_bench.log" "$b/bench/bench_matmul" --db "$out/smoke.db" 1024x1024x1024
        cat "$out/smoke_bench.log"
        ;;
    tune)
        rm -rf "$CUTUNE_CACHE_DIR" "$out/tune.db"*
        timed "run matmul (fresh db+cache)" "$out/tune_run1.log" \
            "$b/cli/cutune" run matmul --device 0 --db "$out/tune.db" --no-progress
        timed "run matmul (again)" "$out/tune_run2.log" \
            "$b/cli/cutune" run matmul --device 0 --db "$out/tune.db" --no-progress
        "$b/cli/cutune" query matmul --device 0 --size 4096x4096x4096 --db "$out/tune.db" | tee "$out/query.txt"
        "$b/cli/cutune" query matmul --device 0 --size 4096x4096x4096 --db "$out/tune.db" --json >> "$out/query.txt"
        ;;
    bench)
        db=$out/tune.db
        [ -f "$db" ] || db=$root/.carry/tune.db
        timed "bench_matmul" "$out/bench.log" "$b/bench/bench_matmul" --db "$db" $sizes
        ;;
    memory)
        rm -f "$out/memory.db"*
        for op in transpose matadd reduce_sum histogram topk; do
            timed "run $op" "$out/memory_$op.log" \
                "$b/cli/cutune" run $op --device 0 --db "$out/memory.db" --no-progress
            sed -n '/^device:/,$p' "$out/memory_$op.log"
        done
        timed "bench_memory" "$out/bench_memory.log" "$b/bench/bench_memory" --db "$out/memory.db"
        ;;
    *) echo "unknown step $step"; exit 2 ;;
    esac
done

echo
echo "=============== summary ==============="
cat "$summary"
for f in tune_run1 tune_run2; do
    [ -f "$out/$f.log" ] && { echo "--- $f"; sed -n '/^device:/,$p' "$out/$f.log"; }
done
[ -f "$out/bench.log" ] && { echo "--- bench"; cat "$out/bench.log"; }
[ -f "$out/bench_memory.log" ] && { echo "--- bench_memory"; cat "$out/bench_memory.log"; }
exit 0
