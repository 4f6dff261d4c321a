/* The op SDK's comparisons (host->compare_f32, host->compare_exact): compare.cu's kernels,
 * run through the host's own services, and their sums turned into a verdict. */
#include "sdk.h"
#include "compare_rule.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

extern const char cutune_compare_cu[]; /* compare.cu, embedded at build time */

static CutuneLaunch grid_for(size_t n, size_t max_blocks)
{
    size_t blocks = (n + 255) / 256;
    blocks = blocks == 0 ? 1 : blocks > max_blocks ? max_blocks : blocks; /* grid-stride loops */
    return (CutuneLaunch){{(unsigned)blocks, 1, 1}, {256, 1, 1}, 0};
}

int cutune_sdk_compare_f32(const CutuneHost *host, const CutuneCompareF32 *spec, CutuneCheck *res)
{
    memset(res, 0, sizeof *res);
    res->tolerance = spec->norm_tol;
    void *scratch = NULL;
    int rc = host->dev_alloc(host->ctx, 2 * sizeof(double) + 2 * sizeof(unsigned long long),
                             &scratch);
    if (rc)
        return rc;
    double *acc = scratch;
    unsigned long long *bad = (unsigned long long *)(acc + 2);
    double acc_h[2] = {0, 0};
    unsigned long long bad_h[2] = {0, ~0ull};
    unsigned long long nn = spec->n;
    const float *out = spec->out;
    const double *ref = spec->ref, *mag = spec->mag, *scale = spec->scale;
    double gamma = spec->gamma, tau = spec->tau, floor_abs = spec->floor_abs;
    if ((rc = host->copy_to_device(host->ctx, acc, acc_h, sizeof acc_h)) ||
        (rc = host->copy_to_device(host->ctx, bad, bad_h, sizeof bad_h)))
        goto out;
    CutuneLaunch l = grid_for(spec->n, 4096);
    void *args[] = {&out, &ref, &mag, &scale, &nn, &gamma, &tau, &floor_abs, &acc, &bad};
    if ((rc = host->run_kernel(host->ctx, cutune_compare_cu, "cutune_compare_f32", &l, args)) ||
        (rc = host->copy_to_host(host->ctx, acc_h, acc, sizeof acc_h)) ||
        (rc = host->copy_to_host(host->ctx, bad_h, bad, sizeof bad_h)))
        goto out;
    res->error = acc_h[1] > 0 ? sqrt(acc_h[0] / acc_h[1]) : sqrt(acc_h[0]);
    if (bad_h[0] > 0) {
        float got = 0;
        double want = 0, m = 0, sc = 0;
        size_t i = (size_t)bad_h[1];
        if ((rc = host->copy_to_host(host->ctx, &got, out + i, sizeof got)) ||
            (rc = host->copy_to_host(host->ctx, &want, ref + i, sizeof want)) ||
            (rc = host->copy_to_host(host->ctx, &m, mag + i, sizeof m)) ||
            (scale && (rc = host->copy_to_host(host->ctx, &sc, scale + i, sizeof sc))))
            goto out;
        char where[64];
        double d = fabs((double)got - want);
        int worst = cutune_compare_element(got, want, m, gamma, scale != NULL, sc, tau,
                                           floor_abs) != 2;
        snprintf(res->message, sizeof res->message,
                 "%llu of %zu elements wrong; first at %s: got %.9g, expected %.9g (error "
                 "%.3g > %s %.3g)",
                 bad_h[0], spec->n,
                 spec->describe ? spec->describe(i, spec->user, where, sizeof where) : "?",
                 (double)got, want, d, worst ? "the worst-case bound" : "the statistical bound",
                 worst ? gamma * m : tau * sc + floor_abs);
        res->error = isnan(got) ? NAN : res->error;
        res->passed = 0;
    } else if (!(res->error <= spec->norm_tol)) {
        snprintf(res->message, sizeof res->message,
                 "relative Frobenius error %.3g exceeds the tolerance %.3g", res->error,
                 spec->norm_tol);
        res->passed = 0;
    } else {
        res->passed = 1;
    }
out:
    host->dev_free(host->ctx, scratch);
    return rc;
}

int cutune_sdk_compare_exact(const CutuneHost *host, const void *out, const void *ref, size_t n,
                             size_t *bad, size_t *first)
{
    unsigned long long *dbad = NULL, h[2] = {0, ~0ull}, nn = n;
    *bad = 0;
    *first = n;
    int rc = host->dev_alloc(host->ctx, sizeof h, (void **)&dbad);
    if (rc)
        return rc;
    CutuneLaunch l = grid_for(n, 8192);
    void *args[] = {&out, &ref, &nn, &dbad};
    if (!(rc = host->copy_to_device(host->ctx, dbad, h, sizeof h)) &&
        !(rc = host->run_kernel(host->ctx, cutune_compare_cu, "cutune_compare_exact", &l, args)))
        rc = host->copy_to_host(host->ctx, h, dbad, sizeof h);
    host->dev_free(host->ctx, dbad);
    *bad = (size_t)h[0];
    *first = h[0] ? (size_t)h[1] : n;
    return rc;
}
