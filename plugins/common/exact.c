/* Running exact.cu's kernels. */
#include "exact.h"

#include <string.h>

extern const char cutune_exact_cu[]; /* exact.cu, embedded at build time */

static CutuneLaunch grid_for(size_t n)
{
    size_t blocks = (n + 255) / 256;
    blocks = blocks == 0 ? 1 : blocks > 8192 ? 8192 : blocks; /* grid-stride loops do the rest */
    return (CutuneLaunch){{(unsigned)blocks, 1, 1}, {256, 1, 1}, 0};
}

int exact_run_reference(const CutuneHost *host, const char *kernel, size_t n, void **args)
{
    CutuneLaunch l = grid_for(n);
    return host->run_kernel(host->ctx, cutune_exact_cu, kernel, &l, args);
}

int exact_compare(const CutuneHost *host, const void *out, const void *ref, size_t n, size_t *bad,
                  size_t *first)
{
    unsigned long long *dbad = NULL, h[2] = {0, ~0ull}, nn = n;
    int rc = host->dev_alloc(host->ctx, sizeof h, (void **)&dbad);
    if (rc)
        return rc;
    CutuneLaunch l = grid_for(n);
    void *args[] = {&out, &ref, &nn, &dbad};
    if (!(rc = host->copy_to_device(host->ctx, dbad, h, sizeof h)) &&
        !(rc = host->run_kernel(host->ctx, cutune_exact_cu, "cutune_compare_exact", &l, args)))
        rc = host->copy_to_host(host->ctx, h, dbad, sizeof h);
    host->dev_free(host->ctx, dbad);
    *bad = (size_t)h[0];
    *first = h[0] ? (size_t)h[1] : n;
    return rc;
}
