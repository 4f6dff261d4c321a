#!/usr/bin/env bash
# TF32 nn (matmul_wgmma_tf32_nn) at 8192^3: the search's 4096^3 winner with GROUP_M 8, and neighbours
set -u
. scripts/gpu-env.sh
export CUTUNE_CACHE_DIR=/tmp/kc
B=BM=256,BN=128,BK=64,CONSUMERS=2,SCHEDULE=0,STAGES=2,CLUSTER_M=2,CLUSTER_N=1,VEC=2,MINB=1,TMA=1,SWAP=1
W=(--where $B,GROUP_M=1 --where $B,GROUP_M=8
   --where BM=256,BN=128,BK=32,CONSUMERS=2,SCHEDULE=0,STAGES=4,CLUSTER_M=2,CLUSTER_N=1,GROUP_M=8,VEC=2,MINB=1,TMA=1,SWAP=1
   --where BM=256,BN=128,BK=32,CONSUMERS=2,SCHEDULE=1,STAGES=4,CLUSTER_M=1,CLUSTER_N=1,GROUP_M=8,VEC=2,MINB=1,TMA=1,SWAP=1
   --where BM=128,BN=256,BK=32,CONSUMERS=2,SCHEDULE=0,STAGES=4,CLUSTER_M=2,CLUSTER_N=1,GROUP_M=8,VEC=2,MINB=1,TMA=1,SWAP=1
   --where BM=128,BN=128,BK=32,CONSUMERS=2,SCHEDULE=1,STAGES=4,CLUSTER_M=1,CLUSTER_N=1,GROUP_M=8,VEC=2,MINB=1,TMA=1,SWAP=1)
timeout $(left 200) build/cli/cutune run matmul --device 0 --db /tmp/t8.db --variant matmul_wgmma_tf32_nn --dtype tf32 --layout nn \
  --size 8192x8192x8192 --size 4096x4096x4096 "${W[@]}" --warm-start none --time 150 > $OUT/t8.log 2> $OUT/t8.err
echo "rc $? at $(( $(date +%s) - T0 )) s"
grep -E 'TFLOP/s' $OUT/t8.log
build/cli/cutune show --db /tmp/t8.db 2>&1 | grep -E ' ok |skipped|error' | awk '{print $3, $4, $5, $7}' | sort > $OUT/t8_all.txt
cat $OUT/t8_all.txt
