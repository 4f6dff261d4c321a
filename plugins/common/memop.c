/* Seeded inputs for the memory-bound ops. */
#include "memop.h"
#include "cutune/cutune.h"

#include <stdlib.h>

int memop_random_floats(const CutuneHost *host, size_t n, uint64_t seed, uint64_t stream, float lo,
                        float hi, float **dev, float **host_copy)
{
    *dev = NULL;
    if (host_copy)
        *host_copy = NULL;
    float *h = malloc((n ? n : 1) * sizeof *h);
    if (!h)
        return host->fail(host->ctx, CUTUNE_ERR_NOMEM, "out of host memory for %zu inputs", n);
    host->random_uniform(seed, stream, h, n, lo, hi);
    int rc = host->dev_alloc(host->ctx, n * sizeof *h, (void **)dev);
    if (!rc)
        rc = host->copy_to_device(host->ctx, *dev, h, n * sizeof *h);
    if (rc || !host_copy)
        free(h);
    else
        *host_copy = h;
    return rc;
}
