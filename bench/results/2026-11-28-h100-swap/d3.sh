#!/usr/bin/env bash
# one GPU: the Python tests (CPU and GPU files, torch present) and the small transformer's
# eager step through use() and through swap(), without and with bias
set -u
cd "$(dirname "$0")/.."
. scripts/gpu-env.sh >/dev/null
L=/tmp/logs3; mkdir -p $L
CUTUNE_CHECK_BUDGET=8 timeout 300 python3 scripts/run-tests.py build $L/tests.log --test=python,python_gpu 2>&1 | tail -4
grep -E "passed|failed|Error|swap" $L/tests.log | head -20
tar czf $OUT/d3.tgz -C /tmp logs3
export PYTHONPATH=$PWD/python:${PYTHONPATH:-} CUTUNE_LIBRARY=$PWD/build/core/libcutune.so CUTUNE_EXE=$PWD/build/cli/cutune
timeout $(left 480) python3 examples/torch_transformer.py --db /tmp/tt.db --time 30 --no-bias > $L/tt_nobias.log 2>&1; echo "no bias rc=$?"
tail -9 $L/tt_nobias.log
timeout $(left 560) python3 examples/torch_transformer.py --db /tmp/tt.db --no-tune > $L/tt_bias.log 2>&1; echo "bias rc=$?"
tail -4 $L/tt_bias.log
echo "total $(( $(date +%s) - T0 )) s"
tar czf $OUT/d3.tgz -C /tmp logs3
