#!/usr/bin/env bash
# One H200 at the final commit: gpu_cublaslt, gpu_integrity, python_gpu
set -u
cd "$(dirname "$0")/.."
. scripts/gpu-env.sh
timeout 170 python3 scripts/run-tests.py build /tmp/tests.log --test=gpu_cublaslt,gpu_integrity,python_gpu 2>&1 | tail -5
cp /tmp/tests.log $OUT/tests_n7.log
echo "total $(( $(date +%s) - T0 )) s"
