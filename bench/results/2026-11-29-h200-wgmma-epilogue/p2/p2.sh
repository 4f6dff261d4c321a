#!/usr/bin/env bash
# 2048^3 bf16 nt on H200: vendor-like configs of matmul_wgmma, and ncu of ours against nvjet
set -u
. scripts/gpu-env.sh
export CUTUNE_CACHE_DIR=/tmp/kc
S=2048x2048x2048-bf16-nt
db=/tmp/v.db; rm -f $db
W=()
for sch in 0 1; do for mc in 0 1; do for st in 4 5; do for g in 1 8; do
  [ $sch = 1 ] && [ $mc = 1 ] && continue
  W+=(--where BM=128,BN=256,BK=64,CONSUMERS=2,SCHEDULE=$sch,STAGES=$st,CLUSTER_M=2,CLUSTER_N=1,GROUP_M=$g,VEC=8,MINB=1,TMA=1,MCAST=$mc)
done; done; done; done
W+=(--where BM=128,BN=256,BK=64,CONSUMERS=2,SCHEDULE=0,STAGES=4,CLUSTER_M=2,CLUSTER_N=1,GROUP_M=1,VEC=2,MINB=1,TMA=1,MCAST=1)
W+=(--where BM=128,BN=256,BK=64,CONSUMERS=2,SCHEDULE=0,STAGES=4,CLUSTER_M=1,CLUSTER_N=1,GROUP_M=1,VEC=8,MINB=1,TMA=1,MCAST=0)
W+=(--where BM=128,BN=128,BK=64,CONSUMERS=2,SCHEDULE=2,STAGES=5,CLUSTER_M=1,CLUSTER_N=2,GROUP_M=1,VEC=8,MINB=1,TMA=1,MCAST=0)
timeout $(left 200) build/cli/cutune run matmul --device 0 --db $db --variant matmul_wgmma --size $S "${W[@]}" --warm-start none --time 120 > $OUT/v.log 2> $OUT/v.err
echo rc $? >> $OUT/v.err
build/cli/cutune show --db $db 2>&1 | grep ' ok \| wrong\|error' | awk '{print $5, $7}' | sort -n > $OUT/v_sorted.txt
# ncu: ours (two configs) and nvjet
M='gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,lts__t_sectors.sum,dram__bytes.sum,sm__cycles_active.avg,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct,launch__grid_size,launch__cluster_dim_x,launch__registers_per_thread,launch__shared_mem_per_block_dynamic'
for cfg in BM=128,BN=128,BK=64,CONSUMERS=2,SCHEDULE=2,STAGES=5,CLUSTER_M=1,CLUSTER_N=2,GROUP_M=1,VEC=8,MINB=1,TMA=1,MCAST=0 \
           BM=128,BN=256,BK=64,CONSUMERS=2,SCHEDULE=0,STAGES=4,CLUSTER_M=2,CLUSTER_N=1,GROUP_M=1,VEC=8,MINB=1,TMA=1,MCAST=1; do
  rm -f /tmp/n.db
  timeout $(left 420) ncu --target-processes all -k regex:matmul_wgmma --launch-skip 4 -c 1 --set full -o $OUT/ours_${cfg:20:40} -f \
     build/cli/cutune run matmul --device 0 --db /tmp/n.db --variant matmul_wgmma --size $S --where $cfg --warm-start none --time 60 > /dev/null 2>&1
done
cat > /tmp/vj.py <<'PYEOF'
import torch
a=torch.randn(2048,2048,device='cuda',dtype=torch.bfloat16); w=torch.randn(2048,2048,device='cuda',dtype=torch.bfloat16)
for _ in range(10): y=a@w.t()
torch.cuda.synchronize()
PYEOF
timeout $(left 480) ncu -k regex:nvjet --launch-skip 5 -c 1 --set full -o $OUT/nvjet -f python3 /tmp/vj.py > /dev/null 2>&1
for f in $OUT/*.ncu-rep; do ncu --import $f --page details > ${f%.ncu-rep}.txt 2>&1; done
ls -la $OUT
