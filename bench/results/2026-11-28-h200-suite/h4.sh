#!/usr/bin/env bash
# one GPU: the main job as typed (fresh database, cold caches), its trials kept; then the GPU suite
set -u
cd "$(dirname "$0")/.."
. scripts/gpu-env.sh
L=/tmp/logs; mkdir -p $L
pack() { tar czf $OUT/h4.tgz -C /tmp logs; }
RUNS=one KILL_AT=0 OUT=/tmp/m timeout 300 scripts/multi-gpu.sh matmul > $L/mainjob.log 2>&1
echo "main job rc=$? at $(( $(date +%s) - T0 )) s"; sed -n '/^run /,$p' $L/mainjob.log | tail -40
cp /tmp/m/one.err $L/mainjob.err 2>/dev/null; gzip -c /tmp/m/one.jsonl > $L/mainjob.jsonl.gz; pack
CUTUNE_CHECK_BUDGET=8 timeout $(left 585) python3 scripts/run-tests.py build $L/tests.log --suite=gpu 2>&1 | tail -16
echo "total $(( $(date +%s) - T0 )) s"; pack
