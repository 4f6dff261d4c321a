#!/usr/bin/env bash
# matmul_mma tuned alone on H200 (issue 27: the mma.sync variant alone >= 0.60x cuBLASLt)
set -u
. scripts/gpu-env.sh
export CUTUNE_CACHE_DIR=/tmp/kc
timeout $(left 280) build/cli/cutune run matmul --device 0 --db /tmp/mma.db --variant matmul_mma \
  --size 4096x4096x4096-bf16-nt --size 8192x8192x8192-bf16-nt --size 8192x8192x8192-bf16 --time 240 > $OUT/mma.log 2> $OUT/mma.err
echo "rc $? at $(( $(date +%s) - T0 )) s"
grep -E 'TFLOP/s|wall time' $OUT/mma.log; grep -E '^matmul_mma' $OUT/mma.log
