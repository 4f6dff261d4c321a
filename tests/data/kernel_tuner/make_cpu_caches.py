#!/usr/bin/env python3
"""Write the Kernel Tuner caches of tests/data/kernel_tuner/ that need no GPU: Kernel Tuner
itself (pip install kernel_tuner) tunes small C functions with its C backend on this CPU.

    python3 make_cpu_caches.py [OUTDIR]

  cpu-vector_scale.json   a kernel cutune does not have (a foreign recording): BLOCK and
                          UNROLL (integers) and SCALE (0.5 or 2.0, not integers), a restriction
  cpu-vector_scale-cut.json  the same with one config that fails to compile on purpose: the
                          C backend stops tuning there, and leaves the cache as an interrupted
                          run does (not closed)
  cpu-axpy_template.json  the parameters of cutune's axpy_template space (BLOCK, ITEMS), so
                          that it imports as trials of that variant

Each C function times its own loop and returns milliseconds, which is how Kernel Tuner's C
backend measures."""
import os
import sys
import tempfile

import numpy as np
import kernel_tuner

TIMER = r"""
#include <time.h>
static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}
"""

VECTOR_SCALE = TIMER + r"""
#if defined(CUT) && BLOCK == 512 && UNROLL == 4
#error this config fails to compile on purpose: Kernel Tuner's C backend stops here
#endif
float vector_scale(float *c, const float *a, const float *b, int n)
{
    double t0 = now_ms();
    for (int rep = 0; rep < 20; rep++)
        for (int i = 0; i < n; i += BLOCK) {
            int end = i + BLOCK < n ? i + BLOCK : n;
            int j = i;
            for (; j + UNROLL <= end; j += UNROLL)
                for (int u = 0; u < UNROLL; u++)
                    c[j + u] = (float)SCALE * a[j + u] + b[j + u];
            for (; j < end; j++)
                c[j] = (float)SCALE * a[j] + b[j];
        }
    return (float)((now_ms() - t0) / 20);
}
"""

AXPY = TIMER + r"""
float axpy_template(float *out, const float *x, const float *y, float a, int n)
{
    double t0 = now_ms();
    for (int rep = 0; rep < 20; rep++)
        for (int i = 0; i < n; i += BLOCK * ITEMS)
            for (int k = 0; k < ITEMS; k++)
                for (int t = 0; t < BLOCK; t++) {
                    int e = i + k * BLOCK + t;
                    if (e < n)
                        out[e] = a * x[e] + y[e];
                }
    return (float)((now_ms() - t0) / 20);
}
"""


def main():
    out = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(__file__))
    os.chdir(tempfile.mkdtemp(prefix="kt-"))  # Kernel Tuner leaves its temporary files here
    rng = np.random.default_rng(7)
    n = np.int32(1 << 16)
    a = rng.random(n, dtype=np.float32)
    b = rng.random(n, dtype=np.float32)
    c = np.zeros_like(a)

    params = {"BLOCK": [64, 128, 256, 512, 1024], "UNROLL": [1, 2, 4, 8], "SCALE": [0.5, 2.0]}
    for name, source in (("cpu-vector_scale.json", VECTOR_SCALE),
                         ("cpu-vector_scale-cut.json", "#define CUT 1\n" + VECTOR_SCALE)):
        path = os.path.join(out, name)
        if os.path.exists(path):
            os.remove(path)
        try:
            kernel_tuner.tune_kernel("vector_scale", source, n, [c, a, b, n], params, lang="C",
                                     restrictions=["BLOCK * UNROLL <= 2048"], cache=path,
                                     verbose=False, compiler_options=["-O2"], quiet=True)
        except Exception as e:  # the planted compile error
            print("%s: Kernel Tuner stopped: %s" % (name, str(e).split("\n")[0]))

    path = os.path.join(out, "cpu-axpy_template.json")
    if os.path.exists(path):
        os.remove(path)
    params = {"BLOCK": [64, 128, 256, 512, 1024], "ITEMS": [1, 2, 4, 8]}
    kernel_tuner.tune_kernel("axpy_template", AXPY, n, [c, a, b, np.float32(1.5), n], params,
                             lang="C", cache=path, verbose=False, compiler_options=["-O2"],
                             quiet=True)


if __name__ == "__main__":
    main()
