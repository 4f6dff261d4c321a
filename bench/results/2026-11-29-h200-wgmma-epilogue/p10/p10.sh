#!/usr/bin/env bash
# ncu of matmul_wgmma at 5c86003, 2048^3 bf16 nt, the winner's shape (128x256, 2 consumers, one wave)
set -u
. scripts/gpu-env.sh
export CUTUNE_CACHE_DIR=/tmp/kc
S=2048x2048x2048-bf16-nt
cfg=BM=128,BN=256,BK=64,CONSUMERS=2,SCHEDULE=0,STAGES=4,CLUSTER_M=1,CLUSTER_N=1,GROUP_M=1,VEC=8,MINB=1,TMA=1,MCAST=0
rm -f /tmp/n.db
timeout $(left 300) ncu --target-processes all -k regex:matmul_wgmma --launch-skip 4 -c 1 --set full --import-source yes -o /tmp/w256 -f \
   build/cli/cutune run matmul --device 0 --db /tmp/n.db --variant matmul_wgmma --size $S --where $cfg --warm-start none --time 60 > /dev/null 2>&1
ncu --import /tmp/w256.ncu-rep --page details > $OUT/w256.txt 2>&1
ncu --import /tmp/w256.ncu-rep --page source --print-source sass --csv > $OUT/w256.sass.csv 2>&1
gzip $OUT/w256.sass.csv
grep -E 'Duration|Elapsed Cycles|Executed Instructions  |highest-utilized|Issue Slots' $OUT/w256.txt
