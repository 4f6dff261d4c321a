#!/usr/bin/env bash
# 1 x H200: a cold start's first trial, a84340b (build-old) against the working tree (host
# kernels compiled once per source), alternating; then the GPU suite
set -u
cd "$(dirname "$0")/.."
. scripts/gpu-env.sh
base=$OUT
export NVIDIA_TF32_OVERRIDE=0
d=$(mktemp -d)
first() { # BUILD NAME SIZE: a cold run of one size; its first trial's time and the run's wall
    CUTUNE_CACHE_DIR=$d/c-$2 $1/cli/cutune run matmul --size $3 --variant matmul_cublaslt --budget 2 --device 0 --no-progress --db $d/$2.db --json > $d/$2.jsonl 2>/dev/null
    python3 -c "
import json,sys
ev=[json.loads(l) for l in open(sys.argv[1]) if l.startswith('{')]
t=[e['elapsed_s'] for e in ev if e['event']=='trial']; s=[e for e in ev if e['event']=='summary'][0]
print('%-4s %-24s first trial %.2f s  wall %.2f s  start %.2f s  setup %.2f s'%(sys.argv[2], sys.argv[3], min(t), s['wall_s'], s.get('start_s',0), s['gpus'][0]['setup_s']))" $d/$2.jsonl $4 $3
}
for i in 1 2 3; do
    for sz in 2048x2048x2048-bf16-nt 2048x2048x2048; do
        first build-old old$i-$sz $sz old
        first build new$i-$sz $sz new
    done
done | tee $base/start.txt
export CUTUNE_CHECK_BUDGET=8
timeout $(left 560) python3 scripts/run-tests.py build $base/tests.log --suite=gpu > $base/tests.out 2>&1
echo "suite rc $? at $(( $(date +%s) - T0 )) s" >> $base/tests.out
tail -16 $base/tests.out
