/* The element test of host->compare_f32 (cutune/op.h), one definition for the device kernel
 * (compare.cu, which NVRTC compiles with this file in front of it), for the host's
 * messages (compare.c) and for the CPU tests: element i passes when d = |out - ref| is at
 * most gamma * mag (the worst-case bound) and, when a statistical scale is given, at most
 * tau * scale + floor_abs; NaN and infinity never pass (every comparison with NaN is
 * false). */
#ifndef CUTUNE_COMPARE_RULE_H
#define CUTUNE_COMPARE_RULE_H

#ifdef __CUDACC_RTC__
#define CUTUNE_RULE __device__ static inline
#else
#include <math.h>
#define CUTUNE_RULE static inline
#endif

/* 0: passes; 1: past the worst-case bound (or not finite); 2: past the statistical one. */
CUTUNE_RULE int cutune_compare_element(double out, double ref, double mag, double gamma,
                                       int has_scale, double scale, double tau, double floor_abs)
{
    double d = fabs(out - ref);
    if (!(d <= gamma * mag + 1e-30))
        return 1;
    if (has_scale && !(d <= tau * scale + floor_abs))
        return 2;
    return 0;
}

#endif
