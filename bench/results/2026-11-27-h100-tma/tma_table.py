# per size: cuBLASLt's default (the yardstick), the best TMA=1 and TMA=0 configs of matmul_wgmma
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
s = [e for e in ev if e["event"] == "summary"]
s = s[-1] if s else {"sizes": []}
best, n = {}, {}
for t in ev:
    if t["event"] != "trial" or t.get("variant") != "matmul_wgmma":
        continue
    tma = "TMA=1" in t["config"]
    n[(t["size"], tma, t["status"])] = n.get((t["size"], tma, t["status"]), 0) + 1
    if t["status"] == "ok" and t.get("median_ms"):
        k = (t["size"], tma)
        if k not in best or t["median_ms"] < best[k][0]:
            best[k] = (t["median_ms"], t["config"])
print("wall %.1f s" % s.get("wall_s", 0))
print("%-26s %9s %9s %7s %9s %7s %7s" % ("size", "yard ms", "TMA ms", "ratio", "cp ms", "ratio", "TMA/cp"))
for z in s["sizes"]:
    y = z.get("yardstick_ms") or 0
    a, b = best.get((z["size"], True)), best.get((z["size"], False))
    r = lambda x: y / x[0] if x and y else 0
    print("%-26s %9.4f %9.4f %7.3f %9.4f %7.3f %7.3f" % (z["size"], y, a[0] if a else 0, r(a), b[0] if b else 0, r(b), b[0] / a[0] if a and b else 0))
for z in s["sizes"]:
    for tma in (True, False):
        b = best.get((z["size"], tma))
        if b:
            print("  %-26s TMA=%d %.4f %s" % (z["size"], tma, b[0], b[1]))
print("trials by (size, TMA, status):")
for k in sorted(n):
    print("  %-26s TMA=%d %-16s %d" % (k[0], k[1], k[2], n[k]))
