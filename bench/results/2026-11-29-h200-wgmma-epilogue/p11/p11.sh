#!/usr/bin/env bash
# the grad path without the dispatcher (python/cutune/_torch.py): old package (HEAD) and new in
# alternating processes, training's forward of a routed 4096x1024x1024 bf16 GEMM with its bias; python_gpu
set -u
. scripts/gpu-env.sh
export CUTUNE_LIBRARY=$PWD/build/core/libcutune.so CUTUNE_EXE=$PWD/build/cli/cutune CUTUNE_CACHE_DIR=/tmp/kc
db=/tmp/ov.db; rm -f $db
timeout $(left 120) build/cli/cutune run matmul --device 0 --size 4096x1024x1024 --dtype bf16 --layout nt --epilogue bias --db $db --time 60 > $OUT/tune.log 2>&1
for i in 1 2 3; do
  for v in old new; do
    if [ $v = old ]; then P=$PWD/.carry/oldpy/python; else P=$PWD/python; fi
    echo "== $v $i" >> $OUT/grad.log
    PYTHONPATH=$P:$PYTHONPATH timeout $(left 400) python3 bench/torch_overhead.py --db $db --size 4096x1024x1024 --bias --host --grad >> $OUT/grad.log 2>&1
  done
done
PYTHONPATH=$PWD/python:$PYTHONPATH timeout $(left 560) python3 scripts/run-tests.py build $OUT/tests.log --test=python_gpu > $OUT/tests.out 2>&1
cat $OUT/tests.out | tail -3
grep -E '^==|use|swap|torch ' $OUT/grad.log | head -40
