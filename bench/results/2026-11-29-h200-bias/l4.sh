#!/usr/bin/env bash
# One GPU: the Python GPU tests (python_gpu), the op's bias among them
set -u
cd "$(dirname "$0")/.."
. scripts/gpu-env.sh
timeout 300 python3 scripts/run-tests.py build /tmp/tests.log --test=python_gpu 2>&1 | tail -3
cp /tmp/tests.log $OUT/tests_python_gpu_l4.log
grep -E "passed|failed|^E " /tmp/tests.log | head -20
echo "total $(( $(date +%s) - T0 )) s"
