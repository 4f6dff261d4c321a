#!/usr/bin/env bash
# the whole GPU suite at 5c86003
set -u
. scripts/gpu-env.sh
export CUTUNE_CHECK_BUDGET=8
timeout $(left 560) python3 scripts/run-tests.py build $OUT/tests.log --suite=gpu > $OUT/tests.out 2>&1
echo "suite rc $? at $(( $(date +%s) - T0 )) s" >> $OUT/tests.out
tail -20 $OUT/tests.out
