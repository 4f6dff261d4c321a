# per size: cuBLASLt's default (the yardstick, re-timed beside the best at the size's end),
# each config of matmul_wgmma with MCAST=0 and its MCAST=1 twin, and the best of each
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
s = [e for e in ev if e["event"] == "summary"]
s = s[-1] if s else {"sizes": []}
t_of = {}
for t in ev:
    if t["event"] != "trial" or t.get("variant") != "matmul_wgmma" or t["phase"] == "re-time":
        continue
    t_of[(t["size"], t["config"])] = (t["status"], t.get("median_ms") or 0, t.get("cut_short"))
print("wall %.1f s" % s.get("wall_s", 0))
for z in s["sizes"]:
    y = z.get("yardstick_ms") or 0
    print("\n%s: yardstick %.4f ms (cuBLASLt default, at the size's end)" % (z["size"], y))
    base = sorted({c.replace(",MCAST=1", ",MCAST=0") for (sz, c) in t_of if sz == z["size"]})
    best = {0: None, 1: None}
    for c0 in base:
        row = []
        for m in (0, 1):
            c = c0.replace(",MCAST=0", ",MCAST=%d" % m)
            st = t_of.get((z["size"], c))
            if st and st[0] == "ok" and st[1] > 0:
                row.append("%.4f (%.3fx)%s" % (st[1], y / st[1] if y else 0, "*" if st[2] else ""))
                if not best[m] or st[1] < best[m][0]:
                    best[m] = (st[1], c)
            else:
                row.append(st[0] if st else "-")
        print("  %-44s %-22s %-22s" % (c0.replace(",MCAST=0", "")[:44], row[0], row[1]))
    for m in (0, 1):
        if best[m]:
            print("  best MCAST=%d: %.4f ms, %.3fx: %s" % (m, best[m][0], y / best[m][0] if y else 0, best[m][1]))
