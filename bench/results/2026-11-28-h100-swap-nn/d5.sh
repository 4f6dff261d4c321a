#!/usr/bin/env bash
# one GPU: the swapped nn path in floats (bench_tf32 checks and times its configs; then
# tuned by cutune through real tensor maps), and compile processes against threads
set -u
cd "$(dirname "$0")/.."
. scripts/gpu-env.sh >/dev/null
L=/tmp/logs5; mkdir -p $L
b=build
pack() { tar czf $OUT/d5.tgz -C /tmp logs5; }
S=2048x2048x2048,4096x4096x4096,8192x8192x8192
timeout 150 $b/bench/bench_tf32 --wgmma --dtype tf32 --layout nn --configs bench/wgmma_tf32_nn_swap_configs.txt --time-sizes $S > $L/swap_tf32.log 2>&1
echo "tf32 swap rc=$? at $(( $(date +%s) - T0 )) s"; grep -iE "vs|TFLOP|best|FAIL|error" $L/swap_tf32.log | tail -16; pack
NVIDIA_TF32_OVERRIDE=0 timeout 150 $b/bench/bench_tf32 --wgmma --dtype fp32 --layout nn --configs bench/wgmma_3xtf32_nn_swap_configs.txt --time-sizes $S > $L/swap_3x.log 2>&1
echo "3x swap rc=$? at $(( $(date +%s) - T0 )) s"; grep -iE "vs|TFLOP|best|FAIL|error" $L/swap_3x.log | tail -16; pack
timeout 100 $b/cli/cutune run matmul --device 0 --variant matmul_wgmma_tf32_nn --dtype tf32 --size 4096 --size 8192 --time 70 --db /tmp/sw.db --no-progress > $L/tune_tf32.log 2>&1
echo "tune tf32 rc=$? at $(( $(date +%s) - T0 )) s"; sed -n '/^size/,/^(yard/p' $L/tune_tf32.log | head -6; grep -E "wrong|error" $L/tune_tf32.log | head -3; pack
NVIDIA_TF32_OVERRIDE=0 timeout 100 $b/cli/cutune run matmul --device 0 --variant matmul_wgmma_3xtf32_nn --size 4096 --size 8192 --time 70 --db /tmp/sw.db --no-progress > $L/tune_3x.log 2>&1
echo "tune 3x rc=$? at $(( $(date +%s) - T0 )) s"; sed -n '/^size/,/^(yard/p' $L/tune_3x.log | head -6; grep -E "wrong|error" $L/tune_3x.log | head -3; pack
for p in 1 0; do
  t0=$(date +%s.%N)
  CUTUNE_COMPILE_PROCS=$p CUTUNE_CACHE_DIR=/tmp/kc-$p timeout 120 $b/cli/cutune run matmul --device 0 --variant matmul_async --size 2048 --strategy random --budget 400 --warm-start none --db /tmp/cp-$p.db --no-progress > $L/procs-$p.log 2>&1
  echo "CUTUNE_COMPILE_PROCS=$p rc=$? wall $(python3 -c "import time;print('%.1f'%(time.time()-$t0))") s"; grep -E "measured|configs/s|compile" $L/procs-$p.log | head -4
done
pack; echo "total $(( $(date +%s) - T0 )) s"
