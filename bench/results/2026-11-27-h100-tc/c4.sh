#!/usr/bin/env bash
# one H100: matmul_wgmma tuned alone in nn (and at 2048^3 nt), matmul_mma alone where its warm
# start was under 0.60x: is the search or the kernel the limit?
set -u
cd "$(dirname "$0")/.."
T0=$(date +%s)
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/device.txt
for lib in libcublas.so.13 libcublasLt.so.13; do
    if ! ldconfig -p | grep -q "$lib"; then
        d=$(find / -name "$lib*" -not -path "*/proc/*" 2>/dev/null | head -1)
        [ -n "$d" ] && export LD_LIBRARY_PATH=$(dirname "$d")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    fi
done
L=/tmp/logs; mkdir -p $L
CUTUNE_CACHE_DIR=/tmp/kc timeout 230 build/cli/cutune run matmul --device 0 --variant matmul_wgmma \
  --size 4096x4096x4096-fp16-nn --size 8192x8192x8192-fp16-nn --size 4096x4096x4096-bf16-nn \
  --size 2048x2048x2048-bf16-nt --time 200 --db /tmp/wg.db > $L/wgmma_alone.log 2>&1
echo "wgmma rc=$? at $(( $(date +%s) - T0 )) s"; grep -A7 "^size " $L/wgmma_alone.log | head -8
grep "matmul_wgmma " $L/wgmma_alone.log | grep -v "^\s*\[" | tail -4
CUTUNE_CACHE_DIR=/tmp/kc timeout 150 build/cli/cutune run matmul --device 0 --variant matmul_mma \
  --size 8192x8192x8192-bf16-nt --size 4096x11008x4096-bf16-nt --size 8192x8192x8192-fp16-nt \
  --time 120 --db /tmp/mma.db > $L/mma_alone.log 2>&1
echo "mma rc=$? at $(( $(date +%s) - T0 )) s"; grep -A5 "^size " $L/mma_alone.log | head -6
grep "matmul_mma " $L/mma_alone.log | grep -v "^\s*\[" | tail -3
tar czf $OUT/c4.tgz -C /tmp logs
echo "total $(( $(date +%s) - T0 )) s"
