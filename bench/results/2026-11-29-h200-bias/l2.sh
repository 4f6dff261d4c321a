#!/usr/bin/env bash
# One GPU: torch's small transformer WITH bias (the default), recorded, tuned 120 s, then
# eager (use(), swap()) and as CUDA graphs, each against torch alone (scripts/gpu-check.sh
# torch; its torch_overhead first); then the main job as typed, from a fresh database;
# python_gpu first
set -u
cd "$(dirname "$0")/.."
. scripts/gpu-env.sh
L=/tmp/logs; mkdir -p $L
timeout 150 python3 scripts/run-tests.py build /tmp/tests.log --test=python_gpu 2>&1 | tail -3
cp /tmp/tests.log $L/tests_python_gpu.log
TT_TIME=120 OUT=/tmp/t timeout $(left 460) scripts/gpu-check.sh torch > $L/torch_step.log 2>&1; echo "torch rc=$? at $(( $(date +%s) - T0 )) s"
cp /tmp/t/*.log $L/ 2>/dev/null
grep -A7 "best of 3" $L/torch_overhead.log | head -8
for f in $L/torch_transformer.log $L/torch_transformer_graph.log; do grep -B12 -A7 "per shape" $f | head -30; tail -5 $f; done
tar czf $OUT/l2a.tgz -C /tmp logs
RUNS=one KILL_AT=0 OUT=/tmp/m timeout $(left 590) scripts/multi-gpu.sh matmul > $L/mainjob.log 2>&1
echo "main job rc=$? at $(( $(date +%s) - T0 )) s"; sed -n '/^run /,$p' $L/mainjob.log | tail -30
cp /tmp/m/one.err $L/mainjob.err 2>/dev/null; gzip -c /tmp/m/one.jsonl > $L/mainjob.jsonl.gz 2>/dev/null
echo "total $(( $(date +%s) - T0 )) s"
tar czf $OUT/l2.tgz -C /tmp logs
