#!/usr/bin/env bash
# 1 x H200: where a setup's time goes (a temporary trace in the worker: CUTUNE_TRACE_SETUP)
set -u
cd "$(dirname "$0")/.."
. scripts/gpu-env.sh
base=$OUT
d=$(mktemp -d)
sz=(); for m in 1 16 2048; do for nk in 12288x4096 32000x8192 8192x28672; do sz+=(--size ${m}x${nk}-bf16-nt); done; done
CUTUNE_TRACE_SETUP=1 CUTUNE_CACHE_DIR=$d/c build/cli/cutune run matmul "${sz[@]}" --variant matmul_cublaslt --budget 4 --device 0 --no-progress --db $d/a.db --json > $d/a.jsonl 2> $base/trace.txt
python3 -c "
import json,sys
for l in open(sys.argv[1]):
    if '\"summary\"' in l:
        e=json.loads(l); g=e['gpus'][0]; print('wall %.2f start %.2f'%(e['wall_s'],e['start_s']), {k:round(v,2) if isinstance(v,float) else v for k,v in g.items() if k!='name'})" $d/a.jsonl
grep -c TRACE $base/trace.txt
grep "TRACE setup\|TRACE teardown" $base/trace.txt | head -40
grep "TRACE kernel" $base/trace.txt | awk '{print $3}' | sort | uniq -c
grep "TRACE kernel" $base/trace.txt | head -12
awk '/TRACE free/{f+=$3} /TRACE malloc/{m+=$4} END{print "free ms", f, "malloc ms", m}' $base/trace.txt
