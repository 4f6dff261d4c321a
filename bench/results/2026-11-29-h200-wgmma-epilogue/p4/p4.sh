#!/usr/bin/env bash
# A/B of matmul_wgmma kernel edits (CUTUNE_SPACE_PATH), the same configs, each run against cuBLASLt in its worker
set -u
. scripts/gpu-env.sh
export CUTUNE_CACHE_DIR=/tmp/kc
C1=BM=128,BN=128,BK=64,CONSUMERS=2,SCHEDULE=2,STAGES=5,CLUSTER_M=1,CLUSTER_N=2,GROUP_M=1,VEC=8,MINB=1,TMA=1,MCAST=0
C2=BM=128,BN=256,BK=64,CONSUMERS=2,SCHEDULE=0,STAGES=4,CLUSTER_M=2,CLUSTER_N=1,GROUP_M=1,VEC=8,MINB=1,TMA=1,MCAST=1
C3=BM=128,BN=256,BK=64,CONSUMERS=2,SCHEDULE=0,STAGES=4,CLUSTER_M=1,CLUSTER_N=1,GROUP_M=1,VEC=8,MINB=1,TMA=1,MCAST=0
C4=BM=128,BN=128,BK=64,CONSUMERS=2,SCHEDULE=2,STAGES=5,CLUSTER_M=1,CLUSTER_N=2,GROUP_M=8,VEC=8,MINB=1,TMA=1,MCAST=0
for v in ${VARS:-V0 V1 V2 V3 V0 V3}; do
  db=/tmp/ab_${v}_$RANDOM.db; rm -f $db
  CUTUNE_SPACE_PATH=$PWD/.carry/vars/$v timeout $(left 520) build/cli/cutune run matmul --device 0 --db $db --variant matmul_wgmma \
    --size 2048x2048x2048-bf16-nt --size 4096x1024x4096-bf16-nt-bias --size 4096x4096x4096-bf16-nt \
    --where $C1 --where $C2 --where $C3 --where $C4 --warm-start none --time 100 > $OUT/ab_$v.log 2>> $OUT/ab.err
  echo "== $v rc $?" >> $OUT/ab.txt
  grep -E 'x(2048|1024|4096)-bf16' $OUT/ab_$v.log | grep -E 'TFLOP' | awk '{print $1, $3, $6, $7}' >> $OUT/ab.txt
  build/cli/cutune show --db $db 2>&1 | grep ' ok ' | awk '{print $3, $5, $7}' | sort | sed 's/,GROUP_M.*MCAST=/ MC=/; s/CONSUMERS=2,//; s/BK=64,//' >> $OUT/ab.txt
done
cat $OUT/ab.txt
