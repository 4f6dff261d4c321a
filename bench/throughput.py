#!/usr/bin/env python3
"""Configs a second of the guided search against exhaustive search, on the same variant and
size, in one call on one GPU: each run from a fresh database and cold caches (cutune's
kernel cache and the driver's compute cache), with no warm start.

A run is NAME or NAME:BUDGET (the most measurements; --budget otherwise):
  exhaustive  every config in the space file's order (its first configs are the small tiles,
              which compile fastest: on matmul_async at 1000^3 the file's first 400 went at
              37.5 a second on an H200, random draws from the whole space at 9.6)
  random      configs drawn from the whole space: exhaustive's average config, at any budget
  portfolio   the default's guided search, named, so that it runs to its budget
  default     no --strategy: what a user gets. The scheduler may measure a space that fits its
              time whole (in the guided search's order, "portfolio, all"), or search it and stop
              once the search stops finding better configs: its rate is then that of the few
              configs it chose. Each run prints which it did.

The rate is a run's measured configs over the time from the first to the last of them (what
the compile pool and the GPU sustain); beside it: the run's wall time, its mean compile time,
and the compile threads it kept busy on average (the sum of its compile times over that span).
The defaults measure matmul_reg2d's whole space (1404 configs) at 2048^3.

    throughput.py CUTUNE_EXE OUT_DIR [--variant V] [--size S] [--budget N]
                  [--runs exhaustive,random,default,portfolio:400,random:400]"""
import argparse
import json
import os
import shutil
import subprocess
import time

ap = argparse.ArgumentParser()
ap.add_argument("exe")
ap.add_argument("out")
ap.add_argument("--variant", default="matmul_reg2d")
ap.add_argument("--size", default="2048x2048x2048")
ap.add_argument("--budget", type=int, default=1404)
ap.add_argument("--seed", type=int, default=1,
                help="the seed of every run's inputs and strategy (cutune run --seed)")
ap.add_argument("--runs", default="exhaustive,random,default",
                help="the runs, in this order: NAME or NAME:BUDGET (NAME: exhaustive, random, "
                "portfolio, default)")
a = ap.parse_args()
STRATEGY = {"exhaustive": ["--strategy", "exhaustive"], "random": ["--strategy", "random"],
            "portfolio": ["--strategy", "portfolio"], "default": []}


def spec(text):
    name, _, budget = text.partition(":")
    if name not in STRATEGY or (budget and not budget.isdigit()):
        ap.error("--runs: '%s' is not NAME or NAME:BUDGET (NAME: %s)" % (text, ", ".join(STRATEGY)))
    return name, int(budget) if budget else a.budget


def one(name, budget):
    tag = "%s_%d" % (name, budget)
    db = os.path.join(a.out, "throughput_%s.db" % tag)
    cache = os.path.join(a.out, "cache_%s" % tag)
    for p in (db, db + "-wal", db + "-shm"):
        if os.path.exists(p):
            os.remove(p)
    shutil.rmtree(cache, ignore_errors=True)
    # cold for the driver too, in case NVRTC's own cache is asked for (CUTUNE_NVRTC_CACHE=1):
    # it lives in the driver's compute cache, which a run would otherwise warm for the next
    env = dict(os.environ, CUTUNE_CACHE_DIR=cache, CUDA_CACHE_PATH=os.path.join(cache, "nv"))
    env.pop("CUDA_CACHE_DISABLE", None)
    cmd = [a.exe, "run", "matmul", "--device", "0", "--variant", a.variant, "--size", a.size,
           "--budget", str(budget), "--warm-start", "none", "--db", db, "--json",
           "--no-progress", "--seed", str(a.seed)] + STRATEGY[name]
    t0 = time.time()
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    wall = time.time() - t0
    ev = [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]
    tr = [e for e in ev if e["event"] == "trial" and e.get("phase") == "search"]
    ok = [e for e in tr if e.get("status") == "ok"]
    span = (tr[-1]["elapsed_s"] - tr[0]["elapsed_s"]) if len(tr) > 1 else 0
    rate = (len(tr) - 1) / span if span > 0 else 0
    best = min((e["median_ms"] for e in ok), default=None)
    comp = [e["compile_ms"] for e in tr if e.get("compile_ms")]
    mean_c = sum(comp) / len(comp) if comp else 0
    busy = sum(comp) / 1e3 / span if span > 0 else 0
    searches = ["%s (%s, %d measured)" % (e.get("strategy"), e.get("ended"), e.get("measured", 0))
                for e in ev if e["event"] == "search"]
    shutil.rmtree(cache, ignore_errors=True)
    print("%-10s budget %d: rc %d, %d configs measured (%d ok) in %.1f s of search, %.1f s wall: "
          "%.2f configs/s, mean compile %.0f ms, %.1f compile threads busy, best %s ms; "
          "searches: %s   [%s]" % (name, budget, p.returncode, len(tr), len(ok), span, wall, rate,
                                   mean_c, busy, best, "; ".join(searches) or "none",
                                   " ".join(cmd[1:])), flush=True)
    if p.returncode:
        print(p.stderr[-2000:])
    return rate


runs = [spec(r) for r in a.runs.split(",")]
rate = {}
for name, budget in runs:
    rate[(name, budget)] = one(name, budget)
for (name, budget), r in rate.items():
    if name in ("exhaustive", "random") or not r:
        continue
    for (bname, bbudget), br in rate.items():
        if bname in ("exhaustive", "random") and br:
            print("%s at budget %d ran %.2fx the configs/s of %s at budget %d (%s at %s)"
                  % (name, budget, r / br, bname, bbudget, a.variant, a.size))
