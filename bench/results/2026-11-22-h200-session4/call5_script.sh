#!/bin/bash
# session 4, call 5: matmul_async v8 on the tree to be submitted: the GPU suite, the known
# configs at the 10 issue 4 sizes, four tile families at 1000^3 (every WK), then bench_matmul
export PATH=/usr/local/cuda/bin:$PATH
mkdir -p /tmp/g
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
OUT=/tmp/g TESTS_ARGS=--suite=gpu scripts/gpu-check.sh tests 2>&1 | tail -2
OUT=/tmp/g scripts/gpu-check.sh async-known 2>&1 | grep exit | head -1
build/cli/cutune run matmul --variant matmul_async --size 1000x1000x1000 \
  --where BM=64,BN=128,WM=32,WN=64,PAD=4,SPLITK=1,MINB=1 \
  --where BM=128,BN=64,WM=32,WN=64,PAD=4,SPLITK=1,MINB=1 \
  --where BM=64,BN=128,WM=64,WN=32,PAD=4,SPLITK=1,MINB=1 \
  --where BM=64,BN=128,WM=32,WN=64,PAD=4,SPLITK=2,MINB=1 \
  --db /tmp/g/sgemm.db --no-progress 2>&1 | grep -E "^matmul_async"
OUT=/tmp/g scripts/gpu-check.sh sgemm-bench 2>&1 | grep exit | head -1
grep -E "^[0-9]+x.*matmul_async" /tmp/g/bench.log
tar czf $OUT/g.tgz -C /tmp g
