#!/usr/bin/env python3
"""cutune against Kernel Tuner on the same kernel and the same space, side by side on one GPU.

    python3 bench/kt_compare.py [--size 2048] [--kt-time 150] [--cutune-time 120]
                                [--strategies random_sample,genetic_algorithm] [--out DIR]
                                [--repeats 1]

The kernel is matmul_reg2d (tuning_spaces/matmul_reg2d.cu after matmul_tiles.cuh, the text
cutune compiles) at an M x N x K size; the space is its tuning space (1404 valid configs on
sm_90), given to Kernel Tuner as the same parameters with the space's constraints as a
restriction, and the thread count as block_size_x. Both tools check every config's output.

1. `cutune run matmul --variant matmul_reg2d --strategy exhaustive` measures every config:
   the table that judges every config below (one yardstick for both tools' choices), the
   optimum, and the exhaustive rate in configs/s.
2. `cutune run matmul --variant matmul_reg2d --warm-start none --time T` from a cold kernel
   cache: cutune's default search with nothing known.
3. Kernel Tuner (CuPy backend, NVRTC) with each strategy, time_limit T, a fresh CuPy cache.

Cold means cold for the CUDA driver too. With a driver present, NVRTC 12.9+ keeps a cache of
its compiles in the driver's compute cache (~/.nv/ComputeCache), and a compile found there takes
about a sixth of the time. cutune turns that cache off for its compiles (-no-cache, unless
CUTUNE_NVRTC_CACHE=1), and each cutune run still gets a fresh CUDA_CACHE_PATH of its own; this
process, where Kernel Tuner runs, sets CUDA_CACHE_DISABLE=1 before CUDA starts. Without that,
the exhaustive run of step 1 would warm every config of the space for the searches after it.
Kernel Tuner then compiles cold, as on its first use, and spends nothing writing the cache.

For each, the time into the run at which the best config found so far first reached 95% and
99% of the optimum (judged by the exhaustive table), the evaluations, and configs/s. With
--repeats R, steps 2 and 3 run R times each (seeds 1..R, a cold cache each time), and a last
table gives each tool's median over the repeats and the ratio of each Kernel Tuner strategy's
median time to 95% to cutune's (a run that never reached 95% counts as its whole wall time,
and its ratio is then a lower bound, marked >=)."""
import argparse
import itertools
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PARAMS = {"BM": [32, 64, 128, 256], "BN": [32, 64, 128, 256], "BK": [8, 16, 32],
          "TM": [2, 4, 8, 16], "TN": [2, 4, 8, 16], "PAD": [0, 4], "VEC": [0, 1]}


