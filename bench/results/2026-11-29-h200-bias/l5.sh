#!/usr/bin/env bash
# One GPU: the GPU tests whose kernels are the planted and faulty matmul kernels (now taking
# the bias argument), and the example application
set -u
cd "$(dirname "$0")/.."
. scripts/gpu-env.sh
timeout 400 python3 scripts/run-tests.py build /tmp/tests.log --test=gpu,faulty_gpu,gpu_planted_tc,gpu_integrity,example_gpu 2>&1 | tail -8
cp /tmp/tests.log $OUT/tests_l5.log
echo "total $(( $(date +%s) - T0 )) s"
