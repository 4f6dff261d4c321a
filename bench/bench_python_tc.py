#!/usr/bin/env python3
"""bench_python_tc: what cutune.matmul costs a PyTorch caller in bf16, against the tuned
kernel's own time and against torch (cuBLASLt).

    bench_python_tc.py --db TUNED.db [--size 4096x4096x4096] [--size 16x4096x4096] [--calls 200]

For each size (the database must hold a matmul config for GPU 0 at SIZE-bf16-nt, e.g.
`cutune run matmul --size 4096-bf16-nt`): x (M x K) and W (N x K) in bf16, and
  - kernel:  the tuned config's median in the database (cutune measured the kernel alone);
  - cutune:  cutune.Handle.matmul(x, W.t(), out=c), F.linear's layout read in place, timed
             with CUDA events over `calls` back-to-back calls (the caller's launch cost is in
             it wherever it exceeds the kernel's time);
  - torch:   torch.matmul(x, W.t(), out=c), F.linear's product, the same way (cuBLASLt).
Prints a table, and the target's slack: cutune's time per call against 1.02 x the kernel's
+ 5 us (issue: "takes <= 1.02x the tuned kernel's time plus <= 5 us per call")."""
import argparse
import sys

import torch

import cutune


def per_call_ms(fn, calls):
    for _ in range(10):
        fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(calls):
        fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / calls


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--db", required=True)
    ap.add_argument("--size", action="append")
    ap.add_argument("--calls", type=int, default=200)
    args = ap.parse_args()
    sizes = args.size or ["4096x4096x4096", "16x4096x4096"]
    print("%-16s %10s %10s %10s %8s %12s" % ("size", "kernel ms", "cutune ms", "torch ms",
                                            "vs torch", "target slack"))
    worst = None
    with cutune.open(args.db) as h:
        for size in sizes:
            M, N, K = (int(v) for v in size.split("x"))
            x = torch.randn((M, K), device="cuda").bfloat16()
            w = torch.randn((N, K), device="cuda").bfloat16()
            c = torch.empty((M, N), device="cuda", dtype=torch.bfloat16)
            r = h.lookup("matmul", size + "-bf16-nt", device=0)
            if r.match != "exact":
                print("%-16s not tuned (%s): skipped" % (size, r.match))
                continue
            ours = per_call_ms(lambda: h.matmul(x, w.t(), out=c), args.calls)
            theirs = per_call_ms(lambda: torch.matmul(x, w.t(), out=c), args.calls)
            target = 1.02 * r.median_ms + 0.005
            slack = target - ours
            worst = slack if worst is None else min(worst, slack)
            print("%-16s %10.4f %10.4f %10.4f %8.3f %+11.4f ms" % (size, r.median_ms, ours, theirs,
                                                                   theirs / ours, slack))
    print("target %s" % ("met at every size" if worst is not None and worst >= 0 else "missed"))
    return 0 if worst is not None else 1


if __name__ == "__main__":
    sys.exit(main())
