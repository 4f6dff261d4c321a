#!/usr/bin/env python3
"""bench_python: what a tuned matmul costs the caller from Python, against C.

    bench_python.py --db TUNED.db [--size 64x64x64] [--calls 20000] [--bench-launch EXE]

Times, in microseconds of host time per call, in batches of 100 calls with the stream
synchronised between batches (outside the timed part, so the launch queue never fills and
the figures are the caller's, not the GPU's):
  - C:      cutune_gemm from C (bench_launch, built beside this script);
  - Python: cutune's Handle.matmul(a, b, out=c) on PyTorch tensors, and Handle.matmul(a, b)
            (allocating c), and the module's cutune.matmul(a, b, out=c);
  - torch.matmul(a, b, out=c) for scale.
Prints a table and the added cost of each Python call over the C one (the target: <= 10 us).
The database must hold a matmul config for GPU 0 (cutune run matmul --size S --db PATH)."""
import argparse
import os
import statistics
import subprocess
import sys
import time

BATCH = 100


def per_call(fn, calls, sync):
    for _ in range(20):  # warm: lookup, compile, load, allocator
        fn()
    sync()
    us = []
    for _ in range(max(calls // BATCH, 1)):
        t0 = time.perf_counter()
        for _ in range(BATCH):
            fn()
        us.append(1e6 * (time.perf_counter() - t0) / BATCH)
        sync()
    us.sort()
    return statistics.median(us), us[len(us) // 10], us[len(us) * 9 // 10]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--db", required=True)
    ap.add_argument("--size", default="64x64x64")
    ap.add_argument("--calls", type=int, default=20000)
    here = os.path.dirname(os.path.abspath(__file__))
    default_exe = os.path.join(here, "..", "build", "bench", "bench_launch")
    ap.add_argument("--bench-launch", default=default_exe)
    o = ap.parse_args()

    import torch
    import cutune
    if not torch.cuda.is_available():
        print("bench_python: no CUDA device")
        return 77
    M, N, K = (int(x) for x in o.size.split("x"))
    a = torch.zeros((M, K), device="cuda")
    b = torch.zeros((K, N), device="cuda")
    c = torch.empty((M, N), device="cuda")
    sync = torch.cuda.synchronize
    rows = []
    c_line = subprocess.run([o.bench_launch, "--db", o.db, "--size", o.size, "--calls",
                             str(o.calls)], check=True, capture_output=True, text=True).stdout
    # the line of cutune_gemm, the path cutune_matmul takes
    c_us = float(c_line.split("cutune_gemm", 1)[1].split()[0])
    print(c_line.strip())
    with cutune.open(o.db, record_requests=False) as h:
        r = h.lookup("matmul", (M, N, K), device=0)
        print("python: %r" % (r,))
        rows.append(("Handle.matmul(a, b, out=c)", per_call(lambda: h.matmul(a, b, out=c),
                                                            o.calls, sync)))
        rows.append(("Handle.matmul(a, b)", per_call(lambda: h.matmul(a, b), o.calls, sync)))
    os.environ["CUTUNE_DB"] = o.db
    rows.append(("cutune.matmul(a, b, out=c)", per_call(lambda: cutune.matmul(a, b, out=c),
                                                        o.calls, sync)))
    rows.append(("torch.matmul(a, b, out=c)", per_call(lambda: torch.matmul(a, b, out=c),
                                                       o.calls, sync)))
    print("\n%s, size %s, torch %s, Python %s" % (torch.cuda.get_device_name(0), o.size,
                                                  torch.__version__, sys.version.split()[0]))
    print("| call | us per call (median) | p10 | p90 | over C cutune_matmul |")
    print("|---|---|---|---|---|")
    print("| C cutune_matmul | %.2f | | | |" % c_us)
    for name, (med, p10, p90) in rows:
        print("| %s | %.2f | %.2f | %.2f | %+.2f |" % (name, med, p10, p90, med - c_us))
    return 0


if __name__ == "__main__":
    sys.exit(main())
