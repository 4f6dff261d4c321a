#!/usr/bin/env bash
# one GPU, the same machine: the main job as typed (fresh database, cold caches) with the
# search before the merge of wip/l-search (9c165eb, .carry/pre/build) and after it (./build)
set -u
cd "$(dirname "$0")/.."
. scripts/gpu-env.sh
L=/tmp/logs2; mkdir -p $L
for v in pre post; do
    bd=build; [ $v = pre ] && bd=.carry/pre/build
    BUILD=$PWD/$bd RUNS=one KILL_AT=0 OUT=/tmp/m-$v timeout 280 scripts/multi-gpu.sh matmul > $L/mainjob-$v.log 2>&1
    echo "$v rc=$? at $(( $(date +%s) - T0 )) s"; sed -n '/^run /,$p' $L/mainjob-$v.log | head -7
    cp /tmp/m-$v/one.err $L/mainjob-$v.err 2>/dev/null; gzip -c /tmp/m-$v/one.jsonl > $L/mainjob-$v.jsonl.gz
    tar czf $OUT/d2.tgz -C /tmp logs2
done
paste <(sed -n '/^quality/,$p' $L/mainjob-pre.log) <(sed -n '/^quality/,$p' $L/mainjob-post.log | awk '{print $2, $3}')
echo "total $(( $(date +%s) - T0 )) s"
