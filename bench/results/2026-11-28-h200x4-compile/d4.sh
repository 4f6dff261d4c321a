#!/usr/bin/env bash
# 4 x H100 host: NVRTC alone, threads of one process against spawned processes, 16-64
set -u
cd "$(dirname "$0")/.."
nproc; lscpu | grep -E "Model name|Thread|Core|Socket" | tee $OUT/cpu.txt
zcat bench/results/2026-11-26-compile-replay/recordings/h100-GPU-608aa4f1-matmul_reg2d-2048.db.gz > /tmp/cs.db
for round in 1 2; do
  timeout 250 python3 bench/compile_scaling.py tuning_spaces/matmul_reg2d.ini /tmp/cs.db --set random:256 --threads 16,32,64 --procs 16,32,64 2>&1 | tee -a $OUT/compile_scaling.log
done
