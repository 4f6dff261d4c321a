#!/usr/bin/env python3
"""How much slower is a kernel's first launch after the GPU has been idle? cutune's timing
cuts a config that cannot win after two slow launches in a row, because one slow launch alone
may have met the GPU at idle clocks. This measures that effect: after the GPU idles for
I seconds, one launch of a compute-bound kernel of about L ms, timed with CUDA events, against
the same kernel's steady time (the median of 5 back-to-back launches after it).

    clock_ramp.py [--ms 5,25,60,250] [--idle 0.2,1,3] [--repeat 3]

Needs cupy (the GPU machine has it)."""
import argparse
import statistics
import time

import cupy as cp

ap = argparse.ArgumentParser()
ap.add_argument("--ms", default="5,25,60,250")
ap.add_argument("--idle", default="0.2,1,3")
ap.add_argument("--repeat", type=int, default=3)
a = ap.parse_args()

SRC = r"""
extern "C" __global__ void spin(float *out, int iters)
{
    float x = threadIdx.x * 1e-3f, y = 1.0f;
    for (int i = 0; i < iters; i++) {
        x = fmaf(x, 0.999f, y);
        y = fmaf(y, 0.998f, x);
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = x + y;
}
"""
spin = cp.RawKernel(SRC, "spin")
blocks, threads = 132 * 8, 256
out = cp.zeros(blocks * threads, dtype=cp.float32)
start, stop = cp.cuda.Event(), cp.cuda.Event()


def launch(iters):
    start.record()
    spin((blocks,), (threads,), (out, cp.int32(iters)))
    stop.record()
    stop.synchronize()
    return cp.cuda.get_elapsed_time(start, stop)


def steady(iters):
    return statistics.median(launch(iters) for _ in range(5))


# size the loop: iterations per ms at steady clocks
for _ in range(3):
    launch(100000)
per_ms = 100000 / steady(100000)
print("device: %s" % cp.cuda.runtime.getDeviceProperties(0)["name"].decode())
print("| launch (steady ms) | idle before | first launch ms | steady ms | first / steady |")
print("|---|---|---|---|---|")
for target in [float(x) for x in a.ms.split(",")]:
    iters = max(1, int(per_ms * target))
    for idle in [float(x) for x in a.idle.split(",")]:
        for _ in range(a.repeat):
            launch(iters)
            time.sleep(idle)
            first = launch(iters)
            st = steady(iters)
            print("| %.0f | %.1f s | %.2f | %.2f | %.3f |" % (target, idle, first, st, first / st),
                  flush=True)
