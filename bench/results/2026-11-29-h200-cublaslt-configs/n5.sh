#!/usr/bin/env bash
# One H200 after _short (the common-case test shared by _check and Handle.matmul's launch at
# once): python_gpu; the torch paths at 64^3 bf16 nt (bench/torch_overhead.py, in turns)
set -u
cd "$(dirname "$0")/.."
. scripts/gpu-env.sh
L=/tmp/logs; mkdir -p $L
export CUTUNE_LIBRARY=$PWD/build/core/libcutune.so CUTUNE_EXE=$PWD/build/cli/cutune
timeout 150 python3 scripts/run-tests.py build /tmp/tests.log --test=python_gpu 2>&1 | tail -2
cp /tmp/tests.log $L/tests_python_gpu.log
export PYTHONPATH=$PWD/python
db=/tmp/o.db
build/cli/cutune run matmul --size 64 --dtype bf16 --layout nt --device 0 --time 10 --db $db \
    --no-progress > $L/tune64.log 2>&1; echo "tune64 rc=$?"
timeout $(left 280) python3 bench/torch_overhead.py --db $db 2>&1 | tee $L/torch_overhead.log | tail -12
echo "total $(( $(date +%s) - T0 )) s"
tar czf $OUT/n5.tgz -C /tmp logs
