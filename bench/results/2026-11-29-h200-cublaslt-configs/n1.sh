#!/usr/bin/env bash
# cuBLASLt probe: configs beyond the heuristic's top 16 (overrides and full enumeration)
set -u
cd "$(dirname "$0")/.."
. scripts/gpu-env.sh
nvcc -O2 -std=c++17 -arch=sm_90 -o /tmp/ltprobe .carry/ltprobe.cu -lcublasLt 2>&1 | grep -v Wno | head
timeout $(left 300) /tmp/ltprobe 2>&1 | tee $OUT/ltprobe.log | grep -v "^  h"
echo "total $(( $(date +%s) - T0 )) s"
