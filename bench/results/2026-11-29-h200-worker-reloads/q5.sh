#!/usr/bin/env bash
# 1 x H200: a setup's fixed cost: ten tiny sizes, one config each, bf16 (cuBLASLt) and fp32 (cuBLAS)
set -u
cd "$(dirname "$0")/.."
. scripts/gpu-env.sh
base=$OUT
export NVIDIA_TF32_OVERRIDE=0
d=$(mktemp -d)
summ() { python3 -c "
import json,sys
for l in open(sys.argv[1]):
    if l.startswith('{') and '\"summary\"' in l:
        e=json.loads(l); g=e['gpus'][0]; print(sys.argv[2], 'wall %.2f start %.2f'%(e['wall_s'],e.get('start_s',0)), {k:round(v,2) if isinstance(v,float) else v for k,v in g.items()})" $1 $2; }
sz=(); for n in 1 2 3 4 5 6 7 8 9 10; do sz+=(--size 8x$((n*64))x$((n*64))); done
szb=(); for n in 1 2 3 4 5 6 7 8 9 10; do szb+=(--size 8x$((n*64))x$((n*64))-bf16-nt); done
big=(--size 2048x4096x4096-bf16-nt --size 2048x8192x8192-bf16-nt --size 2048x28672x8192-bf16-nt --size 2048x32000x8192-bf16-nt)
CUTUNE_CACHE_DIR=$d/c build/cli/cutune run matmul "${szb[@]}" --variant matmul_cublaslt --budget 1 --device 0 --no-progress --db $d/a.db --json > $d/a.jsonl 2>$d/a.err; summ $d/a.jsonl bf16-tiny
CUTUNE_CACHE_DIR=$d/c build/cli/cutune run matmul "${sz[@]}" --variant matmul_naive --budget 1 --device 0 --no-progress --db $d/b.db --json > $d/b.jsonl 2>$d/b.err; summ $d/b.jsonl fp32-tiny
CUTUNE_CACHE_DIR=$d/c build/cli/cutune run matmul "${big[@]}" --variant matmul_cublaslt --budget 1 --device 0 --no-progress --db $d/c.db --json > $d/c.jsonl 2>$d/c.err; summ $d/c.jsonl bf16-big
CUTUNE_CACHE_DIR=$d/c LD_DEBUG=files LD_DEBUG_OUTPUT=$d/ld build/cli/cutune run matmul "${sz[@]}" --variant matmul_naive --budget 1 --device 0 --no-progress --db $d/e.db > /dev/null 2>&1
cat $d/ld.* | grep -c "file=libcublas.so" ; cat $d/ld.* | grep -c "calling fini.*libcublas.so"; cat $d/ld.* | grep -c "file=.*matmul.so"; cat $d/ld.* | grep -c "calling fini.*matmul.so"; cat $d/ld.* | grep -c "file=libcublasLt.so"
CUTUNE_CACHE_DIR=$d/c LD_DEBUG=files LD_DEBUG_OUTPUT=$d/le build/cli/cutune run matmul "${szb[@]}" --variant matmul_cublaslt --budget 1 --device 0 --no-progress --db $d/f.db > /dev/null 2>&1
cat $d/le.* | grep -c "file=libcublasLt.so" ; cat $d/le.* | grep -c "calling fini.*libcublasLt.so"; cat $d/le.* | grep -c "calling fini.*matmul.so"
