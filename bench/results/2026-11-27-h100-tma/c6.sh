#!/usr/bin/env bash
# one H100: matmul_wgmma's TMA producer against its cp.async one (the known configs, both
# loads, bf16 nn and nt), then matmul_wgmma tuned alone in nn with TMA in its space, then
# applications' launches of the TMA winners from Python (aligned, and a misaligned A)
set -u
cd "$(dirname "$0")/.."
T0=$(date +%s)
left() { echo $(( $1 - ($(date +%s) - T0) )); }
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site
for lib in libcublas.so.13 libcublasLt.so.13; do
    if ! ldconfig -p | grep -q "$lib"; then
        d=$(find / -name "$lib*" -not -path "*/proc/*" 2>/dev/null | head -1)
        [ -n "$d" ] && export LD_LIBRARY_PATH=$(dirname "$d")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    fi
done
L=/tmp/logs; mkdir -p $L
export CUTUNE_CACHE_DIR=/tmp/kc
W=()
while read -r line; do W+=(--where "$line"); done < <(grep -v '^#' tuning_spaces/matmul_wgmma.known | grep -v 'TMA=' | head -6)
S=()
for k in bf16-nn bf16-nt; do for s in 2048x2048x2048 4096x4096x4096 8192x8192x8192 4096x11008x4096; do S+=(--size $s-$k); done; done
timeout 200 build/cli/cutune run matmul --device 0 --variant matmul_wgmma "${W[@]}" "${S[@]}" --warm-start none --time 180 --db /tmp/ab.db --json > $L/ab.jsonl 2> $L/ab.err
echo "A/B rc=$? at $(( $(date +%s) - T0 )) s"
python3 .carry/tma_table.py $L/ab.jsonl | tee $L/ab_table.txt
timeout $(left 480) build/cli/cutune run matmul --device 0 --variant matmul_wgmma \
  --size 4096x4096x4096-bf16-nn --size 8192x8192x8192-bf16-nn --size 2048x2048x2048-bf16-nt \
  --size 2048x2048x2048-bf16-nn --time $(left 440) --db /tmp/wg.db --json > $L/alone.jsonl 2> $L/alone.err
echo "alone rc=$? at $(( $(date +%s) - T0 )) s"
python3 .carry/tma_table.py $L/alone.jsonl | tee $L/alone_table.txt
PYTHONPATH=$PWD/python:/tmp/site CUTUNE_LIBRARY=$PWD/build/core/libcutune.so CUTUNE_PLUGIN_PATH=$PWD/build/plugins timeout $(left 585) python3 .carry/tma_app.py /tmp/wg.db 2>&1 | tee $L/app.txt
echo "total $(( $(date +%s) - T0 )) s"
tar czf $OUT/c6.tgz -C /tmp logs
