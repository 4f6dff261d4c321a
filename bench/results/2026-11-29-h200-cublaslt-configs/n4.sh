#!/usr/bin/env bash
# One H200 with the heuristic's whole list in the warm start (WARM_MAX_LIBRARY): the small transformer
# recorded, tuned 120 s, eager and as CUDA graphs; the main job as typed from a fresh
# database; then gpu_cublaslt
set -u
cd "$(dirname "$0")/.."
. scripts/gpu-env.sh
L=/tmp/logs; mkdir -p $L
export CUTUNE_LIBRARY=$PWD/build/core/libcutune.so CUTUNE_EXE=$PWD/build/cli/cutune
export PYTHONPATH=$PWD/python
t=/tmp/t; mkdir -p $t
timeout 200 python3 examples/torch_transformer.py --db $t/tt.db --time 120 > $L/tt.log 2>&1; echo "tt rc=$? at $(( $(date +%s) - T0 )) s"
sed -n '/^size /,/^(yardstick/p;/^variant /,/^(measured/p' $L/tt.log; grep -A6 "^per shape" $L/tt.log; tail -3 $L/tt.log
timeout 150 python3 examples/torch_transformer.py --db $t/tt.db --no-tune --graph > $L/tt_graph.log 2>&1; echo "graph rc=$? at $(( $(date +%s) - T0 )) s"
grep -A6 "^per shape" $L/tt_graph.log; tail -3 $L/tt_graph.log
for k in 2 3; do
    timeout 100 python3 examples/torch_transformer.py --db $t/tt.db --no-tune --graph > $L/tt_graph$k.log 2>&1; echo "graph $k rc=$?"
    grep -A5 "^per shape" $L/tt_graph$k.log | tail -4; tail -3 $L/tt_graph$k.log | head -1
done
tar czf $OUT/n4.tgz -C /tmp logs
RUNS=one KILL_AT=0 OUT=/tmp/m timeout $(left 300) scripts/multi-gpu.sh matmul > $L/mainjob.log 2>&1
echo "main job rc=$? at $(( $(date +%s) - T0 )) s"; sed -n '/^run /,$p' $L/mainjob.log | tail -30
gzip -c /tmp/m/one.jsonl > $L/mainjob.jsonl.gz 2>/dev/null
tar czf $OUT/n4.tgz -C /tmp logs
timeout $(left 585) python3 scripts/run-tests.py build /tmp/tests.log --test=gpu_cublaslt 2>&1 | tail -3
cp /tmp/tests.log $L/tests_gpu_cublaslt.log
echo "total $(( $(date +%s) - T0 )) s"
tar czf $OUT/n4.tgz -C /tmp logs
