#!/usr/bin/env bash
# 2 x H200: matmul_wgmma's TMA multicast (MCAST=1) against the same configs without it, at
# 2048^3 to 8192^3 and 4096x11008x4096, bf16 nt and nn; the GPU suite on GPU 0; then the
# main job as typed on 1 GPU and on both
set -u
cd "$(dirname "$0")/.."
. scripts/gpu-env.sh
nproc; nvidia-smi --query-gpu=index,name,uuid,driver_version --format=csv,noheader
L=/tmp/logs; mkdir -p $L
export CUTUNE_CACHE_DIR=/tmp/kc
P=("BM=128,BN=128,BK=64,CONSUMERS=1,SCHEDULE=0,STAGES=3,CLUSTER_M=1,CLUSTER_N=2,GROUP_M=8,VEC=8,MINB=2,TMA=1"
   "BM=128,BN=128,BK=64,CONSUMERS=1,SCHEDULE=0,STAGES=3,CLUSTER_M=2,CLUSTER_N=1,GROUP_M=8,VEC=8,MINB=2,TMA=1"
   "BM=128,BN=256,BK=64,CONSUMERS=2,SCHEDULE=0,STAGES=4,CLUSTER_M=2,CLUSTER_N=1,GROUP_M=8,VEC=8,MINB=1,TMA=1"
   "BM=128,BN=256,BK=64,CONSUMERS=2,SCHEDULE=0,STAGES=4,CLUSTER_M=1,CLUSTER_N=2,GROUP_M=8,VEC=8,MINB=1,TMA=1"
   "BM=128,BN=256,BK=32,CONSUMERS=2,SCHEDULE=0,STAGES=5,CLUSTER_M=2,CLUSTER_N=1,GROUP_M=8,VEC=8,MINB=1,TMA=1"
   "BM=256,BN=128,BK=64,CONSUMERS=2,SCHEDULE=0,STAGES=4,CLUSTER_M=1,CLUSTER_N=2,GROUP_M=8,VEC=8,MINB=1,TMA=1")
W=(--where "BM=128,BN=128,BK=64,CONSUMERS=1,SCHEDULE=0,STAGES=3,CLUSTER_M=1,CLUSTER_N=1,GROUP_M=8,VEC=8,MINB=2,TMA=1,MCAST=0")
for p in "${P[@]}"; do W+=(--where "$p,MCAST=0" --where "$p,MCAST=1"); done
S=()
for s in 2048x2048x2048-bf16-nt 2048x2048x2048-bf16 4096x4096x4096-bf16-nt 4096x4096x4096-bf16 8192x8192x8192-bf16-nt 4096x11008x4096-bf16-nt; do S+=(--size $s); done
CUDA_VISIBLE_DEVICES=0 timeout 170 build/cli/cutune run matmul --device 0 --variant matmul_wgmma "${W[@]}" "${S[@]}" --warm-start none --time 160 --db /tmp/ab.db --json > $L/ab.jsonl 2> $L/ab.err
echo "A/B rc=$? at $(( $(date +%s) - T0 )) s"
python3 .carry/mcast_table.py $L/ab.jsonl | tee $L/ab_table.txt
tail -5 $L/ab.err
tar czf $OUT/i2.tgz -C /tmp logs
CUDA_VISIBLE_DEVICES=0 CUTUNE_CHECK_BUDGET=8 timeout $(left 400) python3 scripts/run-tests.py build $L/tests.log --suite=gpu 2>&1 | tail -14
tar czf $OUT/i2.tgz -C /tmp logs
unset CUTUNE_CACHE_DIR
RUNS="one two" KILL_AT=0 OUT=/tmp/m timeout $(left 588) scripts/multi-gpu.sh matmul > $L/multi.log 2>&1
echo "multi rc=$? at $(( $(date +%s) - T0 )) s"; sed -n '/^run /,$p' $L/multi.log | tail -45
for f in /tmp/m/*.err /tmp/m/walls.txt /tmp/m/gpus.txt; do cp $f $L/ 2>/dev/null; done
for f in /tmp/m/*.jsonl; do gzip -c $f > $L/$(basename $f).gz; done
tar czf $OUT/i2.tgz -C /tmp logs; echo "total $(( $(date +%s) - T0 )) s"