def valid(p):
    """tuning_spaces/matmul_reg2d.ini's [constraints] under sm_90 limits."""
    nt = (p["BM"] // p["TM"]) * (p["BN"] // p["TN"])
    return (p["BM"] % p["TM"] == 0 and p["BN"] % p["TN"] == 0 and 64 <= nt <= 1024
            and p["TM"] * p["TN"] <= 64
            and (p["VEC"] == 0 or (p["TM"] % 4 == 0 and p["TN"] % 4 == 0))
            and p["BK"] * (p["BM"] + p["PAD"] + p["BN"]) * 4 <= 48 * 1024)


def text(p):
    return ",".join("%s=%d" % (k, p[k]) for k in PARAMS)


def cutune_run(exe, env, size, db, args, log):
    t0 = time.time()
    out = subprocess.run([exe, "run", "matmul", "--device", "0", "--variant", "matmul_reg2d",
                          "--size", size, "--db", db, "--json"] + args, env=env,
                         capture_output=True, text=True)
    wall = time.time() - t0
    open(log, "w").write(out.stdout + out.stderr)
    if out.returncode != 0:
        print("cutune run %s exited %d:\n%s" % (" ".join(args), out.returncode, out.stderr[-2000:]))
    trials = []
    for line in out.stdout.splitlines():
        e = json.loads(line)
        if e["event"] == "trial":
            trials.append((e["elapsed_s"], e["config"], e["median_ms"] if e["status"] == "ok" else None))
    return trials, wall


def reached(trajectory, table, optimum, q):
    """First time at which a config of the trajectory judged >= q of the optimum."""
    for t, cfg in trajectory:
        ms = table.get(cfg)
        if ms and optimum / ms >= q:
            return t
    return None


def median_to(rows, col):
    """The median over rows of the time in column col, a run that never got there counting as
    its wall time; and whether any did not get there (the median is then a lower bound when it
    is one of them)."""
    vals = [(r[col], False) if r[col] is not None else (r[2], True) for r in rows]
    vals.sort()
    med = statistics.median(v for v, _ in vals)
    censored = any(c and v <= med for v, c in vals)
    return med, censored


def summary(rows):
    """Per tool (rows are (tool, configs, wall, rate, t95, t99, best)): repeats, median configs/s,
    median time to 95% and 99%, median best; then Kernel Tuner's median to 95% over cutune's."""
    tools = []
    for r in rows:
        if r[0] not in tools:
            tools.append(r[0])
    out = []
    for tool in tools:
        mine = [r for r in rows if r[0] == tool]
        t95, c95 = median_to(mine, 4)
        t99, c99 = median_to(mine, 5)
        out.append((tool, len(mine), statistics.median(r[3] for r in mine), t95, c95, t99, c99,
                    statistics.median(r[6] for r in mine)))
    lines = ["%-44s %7s %9s %11s %11s %7s" % ("tool (median over repeats)", "repeats", "configs/s",
                                               "95% at s", "99% at s", "best")]
    for tool, n, rate, t95, c95, t99, c99, best in out:
        lines.append("%-44s %7d %9.2f %11s %11s %7.3f" % (
            tool, n, rate, (">=" if c95 else "") + "%.1f" % t95, (">=" if c99 else "") + "%.1f" % t99,
            best))
    base = out[0]
    for tool, _, _, t95, c95, _, _, _ in out[1:]:
        if base[4]:
            lines.append("%s / %s to 95%%: cutune never reached it in its median run" % (tool, base[0]))
        else:
            lines.append("%s needs %s%.1fx cutune's median time to 95%%" % (
                tool, ">=" if c95 else "", t95 / base[3] if base[3] > 0 else float("inf")))
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", default="2048")
    ap.add_argument("--kt-time", type=float, default=150)
    ap.add_argument("--cutune-time", type=float, default=120)
    ap.add_argument("--strategies", default="random_sample,genetic_algorithm")
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    ap.add_argument("--repeats", type=int, default=1,
                    help="runs of each tool (seeds 1..N, cold caches); medians at the end")
    o = ap.parse_args()
    n = int(o.size.split("x")[0])
    M = N = K = n
    exe = os.path.join(ROOT, "build", "cli", "cutune")
    work = tempfile.mkdtemp(prefix="kt-compare-")
    env = dict(os.environ, NVIDIA_TF32_OVERRIDE="0")
    env.pop("CUDA_CACHE_DISABLE", None)
    # Kernel Tuner runs in this process: no driver compute cache for it (see the docstring);
    # the driver reads this when CuPy first starts CUDA, after the cutune runs of step 1
    os.environ["CUDA_CACHE_DISABLE"] = "1"

    space = [p for p in (dict(zip(PARAMS, v)) for v in itertools.product(*PARAMS.values()))
             if valid(p)]
    rows = []

    # 1. exhaustive: the yardstick table
    env["CUTUNE_CACHE_DIR"] = os.path.join(work, "cache-ex")
    env["CUDA_CACHE_PATH"] = os.path.join(work, "nvcache-ex")
    ex, ex_wall = cutune_run(exe, env, o.size, os.path.join(work, "ex.db"),
                             ["--strategy", "exhaustive"], os.path.join(o.out, "cutune_exhaustive.log"))
    table = {c: ms for _, c, ms in ex if ms}
    optimum = min(table.values())
    best_cfg = min(table, key=table.get)
    print("space: %d configs here, %d measured by cutune (exhaustive, %.1f s, %.1f configs/s); "
          "optimum %.4f ms (%s)" % (len(space), len(ex), ex_wall, len(ex) / ex_wall, optimum, best_cfg))
    if len(space) != len(ex):
        print("warning: the Python space has %d configs and cutune's %d" % (len(space), len(ex)))

    # 2. cutune's default search from nothing, once per seed
    for rep in range(o.repeats):
        tag = "" if o.repeats == 1 else "-%d" % (rep + 1)
        env["CUTUNE_CACHE_DIR"] = os.path.join(work, "cache-search" + tag)
        env["CUDA_CACHE_PATH"] = os.path.join(work, "nvcache-search" + tag)
        tr, wall = cutune_run(exe, env, o.size, os.path.join(work, "search%s.db" % tag),
                              ["--warm-start", "none", "--time", str(o.cutune_time), "--no-progress",
                               "--seed", str(rep + 1)],
                              os.path.join(o.out, "cutune_search%s.log" % tag))
        traj = [(t, c) for t, c, _ in tr]
        best = max((optimum / table[c] for _, c in traj if c in table), default=0)
        rows.append(("cutune (default, no warm start)", len(tr), wall, len(tr) / wall,
                     reached(traj, table, optimum, 0.95), reached(traj, table, optimum, 0.99), best))

    # 3. Kernel Tuner
    strategies = [x for x in o.strategies.split(",") if x]
    if strategies:
        import kernel_tuner
    rng = np.random.default_rng(7)
    A = rng.uniform(-1, 1, (M, K)).astype(np.float32)
    B = rng.uniform(-1, 1, (K, N)).astype(np.float32)
    C = np.zeros((M, N), np.float32)
    ref = (A.astype(np.float64) @ B.astype(np.float64)).astype(np.float32)
    source = open(os.path.join(ROOT, "tuning_spaces", "matmul_tiles.cuh")).read() + "\n" + \
        open(os.path.join(ROOT, "tuning_spaces", "matmul_reg2d.cu")).read()
    tune_params = dict(PARAMS)
    tune_params["block_size_x"] = [64, 128, 256, 512, 1024]

    def restrict(p):
        return valid(p) and p["block_size_x"] == (p["BM"] // p["TM"]) * (p["BN"] // p["TN"])

    for strategy, rep in itertools.product(strategies, range(o.repeats)):
        tag = "" if o.repeats == 1 else "-%d" % (rep + 1)
        np.random.seed(rep + 1)  # Kernel Tuner's strategies draw from numpy's and Python's
        random.seed(rep + 1)
        os.environ["CUPY_CACHE_DIR"] = os.path.join(work, "cupy-" + strategy + tag)
        t0 = datetime.now().astimezone()
        w0 = time.time()
        results, _ = kernel_tuner.tune_kernel(
            "matmul_reg2d", source, (N, M), [A, B, C, np.int32(M), np.int32(N), np.int32(K)],
            tune_params, grid_div_x=["BN"], grid_div_y=["BM"], restrictions=restrict,
            answer=[None, None, ref, None, None, None], atol=1e-2, lang="cupy",
            strategy=strategy, strategy_options={"time_limit": o.kt_time}, verbose=False,
            quiet=True)
        wall = time.time() - w0
        traj = []
        for r in results:
            ts = datetime.fromisoformat(str(r["timestamp"]).replace(" ", "T"))
            if ts.tzinfo is None:
                ts = ts.astimezone()
            traj.append(((ts - t0).total_seconds(), text(r)))
        traj.sort()
        ok = [c for _, c in traj if c in table]
        best = max((optimum / table[c] for c in ok), default=0)
        rows.append(("Kernel Tuner " + kernel_tuner.__version__ + " " + strategy, len(results),
                     wall, len(results) / wall, reached(traj, table, optimum, 0.95),
                     reached(traj, table, optimum, 0.99), best))
        json.dump([{k: (v if isinstance(v, (int, float, str)) else str(v)) for k, v in r.items()}
                   for r in results], open(os.path.join(o.out, "kt_%s%s.json" % (strategy, tag)), "w"))

    print("%-44s %8s %8s %9s %9s %9s %9s" % ("tool", "configs", "wall s", "configs/s", "95% at s",
                                              "99% at s", "best"))
    for name, nconf, wall, rate, t95, t99, best in rows:
        print("%-44s %8d %8.1f %9.2f %9s %9s %9.3f" % (
            name, nconf, wall, rate, "%.1f" % t95 if t95 is not None else "-",
            "%.1f" % t99 if t99 is not None else "-", best))
    if o.repeats > 1:
        print()
        print(summary(rows))


if __name__ == "__main__":
    sys.exit(main())
