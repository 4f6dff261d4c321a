#!/usr/bin/env bash
# 1 x H200: the 30-size job and the main job on one GPU, a84340b (build-old) against the tree
# (37fb893, 87dfab9, and the warm start taking other sizes' winners and the known list in turn)
set -u
cd "$(dirname "$0")/.."
. scripts/gpu-env.sh
base=$OUT
for v in old new; do
    b=build; [ $v = old ] && b=build-old
    JOB=llm DTYPE=bf16 LAYOUT=nt OUT=/tmp/r/llm-$v BUILD=$PWD/$b RUNS=one KILL_AT=0 timeout $(left 300) scripts/multi-gpu.sh matmul > $base/llm-$v.txt 2>&1
    echo "llm $v rc=$? at $(( $(date +%s) - T0 )) s"
done
for v in old new; do
    b=build; [ $v = old ] && b=build-old
    OUT=/tmp/r/main-$v BUILD=$PWD/$b RUNS=one KILL_AT=0 timeout $(left 480) scripts/multi-gpu.sh matmul > $base/main-$v.txt 2>&1
    echo "main $v rc=$? at $(( $(date +%s) - T0 )) s"
done
tar czf $base/r.tgz -C /tmp r
for f in llm-old llm-new main-old main-new; do echo "== $f"; grep -A2 "^run " $base/$f.txt | tail -1; python3 -c "
import json,sys
for l in open(sys.argv[1]):
    if '\"summary\"' in l:
        e=json.loads(l); g=e['gpus'][0]; print({k:round(v,2) if isinstance(v,float) else v for k,v in g.items() if k not in ('name','device','lost','crashed')})" /tmp/r/$f/one.jsonl; done
paste <(grep -A31 "^quality per size" $base/llm-old.txt) <(grep -A31 "^quality per size" $base/llm-new.txt | awk '{print $2, $3}')
paste <(grep -A16 "^quality per size" $base/main-old.txt) <(grep -A16 "^quality per size" $base/main-new.txt | awk '{print $2, $3}')
