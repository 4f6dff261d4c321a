#!/usr/bin/env bash
# Kept as run on 2026-11-26 (bench/RESULTS.md, "one launch over 20x"): run from the repository root on
# the GPU machine, with build/worker-old built from the tree before the change. Not part of the scripts.
# temporary: A/B/A of the main job, new worker / old worker / new worker
set -u
out=${OUT:-/tmp/about}; mkdir -p $out
meson_test() { LD_LIBRARY_PATH=build/core build/tests/test_gpu_timing; echo "gpu_timing rc=$?"; }
meson_test 2>&1 | tail -3
for r in new1 old new2; do
    if [ $r = old ]; then export CUTUNE_WORKER=$PWD/build/worker-old; else unset CUTUNE_WORKER; fi
    MAIN_DIR=/tmp/m-$r MAIN_WAIT=300 scripts/main-job.sh start > $out/$r.start 2>&1
    python3 - $r /tmp/m-$r/run1.jsonl <<'PY'
import json,sys,collections
r=sys.argv[1]; ev=[json.loads(l) for l in open(sys.argv[2])]
tr=[e for e in ev if e['event']=='trial']
one=sum(1 for e in tr if e['cut_short'] and (e.get('message') or '').find('one launch')>=0)
two=sum(1 for e in tr if e['cut_short'] and (e.get('message') or '').find('two launches')>=0)
cut=sum(1 for e in tr if e['cut_short'])
t8=[e['elapsed_s'] for e in tr if e['size']=='8192x8192x8192']
sz={e['size']:round(e['best_ms'],4) for e in ev if e['event']=='size'}
print(r, 'wall', open(f'/tmp/m-{r}/wall').read(), 'trials', len(tr), 'cut', cut, 'one', one, 'two', two, '8192 phase %.1f s'%(max(t8)-min(t8)))
print('  best', sz)
PY
    gzip -c /tmp/m-$r/run1.jsonl > $out/$r.jsonl.gz
done
