#!/usr/bin/env bash
# H200 at 5c86003: the main job as typed (fresh database, cold caches), then the tensor-core
# matrix (bf16/fp16 nt/nn, tf32 nn at issue 27's sizes) in one tuning run
set -u
. scripts/gpu-env.sh
export CUTUNE_LIBRARY=$PWD/build/core/libcutune.so CUTUNE_EXE=$PWD/build/cli/cutune
mkdir -p $OUT/main
RUNS=one KILL_AT=0 OUT=$OUT/main timeout $(left 200) scripts/multi-gpu.sh matmul > $OUT/main/multi.log 2>&1
echo "main rc $? at $(( $(date +%s) - T0 )) s"
#!/usr/bin/env bash
# one H100: bf16 and fp16 in nn and nt, and tf32 nn, at the issue's sizes: one tuning run,
# then per size the yardstick (cuBLASLt's default), the best, and the best of each own kernel
set -u



for lib in libcublas.so.13 libcublasLt.so.13; do
    if ! ldconfig -p | grep -q "$lib"; then
        d=$(find / -name "$lib*" -not -path "*/proc/*" 2>/dev/null | head -1)
        [ -n "$d" ] && export LD_LIBRARY_PATH=$(dirname "$d")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    fi
done
args=()
for k in bf16-nt bf16-nn fp16-nt fp16-nn; do
  for s in 2048x2048x2048 4096x4096x4096 8192x8192x8192 4096x11008x4096; do args+=(--size $s-$k); done
done
args+=(--size 4096x4096x4096-tf32-nn --size 8192x8192x8192-tf32-nn)
L=/tmp/logs; mkdir -p $L
CUTUNE_CACHE_DIR=/tmp/kc timeout $(left 540) build/cli/cutune run matmul --device 0 "${args[@]}" --time 480 --db /tmp/tc.db --json > $L/tc.jsonl 2> $L/tc.err
echo "run rc=$? at $(( $(date +%s) - T0 )) s"
python3 - $L/tc.jsonl <<'PY' | tee $L/tc_table.txt
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
s = [e for e in ev if e["event"] == "summary"]
s = s[-1] if s else {"sizes": []}
best = {}
for t in ev:
    if t["event"] == "trial" and t["status"] == "ok" and t.get("median_ms"):
        k = (t["size"], t["variant"])
        if k not in best or t["median_ms"] < best[k][0]:
            best[k] = (t["median_ms"], t["config"])
print("wall %.1f s" % s.get("wall_s", 0))
print("%-26s %9s %9s %-16s %7s | %-8s %7s | %-8s %7s" % ("size", "yard ms", "best ms", "best variant", "ratio", "", "wgmma", "", "mma"))
for z in s["sizes"]:
    y = z.get("yardstick_ms") or 0
    row = "%-26s %9.4f %9.4f %-16s %7.3f" % (z["size"], y, z.get("best_ms") or 0, z.get("variant", ""), y / z["best_ms"] if z.get("best_ms") else 0)
    for v in ("matmul_wgmma", "matmul_mma", "matmul_tf32"):
        b = best.get((z["size"], v))
        if b:
            row += " | %-8s %7.3f" % (v[7:], y / b[0] if y else 0)
    print(row)
for z in s["sizes"]:
    for v in ("matmul_wgmma", "matmul_mma", "matmul_tf32"):
        b = best.get((z["size"], v))
        if b:
            print("  %-26s %-13s %.4f %s" % (z["size"], v, b[0], b[1]))
PY
tail -60 $L/tc.err | head -45
gzip -c $L/tc.jsonl > $L/tc.jsonl.gz; rm $L/tc.jsonl
tar czf $OUT/c1.tgz -C /tmp logs
echo "total $(( $(date +%s) - T0 )) s"
