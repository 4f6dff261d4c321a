#!/usr/bin/env bash
# two GPUs: the main job as typed on 1 GPU and on both, each from a fresh database and cold caches
set -u
cd "$(dirname "$0")/.."
. scripts/gpu-env.sh
nproc
L=/tmp/logs; mkdir -p $L
RUNS="one two" KILL_AT=${KILL_AT:-0} OUT=/tmp/m timeout $(left 580) scripts/multi-gpu.sh matmul > $L/multi.log 2>&1
echo "multi rc=$? at $(( $(date +%s) - T0 )) s"; sed -n '/^run /,$p' $L/multi.log | tail -60
for f in /tmp/m/*.err /tmp/m/walls.txt /tmp/m/gpus.txt; do cp $f $L/; done
for f in /tmp/m/*.jsonl; do gzip -c $f > $L/$(basename $f).gz; done
tar czf $OUT/h3.tgz -C /tmp logs; echo "total $(( $(date +%s) - T0 )) s"
