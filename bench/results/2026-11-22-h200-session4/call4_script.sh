#!/bin/bash
# session 4, call 3: matmul_async v8 (branch-free copies, WK) on the GPU
export PATH=/usr/local/cuda/bin:$PATH
mkdir -p /tmp/g
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
# stop early when one config at 1000^3 and one at an N % 4 != 0 size are not ok
for sz in 1000x1000x1000 257x129x600; do
  build/cli/cutune run matmul --variant matmul_async --size $sz --db /tmp/g/first.db --no-progress \
    --where BM=64,BN=64,BK=8,WM=32,WN=32,WNITER=1,TM=4,TN=8,PAD=4,STAGES=2,SPLITK=1,WK=1,MINB=1 \
    --where BM=128,BN=64,BK=8,WM=32,WN=64,WNITER=1,TM=8,TN=8,PAD=4,STAGES=3,SPLITK=1,WK=2,MINB=1 2>&1 | grep "^matmul_async"
done
bad=$(python3 -c "import sqlite3; print(sqlite3.connect('/tmp/g/first.db').execute(\"SELECT count(*) FROM trial_details WHERE status != 'ok'\").fetchone()[0])")
echo "first check: $bad not ok"
[ "$bad" = 0 ] || { tar czf $OUT/g.tgz -C /tmp g; exit 1; }
OUT=/tmp/g TESTS_ARGS=--suite=gpu scripts/gpu-check.sh tests 2>&1 | tail -4
OUT=/tmp/g EDGE_BUDGET=8 scripts/gpu-check.sh splitk-edges 2>&1 | grep -E "exit|wrong|crash" | head
OUT=/tmp/g scripts/gpu-check.sh async-known 2>&1 | grep exit
time build/cli/cutune run matmul --variant matmul_async --size 1000x1000x1000 \
  --where BM=128,BN=64,WM=32,WN=64,PAD=4,SPLITK=1,MINB=1 \
  --where BM=64,BN=128,WM=32,WN=64,PAD=4,SPLITK=1,MINB=1 \
  --where BM=32,BN=256,WM=32,WN=32,PAD=4,SPLITK=1,MINB=1 \
  --where BM=128,BN=128,WM=32,WN=64,PAD=4,SPLITK=2,MINB=1 \
  --where BM=64,BN=64,WM=32,WN=32,PAD=4,SPLITK=1,MINB=1 \
  --db /tmp/g/sgemm.db --no-progress 2>&1 | tail -3
OUT=/tmp/g scripts/gpu-check.sh sgemm-bench 2>&1 | grep exit
grep -E "async|size" /tmp/g/bench.log
cfg=$(python3 - <<'PY'
import sqlite3
r = sqlite3.connect('/tmp/g/sgemm.db').execute("SELECT config FROM trial_details WHERE variant='matmul_async' AND size='1000x1000x1000' AND status='ok' AND config LIKE '%WK=%' ORDER BY median_ms LIMIT 1").fetchone()
print(r[0] if r else '')
PY
)
[ -n "$cfg" ] && timeout 150 scripts/stalls.sh /tmp/g/stalls 1000x1000x1000 "$cfg" 2>&1 | tail -12
tar czf $OUT/g.tgz -C /tmp g
