#!/usr/bin/env bash
# one H100: TF32 and 3xTF32 in nn on wgmma (bench_tf32, then tuned by cutune), a call's cost
# (torch_overhead.py, bench_launch), and the Python GPU tests
set -u
cd "$(dirname "$0")/.."
T0=$(date +%s)
left() { echo $(( $1 - ($(date +%s) - T0) )); }
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site
for lib in libcublas.so.13 libcublasLt.so.13; do
    if ! ldconfig -p | grep -q "$lib"; then
        d=$(find / -name "$lib*" -not -path "*/proc/*" 2>/dev/null | head -1)
        [ -n "$d" ] && export LD_LIBRARY_PATH=$(dirname "$d")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    fi
done
L=/tmp/logs; mkdir -p $L
b=build
timeout 120 $b/bench/bench_tf32 --wgmma --dtype tf32 --layout nn --configs bench/wgmma_tf32_nn_configs.txt --time-sizes 2048x2048x2048,4096x4096x4096,8192x8192x8192 > $L/wg_tf32_nn.log 2>&1
echo "tf32 nn rc=$? at $(( $(date +%s) - T0 )) s"; grep -iE "vs|ratio|TFLOP|best|FAIL" $L/wg_tf32_nn.log | tail -14
NVIDIA_TF32_OVERRIDE=0 timeout 120 $b/bench/bench_tf32 --wgmma --dtype fp32 --layout nn --configs bench/wgmma_3xtf32_nn_configs.txt --time-sizes 2048x2048x2048,4096x4096x4096,8192x8192x8192 > $L/wg_3x_nn.log 2>&1
echo "3x nn rc=$? at $(( $(date +%s) - T0 )) s"; grep -iE "vs|ratio|TFLOP|best|FAIL" $L/wg_3x_nn.log | tail -14
export NVIDIA_TF32_OVERRIDE=0
timeout 150 $b/cli/cutune run matmul --device 0 --variant matmul_wgmma_3xtf32 --size 4096 --size 8192 --time 120 --db /tmp/nn.db --no-progress > $L/tune_3x_nn.log 2>&1
echo "tune 3x nn rc=$? at $(( $(date +%s) - T0 )) s"; grep -A4 "^size" $L/tune_3x_nn.log | head -5
timeout 120 $b/cli/cutune run matmul --device 0 --variant matmul_wgmma_tf32 --dtype tf32 --size 4096 --size 8192 --time 90 --db /tmp/nn.db --no-progress > $L/tune_tf32_nn.log 2>&1
echo "tune tf32 nn rc=$? at $(( $(date +%s) - T0 )) s"; grep -A4 "^size" $L/tune_tf32_nn.log | head -5
unset NVIDIA_TF32_OVERRIDE
timeout $(left 480) bash -c '
    export PYTHONPATH=python:$PYTHONPATH CUTUNE_LIBRARY=build/core/libcutune.so
    build/cli/cutune run matmul --device 0 --size 64 --dtype bf16 --layout nt --time 20 --db /tmp/t.db --no-progress > /tmp/logs/t_tune.log 2>&1
    python3 bench/torch_overhead.py --db /tmp/t.db --calls 20000
    build/bench/bench_launch --db /tmp/t.db --size 64x64x64-bf16-nt --calls 20000' > $L/overhead.log 2>&1
echo "overhead rc=$? at $(( $(date +%s) - T0 )) s"; tail -16 $L/overhead.log
CUTUNE_CHECK_BUDGET=8 timeout $(left 590) python3 scripts/run-tests.py build $L/tests.log --test=python_gpu 2>&1 | tail -4
echo "total $(( $(date +%s) - T0 )) s"
tar czf $OUT/c9.tgz -C /tmp logs
