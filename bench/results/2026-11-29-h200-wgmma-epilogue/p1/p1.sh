#!/usr/bin/env bash
# 2048^3 on H200: matmul_wgmma tuned alone (nt, nn), what cuBLASLt's default runs, profiler tools
set -u
. scripts/gpu-env.sh
export CUTUNE_LIBRARY=$PWD/build/core/libcutune.so CUTUNE_EXE=$PWD/build/cli/cutune PYTHONPATH=$PWD/python${PYTHONPATH:+:$PYTHONPATH}
export CUTUNE_CACHE_DIR=/tmp/kc
git log -1 --format=%h > $OUT/commit.txt 2>/dev/null || true
(which ncu nsys; ls /usr/local/cuda/bin | grep -i -E 'ncu|nsys|nsight'; nproc) > $OUT/tools.txt 2>&1
python3 - > $OUT/torch_kernels.txt 2>&1 <<'PYEOF'
import torch
from torch.profiler import profile, ProfilerActivity
for (m,n,k) in [(2048,2048,2048),(4096,4096,4096),(4096,1024,4096)]:
    a=torch.randn(m,k,device='cuda',dtype=torch.bfloat16); w=torch.randn(n,k,device='cuda',dtype=torch.bfloat16)
    for _ in range(20): y=a@w.t()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as p:
        for _ in range(50): y=a@w.t()
        torch.cuda.synchronize()
    for e in p.key_averages():
        if e.device_type.name=='CUDA' or 'gemm' in e.key.lower():
            print(m,n,k,'nt', e.key[:200], 'avg us %.2f'%(e.device_time_total/max(e.count,1)), 'count',e.count)
    b=torch.randn(k,n,device='cuda',dtype=torch.bfloat16)
    with profile(activities=[ProfilerActivity.CUDA]) as p:
        for _ in range(50): y=a@b
        torch.cuda.synchronize()
    for e in p.key_averages():
        if e.device_type.name=='CUDA' or 'gemm' in e.key.lower():
            print(m,n,k,'nn', e.key[:200], 'avg us %.2f'%(e.device_time_total/max(e.count,1)), 'count',e.count)
PYEOF
db=/tmp/w.db; rm -f $db
timeout $(left 500) build/cli/cutune run matmul --device 0 --db $db --variant matmul_wgmma \
  --size 2048x2048x2048-bf16-nt --size 2048x2048x2048-bf16-nn --size 4096x1024x4096-bf16-nt-bias --time 240 > $OUT/wg.log 2> $OUT/wg.err
echo rc $? >> $OUT/wg.err
build/cli/cutune show --db $db > $OUT/show.txt 2>&1
cp $db $OUT/w.db
