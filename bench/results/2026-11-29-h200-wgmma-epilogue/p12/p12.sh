#!/usr/bin/env bash
# c92a1a2 on H200: TF32 on wgmma (nn through SWAP, nt) tuned alone at 4096^3 and 8192^3 against
# cuBLASLt's TF32; matmul_wgmma at 2048^3 bf16 from its known list
set -u
. scripts/gpu-env.sh
export CUTUNE_CACHE_DIR=/tmp/kc
run() { local name=$1; shift; timeout $(left $1) build/cli/cutune run matmul --device 0 --db /tmp/$name.db "${@:2}" > $OUT/$name.log 2> $OUT/$name.err; echo "$name rc $? at $(( $(date +%s) - T0 )) s"; grep -E 'TFLOP/s' $OUT/$name.log; }
run tf32nn 170 --variant matmul_wgmma_tf32_nn --dtype tf32 --layout nn --size 4096x4096x4096 --size 8192x8192x8192 --time 100
run tf32nt 310 --variant matmul_wgmma_tf32 --dtype tf32 --layout nt --size 4096x4096x4096 --size 8192x8192x8192 --time 100
run wg2048 400 --variant matmul_wgmma --size 2048x2048x2048-bf16-nt --size 2048x2048x2048-bf16 --time 60
build/cli/cutune show --db /tmp/wg2048.db 2>&1 | grep ' ok ' | awk '{print $3, $5, $7}' | sort -k1,1 -k2,2n | awk '{c[$1]++} c[$1]<=3' > $OUT/wg2048_top.txt
cat $OUT/wg2048_top.txt
