#!/usr/bin/env python3
"""The table of scripts/main-job.sh: per size, the main job's best against the best known
(re-timed in the same device call) and against cuBLAS (bench_matmul, same process), and when
the run first reached 95%, 98% and 99% of the best known.

    bench/main_job_table.py DIR OP [--svg FILE]

DIR holds run1.jsonl (the main job's --json lines), wall, wall2, known.db, bench.log."""
import json
import os
import sqlite3
import sys


def known_bests(path):
    if not os.path.exists(path):
        return {}
    rows = sqlite3.connect(path).execute(
        "SELECT size, min(median_ms) FROM trial_details WHERE status = 'ok' GROUP BY size")
    return {s: ms for s, ms in rows}


def cublas(path):
    """size -> (cuBLAS ms, the best variant's ratio) from bench_matmul's table."""
    out = {}
    if not os.path.exists(path):
        return out
    for line in open(path):
        f = line.split()
        if len(f) >= 8 and f[0][0].isdigit() and f[2] != "-":
            ms, cub = float(f[2]), float(f[4])
            if f[0] not in out or ms < out[f[0]][1]:
                out[f[0]] = (cub, ms)
    return out


def reached(trials, size, target_ms):
    """Seconds into the run when a trial of the size first ran at target_ms or faster."""
    for t in trials:
        if t["size"] == size and t.get("median_ms") and t["median_ms"] <= target_ms:
            return t["elapsed_s"]
    return None


def svg(path, trials, sizes, known):
    """Quality (best known / best so far) against wall time, one line per size."""
    w, h, l, b = 720, 360, 50, 30
    tmax = max([t["elapsed_s"] for t in trials] + [1])
    lines = []
    colors = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
              "#7f7f7f", "#bcbd22", "#17becf"]
    def xy(t, q):
        q = max(0.5, min(1.05, q))
        return l + (w - l - 10) * t / tmax, h - b - (h - b - 10) * (q - 0.5) / 0.55
    for i, s in enumerate(sizes):
        k = known.get(s)
        best, pts = None, []
        for t in trials:
            if t["size"] != s or not t.get("median_ms"):
                continue
            if best is None or t["median_ms"] < best:
                best = t["median_ms"]
                if k:
                    pts.append(xy(t["elapsed_s"], k / best))
        if pts:
            pts.append((xy(tmax, 0)[0], pts[-1][1]))
            d = " ".join("%s%.1f,%.1f" % ("M" if j == 0 else "L", x, y) for j, (x, y) in enumerate(pts))
            lines.append('<path d="%s" fill="none" stroke="%s" stroke-width="1.5"/>' % (d, colors[i % 10]))
            lines.append('<text x="%d" y="%d" font-size="11" fill="%s">%s</text>' % (w - 170, 20 + 13 * i, colors[i % 10], s))
    grid = []
    for q in (0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1.0):
        x0, y = xy(0, q)
        grid.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/><text x="4" y="%.1f" font-size="10">%.2f</text>' % (l, y, w - 10, y, y + 3, q))
    for k in range(6):
        x, _ = xy(tmax * k / 5, 0.5)
        grid.append('<text x="%.1f" y="%d" font-size="10">%.0f s</text>' % (x - 10, h - 12, tmax * k / 5))
    with open(path, "w") as f:
        f.write('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif">' % (w, h))
        f.write('<text x="%d" y="12" font-size="11">best known / best so far, against the run\'s wall time</text>' % l)
        f.write("".join(grid + lines) + "</svg>\n")


def main():
    d, op = sys.argv[1], sys.argv[2]
    events = [json.loads(x) for x in open(os.path.join(d, "run1.jsonl"))]
    trials = [e for e in events if e["event"] == "trial"]
    summary = [e for e in events if e["event"] == "summary"][-1]
    known = known_bests(os.path.join(d, "known.db"))
    cub = cublas(os.path.join(d, "bench.log"))
    read = lambda n: open(os.path.join(d, n)).read().strip() if os.path.exists(os.path.join(d, n)) else "?"
    print("main job: `cutune run %s --device 0 --json` (fresh database, cold kernel cache): "
          "wall %s s, %d measurements; second run: wall %s s" % (op, read("wall"), len(trials), read("wall2")))
    print("%-16s %-16s %10s %10s %8s %10s %8s %7s %7s %7s" % (
        "size", "variant", "best ms", "known ms", "vs known", "cuBLAS ms", "vs cuBLAS", "95% at", "98% at", "99% at"))
    for s in summary["sizes"]:
        size, best = s["size"], s["best_ms"]
        k = known.get(size)
        ref = min(k, best) if k and best else k
        c = cub.get(size)
        at = [reached(trials, size, ref / q) if ref else None for q in (0.95, 0.98, 0.99)]
        print("%-16s %-16s %10s %10s %8s %10s %8s %7s %7s %7s" % (
            size, s["variant"] or "-", "%.4f" % best if best else "-", "%.4f" % k if k else "-",
            "%.3f" % (k / best) if k and best else "-", "%.4f" % c[0] if c else "-",
            "%.3f" % (c[0] / c[1]) if c else "-",
            *["%.0f s" % a if a is not None else "-" for a in at]))
    if len(sys.argv) > 4 and sys.argv[3] == "--svg":
        svg(sys.argv[4], trials, [s["size"] for s in summary["sizes"]], known)


main()
