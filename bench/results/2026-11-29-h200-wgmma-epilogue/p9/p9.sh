#!/usr/bin/env bash
# the small transformer (issue 32) at 5c86003: tuned 120 s, then CUDA graph replays three times
set -u
. scripts/gpu-env.sh
export CUTUNE_LIBRARY=$PWD/build/core/libcutune.so CUTUNE_EXE=$PWD/build/cli/cutune PYTHONPATH=$PWD/python${PYTHONPATH:+:$PYTHONPATH}
mkdir -p /tmp/t
timeout $(left 250) python3 examples/torch_transformer.py --db /tmp/t/tt.db --time 120 > $OUT/tt.log 2>&1
echo "tune rc $?" >> $OUT/tt.log
for i in 1 2 3; do
  timeout $(left 450) python3 examples/torch_transformer.py --db /tmp/t/tt.db --no-tune --graph > $OUT/tt_graph$i.log 2>&1
done
build/cli/cutune query matmul --db /tmp/t/tt.db --device 0 --size 4096x1024x4096-bf16-nt-bias > $OUT/q_down.txt 2>&1
grep -h -A8 'per shape' $OUT/tt_graph*.log; grep -h 'torch alone' $OUT/tt_graph*.log
