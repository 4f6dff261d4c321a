#!/usr/bin/env bash
# 1 x H200: the main job on one GPU, a84340b (build-old) then the working tree (helper kernels
# kept per worker, the op kept loaded, cuBLAS opened once); then the GPU suite
set -u
cd "$(dirname "$0")/.."
. scripts/gpu-env.sh
base=$OUT
OUT=/tmp/r/old BUILD=$PWD/build-old RUNS=one KILL_AT=0 timeout $(left 110) scripts/multi-gpu.sh matmul > $base/old.txt 2>&1
echo "old rc=$? at $(( $(date +%s) - T0 )) s"
OUT=/tmp/r/new RUNS=one KILL_AT=0 timeout $(left 220) scripts/multi-gpu.sh matmul > $base/new.txt 2>&1
echo "new rc=$? at $(( $(date +%s) - T0 )) s"
for f in old new; do echo "== $f"; grep -A2 "^run " $base/$f.txt; python3 -c "
import json,sys
for l in open(sys.argv[1]):
    if '\"summary\"' in l:
        e=json.loads(l); g=e['gpus'][0]; print({k:round(v,2) if isinstance(v,float) else v for k,v in g.items() if k not in ('name',)})" /tmp/r/$f/one.jsonl; done
grep -A17 "^quality per size" $base/new.txt
tar czf $base/r.tgz -C /tmp r
export CUTUNE_CHECK_BUDGET=8
timeout $(left 580) python3 scripts/run-tests.py build $base/tests.log --suite=gpu > $base/tests.out 2>&1
echo "suite rc $? at $(( $(date +%s) - T0 )) s" >> $base/tests.out
tail -16 $base/tests.out
