#!/usr/bin/env bash
# one GPU: the main job as typed (fresh database, cold caches) with compiles ahead, then with
# CUTUNE_COMPILE_AHEAD=0, in the same call
set -u
cd "$(dirname "$0")/.."
. scripts/gpu-env.sh
L=/tmp/logs; mkdir -p $L
pack() { tar czf $OUT/h2.tgz -C /tmp logs; }
for a in 1 0; do
    CUTUNE_COMPILE_AHEAD=$a RUNS=one KILL_AT=0 OUT=/tmp/m$a timeout 280 scripts/multi-gpu.sh matmul > $L/mainjob-ahead$a.log 2>&1
    echo "main job ahead=$a rc=$? at $(( $(date +%s) - T0 )) s"; sed -n '/^run /,$p' $L/mainjob-ahead$a.log | head -12
    cp /tmp/m$a/one.err $L/mainjob-ahead$a.err 2>/dev/null; gzip -c /tmp/m$a/one.jsonl > $L/mainjob-ahead$a.jsonl.gz; pack
done
echo "total $(( $(date +%s) - T0 )) s"; pack
