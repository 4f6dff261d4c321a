#!/bin/bash
# Where matmul_async configs and cuBLAS's kernel stall, instruction by instruction, at one
# size: for each CONFIG, `cutune run` measures it alone into a fresh database, bench_matmul
# times it against cuBLAS, and Nsight Compute samples it (and cuBLAS's kernel, for the first
# config) with source counters. Run on the GPU machine from the repository root, with the
# build in ./build:
#
#   scripts/stalls.sh OUTDIR SIZE CONFIG...
#
# OUTDIR gets, per config i: tune<i>.log, bench<i>.log, details_<kernel>_<i>.txt (ncu's
# sections) and src_<kernel>_<i>.csv (the SASS with executions and stall samples of every
# instruction; read it with scripts/ncu_source.py), and summary.txt.
set -u
[ $# -ge 3 ] || { sed -n '2,12p' "$0"; exit 2; }
out=$1 size=$2
shift 2
b=build
mkdir -p "$out"
ncu --version | tail -1 > "$out/ncu_version.txt"
i=0
for cfg in "$@"; do
    i=$((i + 1))
    db=/tmp/stalls$i.db
    rm -f $db
    "$b/cli/cutune" run matmul --variant matmul_async --size "$size" --where "$cfg" --db $db \
        --no-progress > "$out/tune$i.log" 2>&1
    "$b/bench/bench_matmul" --db $db "$size" 2>&1 | grep -E "matmul_async|size" | tee "$out/bench$i.log"
    for k in matmul_async xmma; do
        [ $k = xmma ] && [ $i -gt 1 ] && continue
        ncu --section SourceCounters --section WarpStateStats --section SchedulerStats \
            --section ComputeWorkloadAnalysis --section InstructionStats -k regex:$k -c 1 \
            -f -o /tmp/rep_${k}_$i "$b/bench/bench_matmul" --db $db "$size" > /tmp/ncu.log 2>&1 ||
            tail -5 /tmp/ncu.log
        ncu --import /tmp/rep_${k}_$i.ncu-rep --page source --csv --print-source sass \
            > "$out/src_${k}_$i.csv" 2> "$out/src_${k}_$i.err"
        ncu --import /tmp/rep_${k}_$i.ncu-rep --page details > "$out/details_${k}_$i.txt" 2>&1
        echo "== $k $i"
        grep -E "Duration|Issue Slots Busy|Executed Instructions  |No Eligible|Eligible Warps" \
            "$out/details_${k}_$i.txt" | head -8
    done
done
python3 scripts/ncu_source.py summary "$out"/src_*.csv | tee "$out/summary.txt"
