#!/usr/bin/env python3
"""`cutune replay --score` against a Python implementation of the same definition, written
here from the issue's text (Willemsen et al., FGCS 2024), on small generated recordings:
seeded random times with failures, and a plateau where most configs tie with the optimum.
The per-seed best times come from one-seed replays (`--seeds 1 --seed K`), as an outside
tool gets them; the score, its budgets, R(M) and S(M), and the 10th percentile of the
fraction of the optimum must agree to rounding.

    test_replay_score.py CUTUNE_EXE
"""
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile

EXE = sys.argv[1]
SEEDS = 7
failures = []


def bad(msg):
    failures.append(msg)
    print("FAIL:", msg)


def write(path, rows):
    with open(path, "w") as f:
        f.write("# cutune recording\n# device: test\n# variant: t\n# size: 1\nA,B,status,median_ms\n")
        for a, b, ms in rows:
            f.write(f"{a},{b},ok,{ms!r}\n" if ms else f"{a},{b},compile_error,\n")


def replay(path, *args):
    out = subprocess.run([EXE, "replay", path, "--no-space", "--json", *args],
                         capture_output=True, text=True)
    if out.returncode != 0:
        bad(f"cutune replay {' '.join(args)}: exit {out.returncode}: {out.stderr}")
        return None
    return json.loads(out.stdout)


def reference(times, best_per_budget):
    """The score from the ok times and {M: [best time of each seed]} (None: found nothing)."""
    desc = sorted(times, reverse=True)
    n = len(desc)
    opt = desc[-1]
    asc = desc[::-1]
    med = asc[n // 2] if n % 2 else (asc[n // 2 - 1] + asc[n // 2]) / 2

    def cutoff(p):
        target = opt + (med - opt) * (1 - p)
        i = sum(1 for t in desc if t > target)
        return math.ceil(i / (n + 1 - i))

    f0, f1 = cutoff(0.5), cutoff(0.96)
    a, b = max(1, f0), max(f1, f0 + 1)
    grid = sorted({round(a + (b - a) * k / 11) for k in range(12)})
    if best_per_budget is None:
        return grid, None, None
    points = {}
    for m in grid:
        r = desc[min(n - 1, round(m * (n + 1) / (m + 1)))]
        s = statistics.median(t if t else desc[0] for t in best_per_budget[m])
        points[m] = (r, s, (r - s) / (r - opt) if r - opt > 0 else None)
    vals = [p[2] for p in points.values() if p[2] is not None]
    return grid, points, sum(vals) / len(vals)


def p10(v):
    v = sorted(v)
    k = 0.1 * (len(v) - 1)
    i = int(k)
    return v[i] + (v[min(i + 1, len(v) - 1)] - v[i]) * (k - i)


def check(name, rows):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, name + ".csv")
        write(path, rows)
        times = [ms for _, _, ms in rows if ms]
        grid, _, _ = reference(times, None)
        budgets = ",".join(map(str, grid))
        whole = replay(path, "--strategy", "annealing", "--seeds", str(SEEDS), "--score",
                       "--budgets", budgets)
        if whole is None:
            return
        rng = whole["score_range"]
        if [p["budget"] for p in whole["strategies"][0]["score_points"]] != grid:
            bad(f"{name}: budgets {[p['budget'] for p in whole['strategies'][0]['score_points']]}, "
                f"want {grid}")
        opt = min(times)
        per = {}  # strategy -> budget -> [fraction per seed]
        for k in range(1, SEEDS + 1):
            one = replay(path, "--strategy", "annealing", "--seeds", "1", "--seed", str(k),
                         "--budgets", budgets)
            if one is None:
                return
            for s in one["strategies"]:
                for r in s["results"]:
                    per.setdefault(s["name"], {}).setdefault(r["budget"], []).append(r["mean"])
        for s in whole["strategies"]:
            fr = per[s["name"]]
            best = {m: [opt / f if f > 0 else None for f in fr[m]] for m in grid}
            _, points, score = reference(times, best)
            got = s["score"]
            print(f"{name}: {s['name']} score {got:.6f}, reference {score:.6f} "
                  f"(budgets {rng['first']}..{rng['last']})")
            if abs(got - score) > 1e-9:
                bad(f"{name}: {s['name']} score {got}, reference {score}")
            for p in s["score_points"]:
                r, sm, sc = points[p["budget"]]
                if abs(p["random_ms"] - r) > 1e-12 or abs(p["median_best_ms"] - sm) > 1e-9 * sm:
                    bad(f"{name}: {s['name']} at {p['budget']}: R {p['random_ms']} S "
                        f"{p['median_best_ms']}, reference R {r} S {sm}")
                if (sc is None) != (p["score"] is None) or (sc is not None and abs(p["score"] - sc) > 1e-9):
                    bad(f"{name}: {s['name']} score({p['budget']}) {p['score']}, reference {sc}")
            for r in s["results"]:
                want = p10(fr[r["budget"]])
                if abs(r["p10"] - want) > 1e-9:
                    bad(f"{name}: {s['name']} p10 at {r['budget']}: {r['p10']}, reference {want}")


def main():
    g = random.Random(29)
    # 8 x 9 configs, a third of them failed, log-normal times
    rough = [(a, b, None if g.random() < 0.33 else round(math.exp(g.gauss(0, 0.6)), 6))
             for a in range(8) for b in range(9)]
    check("rough", rough)
    # a plateau: 20 of 90 configs within 1% of the optimum, one of them the optimum
    flat = [(a, b, round(1 + (0.01 * g.random() if a < 2 else 0.5 + g.random()), 6))
            for a in range(9) for b in range(10)]
    flat[7] = (flat[7][0], flat[7][1], 0.99)
    check("plateau", flat)
    if failures:
        sys.exit(1)
    print("replay --score: ok")


main()
