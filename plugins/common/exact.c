/* Running exact.cu's kernels. */
#include "exact.h"

#include <stdio.h>
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

int exact_check_f32(const CutuneHost *host, const float *out, const float *ref, size_t n,
                    const char *name, size_t row_len, CutuneCheck *verdict)
{
    size_t bad = 0, first = 0;
    int rc = exact_compare(host, out, ref, n, &bad, &first);
    memset(verdict, 0, sizeof *verdict);
    verdict->passed = bad == 0 && rc == 0;
    verdict->error = (double)bad; /* wrong elements; the tolerance is none */
    if (rc || !bad)
        return rc;
    float got = 0, want = 0;
    if ((rc = host->copy_to_host(host->ctx, &got, out + first, sizeof got)) ||
        (rc = host->copy_to_host(host->ctx, &want, ref + first, sizeof want)))
        return rc;
    snprintf(verdict->message, sizeof verdict->message,
             "%zu of %zu elements wrong; first at %s[%zu][%zu]: got %.9g, expected %.9g", bad, n,
             name, first / row_len, first % row_len, (double)got, (double)want);
    return 0;
}
