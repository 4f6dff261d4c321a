#!/usr/bin/env bash
# one H200: TMA multicast again (branch mcast's kernel, .carry/mc2, through CUTUNE_SPACE_PATH)
# with the consumers' remote arrivals at the mbarrier's default scope (.cta, as CUTLASS's
# ClusterBarrier::arrive) instead of .release.cluster; then a call's cost from torch
set -u
cd "$(dirname "$0")/.."
. scripts/gpu-env.sh
L=/tmp/logs; mkdir -p $L
export CUTUNE_CACHE_DIR=/tmp/kc
P=("BM=128,BN=128,BK=64,CONSUMERS=1,SCHEDULE=0,STAGES=3,CLUSTER_M=1,CLUSTER_N=2,GROUP_M=8,VEC=8,MINB=2,TMA=1"
   "BM=128,BN=256,BK=64,CONSUMERS=2,SCHEDULE=0,STAGES=4,CLUSTER_M=2,CLUSTER_N=1,GROUP_M=8,VEC=8,MINB=1,TMA=1"
   "BM=128,BN=256,BK=64,CONSUMERS=2,SCHEDULE=0,STAGES=4,CLUSTER_M=1,CLUSTER_N=2,GROUP_M=8,VEC=8,MINB=1,TMA=1")
W=()
for p in "${P[@]}"; do W+=(--where "$p,MCAST=0" --where "$p,MCAST=1"); done
S=(--size 2048x2048x2048-bf16-nt --size 4096x4096x4096-bf16-nt --size 8192x8192x8192-bf16-nt)
CUTUNE_SPACE_PATH=$PWD/.carry/mc2 timeout 150 build/cli/cutune run matmul --device 0 --variant matmul_wgmma "${W[@]}" "${S[@]}" --warm-start none --time 140 --db /tmp/ab.db --json > $L/ab.jsonl 2> $L/ab.err
echo "A/B rc=$? at $(( $(date +%s) - T0 )) s"
python3 .carry/mcast_table.py $L/ab.jsonl | tee $L/ab_table.txt
tail -3 $L/ab.err
tar czf $OUT/i4.tgz -C /tmp logs
unset CUTUNE_CACHE_DIR
pyenv=(env PYTHONPATH="$PWD/python:${PYTHONPATH:-}" CUTUNE_LIBRARY="$PWD/build/core/libcutune.so" CUTUNE_EXE="$PWD/build/cli/cutune")
timeout $(left 250) build/cli/cutune run matmul --device 0 --size 64 --dtype bf16 --layout nt --time 30 --db /tmp/to.db --no-progress > $L/torch_tune.log 2>&1
timeout $(left 330) "${pyenv[@]}" python3 bench/torch_overhead.py --db /tmp/to.db 2>&1 | tee $L/torch_overhead.log | tail -15
tar czf $OUT/i4.tgz -C /tmp logs; echo "total $(( $(date +%s) - T0 )) s"
