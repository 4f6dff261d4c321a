#!/usr/bin/env bash
# one H100: the main job as typed (fresh database, cold caches), then the GPU suite
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
RUNS=one KILL_AT=0 OUT=/tmp/m timeout 300 scripts/multi-gpu.sh matmul > $L/mainjob.log 2>&1
echo "main job rc=$? at $(( $(date +%s) - T0 )) s"; sed -n '/^run /,$p' $L/mainjob.log | tail -40
cp /tmp/m/one.err $L/mainjob.err 2>/dev/null
CUTUNE_CHECK_BUDGET=8 timeout $(left 590) python3 scripts/run-tests.py build $L/tests.log --suite=gpu 2>&1 | tail -16
echo "total $(( $(date +%s) - T0 )) s"
tar czf $OUT/c5.tgz -C /tmp logs
