#!/usr/bin/env python3
"""Per size: the best verified time of each matmul variant, and the latest yardstick, from a
database tuned without the bias epilogue and one tuned with it (the same shapes)."""
import sqlite3
import sys


def table(db):
    con = sqlite3.connect(db)
    best = {}
    for size, variant, ms in con.execute(
            "SELECT p.size, v.name, min(t.median_ms) FROM trials t JOIN problems p ON"
            " p.id = t.problem_id JOIN variants v ON v.id = t.variant_id WHERE t.status = 'ok'"
            " GROUP BY p.size, v.name"):
        best.setdefault(size, {})[variant] = ms
    yard = {}
    for size, name, ms in con.execute(
            "SELECT p.size, y.name, y.median_ms FROM yardsticks y JOIN problems p ON"
            " p.id = y.problem_id ORDER BY y.id"):
        yard[size] = (name, ms)
    return best, yard


b0, y0 = table(sys.argv[1])
b1, y1 = table(sys.argv[2])
print("%-28s %8s %8s %8s %8s %8s | %8s %8s %8s %8s %8s" % (
    "size", "mma", "wgmma", "lt", "yard", "best/y", "mma+b", "wgmma+b", "lt+b", "yard+b",
    "best/y"))
for size in sorted(b0, key=lambda s: [int(x) for x in s.split("-")[0].split("x")]):
    bias = size + "-bias"
    r0, r1 = b0.get(size, {}), b1.get(bias, {})
    ya, yb = y0.get(size, ("", 0))[1], y1.get(bias, ("", 0))[1]

    def f(x):
        return "%8.4f" % x if x else "%8s" % "-"
    own0 = min([r0.get(v) for v in ("matmul_mma", "matmul_wgmma") if r0.get(v)] or [0])
    all0 = min([x for x in r0.values()] or [0])
    all1 = min([x for x in r1.values()] or [0])
    print("%-28s %s %s %s %s %8.3f | %s %s %s %s %8.3f" % (
        size, f(r0.get("matmul_mma")), f(r0.get("matmul_wgmma")), f(r0.get("matmul_cublaslt")),
        f(ya), ya / all0 if all0 else 0, f(r1.get("matmul_mma")), f(r1.get("matmul_wgmma")),
        f(r1.get("matmul_cublaslt")), f(yb), yb / all1 if all1 else 0))
    _ = own0
print("(ms: each variant's best verified trial; yard: cuBLASLt's default heuristic, with its "
      "bias epilogue on the right, its latest time in the run; best/y: the yardstick over the "
      "best of all)")
