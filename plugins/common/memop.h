/* Helpers shared by the memory-bound ops (transpose, matadd, reduce_sum, histogram, topk):
 * seeded inputs, the SM count that grid-stride variants size their grid with, and the
 * "last block done" protocol that lets a single launch finish a reduction across blocks.
 * Plugin-side code: it uses only the host services. */
#ifndef CUTUNE_PLUGINS_MEMOP_H
#define CUTUNE_PLUGINS_MEMOP_H

#include <stddef.h>
#include <stdint.h>

#include "cutune/plugin.h"

/* Grid-stride variants launch BLOCKS_PER_SM blocks for each of the device's SMs. The core
 * passes the SM count to launch_geometry (ABI 1.2); MEMOP_SMS (an H100 SXM's and an
 * H200's 132) stands in where it does not. */
#define MEMOP_SMS 132
static inline int64_t memop_sms(const CutuneConfig *cfg)
{
    int64_t n = cutune_config_get(cfg, "SM_COUNT", MEMOP_SMS);
    return n > 0 ? n : MEMOP_SMS;
}

/* Allocate n floats on the device and fill them with seeded uniform values in [lo, hi)
 * (generator stream `stream`). When host_copy is non-NULL the host values are handed back
 * (malloc'd, the caller frees); otherwise they are freed here. */
int memop_random_floats(const CutuneHost *host, size_t n, uint64_t seed, uint64_t stream, float lo,
                        float hi, float **dev, float **host_copy);

/* ceil(a / b) */
static inline int64_t memop_ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

#endif
