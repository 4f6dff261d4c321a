#!/usr/bin/env python3
"""Have Kernel Tuner tune one of cutune's kernels on a GPU with its CuPy backend, and keep
the cache it writes (a test file for `cutune import kernel-tuner`).

    python3 scripts/kt_cache.py [--size 4096x4096] [--out tests/data/kernel_tuner]

The kernel is matadd_2d (tuning_spaces/matadd_2d.cu), C = A + B on M x N floats, whose
thread block is its parameters: Kernel Tuner launches it exactly as cutune's plugin does
(block BLOCK_X x BLOCK_Y, grid ceil(N / (BLOCK_X * VEC)) x ceil(M / BLOCK_Y)), over the
parameters and values of tuning_spaces/matadd_2d.ini with its constraints as restrictions,
and checks every config's C against A + B. The cache is named after the GPU:
<gpu>-matadd_2d-<M>x<N>.json, e.g. h100-matadd_2d-4096x4096.json.

On the GPU machine (no network), Kernel Tuner and what it needs beyond the image come as
wheels: see bench/RESULTS.md or the commit that added this script."""
import argparse
import os
import re
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def space_params(ini):
    """The parameters of a cutune space file (pow2 = a..b and values = ... forms)."""
    params, name = {}, None
    for line in open(ini):
        line = line.split(";")[0].strip()
        m = re.match(r"\[param\.(\w+)\]", line)
        if m:
            name = m.group(1)
            continue
        if line.startswith("["):
            name = None
        if name and "=" in line:
            key, value = (x.strip() for x in line.split("=", 1))
            if key == "pow2":
                lo, hi = (int(x) for x in value.split(".."))
                params[name] = [1 << i for i in range(lo.bit_length() - 1, hi.bit_length())]
            elif key == "values":
                params[name] = [int(x) for x in value.split(",")]
    return params


def main():
    import cupy
    import kernel_tuner

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", default="4096x4096")
    ap.add_argument("--out", default=os.path.join(ROOT, "tests", "data", "kernel_tuner"))
    o = ap.parse_args()
    M, N = (int(x) for x in o.size.split("x"))
    source = open(os.path.join(ROOT, "tuning_spaces", "matadd_2d.cu")).read()
    params = space_params(os.path.join(ROOT, "tuning_spaces", "matadd_2d.ini"))
    assert params == {"BLOCK_X": [1 << i for i in range(11)],
                      "BLOCK_Y": [1 << i for i in range(11)], "VEC": [1, 4]}, params
    gpu = cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
    short = re.sub(r"[^a-z0-9]+", "", gpu.lower().replace("nvidia", "").split()[0]) or "gpu"
    path = os.path.join(o.out, "%s-matadd_2d-%dx%d.json" % (short, M, N))
    if os.path.exists(path):
        os.remove(path)
    rng = np.random.default_rng(3)
    a = rng.uniform(-1, 1, (M, N)).astype(np.float32)
    b = rng.uniform(-1, 1, (M, N)).astype(np.float32)
    c = np.zeros_like(a)
    args = [a, b, c, np.int32(M), np.int32(N)]
    res, env = kernel_tuner.tune_kernel(
        "matadd_2d", source, (N, M), args, params, lang="cupy",
        block_size_names=["BLOCK_X", "BLOCK_Y", "BLOCK_Z"],
        grid_div_x=["BLOCK_X", "VEC"], grid_div_y=["BLOCK_Y"],
        restrictions=["BLOCK_X * BLOCK_Y >= 4", "BLOCK_X * BLOCK_Y <= 1024"],
        answer=[None, None, a + b, None, None], atol=0, cache=path, verbose=False, quiet=True)
    ok = [r for r in res if not isinstance(r.get("time"), str)]
    best = min(ok, key=lambda r: r["time"])
    print("%s: %d configs on %s, best %.6f ms at BLOCK_X=%d BLOCK_Y=%d VEC=%d" % (
        path, len(res), gpu, best["time"], best["BLOCK_X"], best["BLOCK_Y"], best["VEC"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
