#!/usr/bin/env bash
# One GPU: the tensor-core default sizes (bf16 nt) tuned as the main job tunes them, once
# without and once with the bias epilogue (--epilogue bias), each from a fresh database;
# then per size the best of each variant and the yardstick (cuBLASLt's default, with its
# bias epilogue for -bias), from the two databases (bench/results/.../bias_table.py)
set -u
cd "$(dirname "$0")/.."
. scripts/gpu-env.sh
L=/tmp/logs; mkdir -p $L
for e in none bias; do
    timeout $(left 280) build/cli/cutune run matmul --device 0 --dtype bf16 --layout nt \
        --epilogue $e --db /tmp/$e.db --no-progress > $L/run_$e.log 2>&1
    echo "$e: rc=$? at $(( $(date +%s) - T0 )) s"; grep "wall time" $L/run_$e.log
done
python3 .carry/bias_table.py /tmp/none.db /tmp/bias.db | tee $L/bias_table.txt
echo "total $(( $(date +%s) - T0 )) s"
tar czf $OUT/l3.tgz -C /tmp logs
