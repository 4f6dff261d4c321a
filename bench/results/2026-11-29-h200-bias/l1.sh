#!/usr/bin/env bash
# One GPU: the whole GPU suite (scripts/run-tests.py --suite=gpu: gpu_matmul with the bias
# epilogue of matmul_mma, matmul_wgmma and matmul_cublaslt, python_gpu with F.linear's bias
# routed, record then tune of a "-bias" shape)
set -u
cd "$(dirname "$0")/.."
. scripts/gpu-env.sh
CUTUNE_CHECK_BUDGET=8 timeout $(left 570) python3 scripts/run-tests.py build /tmp/tests.log --suite=gpu 2>&1 | tail -16
cp /tmp/tests.log $OUT/ 2>/dev/null
grep -E "bias|FAIL|failed" /tmp/tests.log | head -40
echo "total $(( $(date +%s) - T0 )) s"
