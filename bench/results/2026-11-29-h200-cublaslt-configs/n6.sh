#!/usr/bin/env bash
# One H200 at ca51c30: the main job as typed, from a fresh database and cold caches
# (scripts/multi-gpu.sh, RUNS=one), its printed output kept for the README
set -u
cd "$(dirname "$0")/.."
. scripts/gpu-env.sh
L=/tmp/logs; mkdir -p $L
RUNS=one KILL_AT=0 OUT=/tmp/m timeout 280 scripts/multi-gpu.sh matmul > $L/mainjob.log 2>&1
echo "main job rc=$?"; sed -n '/^run /,$p' $L/mainjob.log | head -8
cp /tmp/m/one.err $L/one.err 2>/dev/null; gzip -c /tmp/m/one.jsonl > $L/mainjob.jsonl.gz 2>/dev/null
sed -n '/^device:/,/^(yardstick/p' $L/one.err
echo "total $(( $(date +%s) - T0 )) s"
tar czf $OUT/n6.tgz -C /tmp logs
