#!/usr/bin/env python3
"""Configs a second of the default (guided) search against exhaustive search, on the same
variant and size, in one call on one GPU (with random search, which draws from the whole
space, beside exhaustive, which goes in the file's order): each from a fresh database and
a cold kernel cache (cutune's and the driver's), with no warm start, at most BUDGET
measurements. The defaults measure a whole space (matmul_reg2d's 1404 configs at 2048^3), so
that exhaustive's rate is the space's and not that of the corner its file lists first: on
matmul_async at 1000^3 the file's first 400 configs went at 37.5 a second on an H200, random
draws from the whole space at 9.6. The rate is the search phase's measured configs over the
time from the first to the last of them (what the compile pool and the GPU sustain), and the
run's wall time is printed beside it.

    throughput.py CUTUNE_EXE OUT_DIR [--variant V] [--size S] [--budget N]"""
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
a = ap.parse_args()


def one(name, extra):
    db = os.path.join(a.out, "throughput_%s.db" % name)
    cache = os.path.join(a.out, "cache_%s" % name)
    for p in (db, db + "-wal", db + "-shm"):
        if os.path.exists(p):
            os.remove(p)
    shutil.rmtree(cache, ignore_errors=True)
    # cold for the driver too: NVRTC's PTX-to-SASS step goes through the driver's compute
    # cache, which the exhaustive run would otherwise warm for the searches after it
    env = dict(os.environ, CUTUNE_CACHE_DIR=cache, CUDA_CACHE_PATH=os.path.join(cache, "nv"))
    env.pop("CUDA_CACHE_DISABLE", None)
    cmd = [a.exe, "run", "matmul", "--device", "0", "--variant", a.variant, "--size", a.size,
           "--budget", str(a.budget), "--warm-start", "none", "--db", db, "--json",
           "--no-progress"] + extra
    t0 = time.time()
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    wall = time.time() - t0
    ev = [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]
    tr = [e for e in ev if e["event"] == "trial" and e.get("phase") == "search"]
    ok = [e for e in tr if e.get("status") == "ok"]
    span = (tr[-1]["elapsed_s"] - tr[0]["elapsed_s"]) if len(tr) > 1 else 0
    rate = (len(tr) - 1) / span if span > 0 else 0
    best = min((e["median_ms"] for e in ok), default=None)
    shutil.rmtree(cache, ignore_errors=True)
    print("%-10s rc %d, %d configs measured (%d ok) in %.1f s of search, %.1f s wall: "
          "%.2f configs/s, best %s ms   [%s]" % (name, p.returncode, len(tr), len(ok), span,
                                                 wall, rate, best, " ".join(cmd[1:])),
          flush=True)
    if p.returncode:
        print(p.stderr[-2000:])
    return rate


ex = one("exhaustive", ["--strategy", "exhaustive"])
rn = one("random", ["--strategy", "random"])
gd = one("default", [])
# Exhaustive goes in the space file's order, whose first configs are the small tiles that
# compile fastest; random draws from the whole space: both are given.
print("the default search ran %.2fx the configs/s of exhaustive and %.2fx that of random "
      "(%s at %s, budget %d)" % (gd / ex if ex else 0, gd / rn if rn else 0, a.variant, a.size,
                                 a.budget))
