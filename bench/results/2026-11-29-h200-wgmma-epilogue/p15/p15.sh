#!/usr/bin/env bash
# python_gpu after _OpMatmul takes the caller's _direct
set -u
. scripts/gpu-env.sh
timeout $(left 200) python3 scripts/run-tests.py build $OUT/tests.log --test=python_gpu > $OUT/tests.out 2>&1
echo "rc $?" >> $OUT/tests.out; tail -3 $OUT/tests.out
