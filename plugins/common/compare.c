/* Running compare.cu and turning its sums into a verdict. */
#include "compare.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

extern const char cutune_compare_cu[]; /* compare.cu, embedded at build time */

int cutune_compare_f32(const CutuneHost *host, const float *out, const double *ref,
                       const double *mag, size_t n, double gamma, double norm_tol,
                       const char *(*describe)(size_t index, void *user, char *buf, size_t len),
                       void *user, CutuneCheck *res)
{
    memset(res, 0, sizeof *res);
    res->tolerance = norm_tol;
    void *scratch = NULL;
    int rc = host->dev_alloc(host->ctx, 2 * sizeof(double) + 2 * sizeof(unsigned long long), &scratch);
    if (rc)
        return rc;
    double *acc = scratch;
    unsigned long long *bad = (unsigned long long *)(acc + 2);
    double acc_h[2] = {0, 0};
    unsigned long long bad_h[2] = {0, ~0ull};
    unsigned long long nn = n;
    if ((rc = host->copy_to_device(host->ctx, acc, acc_h, sizeof acc_h)) ||
        (rc = host->copy_to_device(host->ctx, bad, bad_h, sizeof bad_h)))
        goto out;
    size_t blocks = (n + 255) / 256;
    CutuneLaunch l = {{(unsigned)(blocks < 4096 ? (blocks ? blocks : 1) : 4096), 1, 1}, {256, 1, 1}, 0};
    void *args[] = {&out, &ref, &mag, &nn, &gamma, &acc, &bad};
    if ((rc = host->run_kernel(host->ctx, cutune_compare_cu, "cutune_compare_f32", &l, args)) ||
        (rc = host->copy_to_host(host->ctx, acc_h, acc, sizeof acc_h)) ||
        (rc = host->copy_to_host(host->ctx, bad_h, bad, sizeof bad_h)))
        goto out;
    res->error = acc_h[1] > 0 ? sqrt(acc_h[0] / acc_h[1]) : sqrt(acc_h[0]);
    if (bad_h[0] > 0) {
        float got = 0;
        double want = 0;
        size_t i = (size_t)bad_h[1];
        if ((rc = host->copy_to_host(host->ctx, &got, out + i, sizeof got)) ||
            (rc = host->copy_to_host(host->ctx, &want, ref + i, sizeof want)))
            goto out;
        char where[64];
        snprintf(res->message, sizeof res->message,
                 "%llu of %zu elements wrong; first at %s: got %.9g, expected %.9g",
                 bad_h[0], n, describe ? describe(i, user, where, sizeof where) : "?", (double)got, want);
        res->error = isnan(got) ? NAN : res->error;
        res->passed = 0;
    } else if (!(res->error <= norm_tol)) {
        snprintf(res->message, sizeof res->message,
                 "relative Frobenius error %.3g exceeds the tolerance %.3g", res->error, norm_tol);
        res->passed = 0;
    } else {
        res->passed = 1;
    }
out:
    host->dev_free(host->ctx, scratch);
    return rc;
}
