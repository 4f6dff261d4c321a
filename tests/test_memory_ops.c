/* The memory-bound ops' code on the CPU: problem parsing, data sets, references and
 * checks. A host table whose "device" memory is host memory stands in for the GPU, the
 * kernels under test are emulated here (right, and wrong in the ways a kernel goes wrong),
 * and so are the ops' reference kernels (by name) and the SDK's exact comparison. Each
 * check must pass the right output and fail the wrong ones. */
#include "check.h"
#include "fake_host.h"
#include "host.h"

#include "histogram/histogram.h"
#include "matadd/matadd.h"
#include "reduce_sum/reduce_sum.h"
#include "topk/topk.h"
#include "transpose/transpose.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* The ops' reference kernels, emulated: args point at the kernel arguments. */
static int f_run_kernel(void *ctx, const char *source, const char *name, const CutuneLaunch *l,
                        void **args)
{
    (void)ctx, (void)source, (void)l;
    if (!strcmp(name, "cutune_ref_transpose")) {
        const float *A = *(const float **)args[0];
        float *B = *(float **)args[1];
        int R = *(int *)args[2], C = *(int *)args[3];
        for (size_t i = 0; i < (size_t)R; i++)
            for (size_t j = 0; j < (size_t)C; j++)
                B[j * R + i] = A[i * C + j];
    } else if (!strcmp(name, "cutune_ref_add")) {
        const float *A = *(const float **)args[0], *B = *(const float **)args[1];
        float *Cr = *(float **)args[2];
        unsigned long long n = *(unsigned long long *)args[3];
        for (size_t i = 0; i < n; i++)
            Cr[i] = A[i] + B[i];
    } else {
        return CUTUNE_ERR_NOT_FOUND;
    }
    return 0;
}

/* host->compare_exact, on host memory */
static int f_compare_exact(void *ctx, const void *out, const void *ref, size_t n, size_t *bad,
                           size_t *first)
{
    (void)ctx;
    const unsigned *o = out, *r = ref;
    *bad = 0;
    *first = n;
    for (size_t i = 0; i < n; i++)
        if (o[i] != r[i]) {
            *first = *bad ? *first : i;
            (*bad)++;
        }
    return 0;
}

static const CutuneHost fake = {
    FAKE_HOST_MEMORY,
    .run_kernel = f_run_kernel,
    .fail = fake_fail,
    .compare_exact = f_compare_exact,
};

static CutuneProblem problem(int ndims, int64_t a, int64_t b, int64_t c)
{
    CutuneProblem p = {.ndims = ndims, .dim = {a, b, c, 0}};
    return p;
}

static const CutuneConfig no_config = {0, NULL, NULL};

static void test_matadd(void)
{
    CutuneProblem p = problem(1, 37, 0, 0);
    char err[256];
    CHECK(cutune_op_matadd()->check_problem(&p, err, sizeof err) == 0 && p.ndims == 2 &&
          p.dim[1] == 37);
    p = problem(2, 37, 53, 0);
    void *st = NULL, *args[16];
    CHECK(cutune_op_matadd()->setup(&fake, &p, 5, &st) == 0);
    CHECK_EQ_INT(cutune_op_matadd()->kernel_args(st, &no_config, args, 16), 5);
    const float *A = *(float **)args[0], *B = *(float **)args[1];
    float *C = *(float **)args[2];
    CutuneCheck r;
    CHECK(cutune_op_matadd()->poison_output(&fake, st) == 0);
    CHECK(cutune_op_matadd()->check(&fake, st, &r) == 0 &&
          !r.passed); /* poisoned: NaN everywhere */
    for (int i = 0; i < 37 * 53; i++)
        C[i] = A[i] + B[i];
    CHECK(cutune_op_matadd()->check(&fake, st, &r) == 0 && r.passed);
    C[2 * 53 + 7] = nextafterf(C[2 * 53 + 7], 2.0f); /* one ulp off */
    CHECK(cutune_op_matadd()->check(&fake, st, &r) == 0 && !r.passed);
    CHECK_STR_CONTAINS(r.message, "C[2][7]");
    CHECK(fabs(cutune_op_matadd()->bytes(&p) - 12.0 * 37 * 53) < 1e-9);
    cutune_op_matadd()->teardown(&fake, st);
}

static void test_transpose(void)
{
    CutuneProblem p = problem(2, 37, 53, 0);
    void *st = NULL, *args[16];
    CHECK(cutune_op_transpose()->setup(&fake, &p, 6, &st) == 0);
    CHECK_EQ_INT(cutune_op_transpose()->kernel_args(st, &no_config, args, 16), 4);
    const float *A = *(float **)args[0];
    float *B = *(float **)args[1];
    CutuneCheck r;
    for (int i = 0; i < 37 * 53; i++) /* a copy is no transpose */
        B[i] = A[i];
    CHECK(cutune_op_transpose()->check(&fake, st, &r) == 0 && !r.passed);
    for (int i = 0; i < 37; i++)
        for (int j = 0; j < 53; j++)
            B[j * 37 + i] = A[i * 53 + j];
    CHECK(cutune_op_transpose()->check(&fake, st, &r) == 0 && r.passed);
    B[5 * 37 + 36] = -B[5 * 37 + 36];
    CHECK(cutune_op_transpose()->check(&fake, st, &r) == 0 && !r.passed);
    CHECK_STR_CONTAINS(r.message, "B[5][36]");
    cutune_op_transpose()->teardown(&fake, st);
}

static void test_reduce(void)
{
    const long long n = 1000003;
    CutuneProblem p = problem(1, n, 0, 0);
    void *st = NULL, *args[16];
    CHECK(cutune_op_reduce_sum()->setup(&fake, &p, 7, &st) == 0);
    CHECK_EQ_INT(cutune_op_reduce_sum()->kernel_args(st, &no_config, args, 16), 5);
    const float *x = *(float **)args[0];
    float *out = *(float **)args[1];
    CHECK(**(unsigned **)args[3] == 0); /* the counter starts at zero */
    CutuneCheck r;
    CHECK(cutune_op_reduce_sum()->poison_output(&fake, st) == 0);
    CHECK(cutune_op_reduce_sum()->check(&fake, st, &r) == 0 && !r.passed);
    /* a float sum as a GPU does it: per-thread chains of 256, then a tree of partials */
    static float part[4096];
    int np = 0;
    long long biggest = 0;
    for (long long i = 0; i < n; i += 256, np++) {
        float s = 0;
        for (long long j = i; j < i + 256 && j < n; j++)
            s += x[j];
        part[np] = s;
    }
    for (long long i = 0; i < n; i++)
        biggest = fabsf(x[i]) > fabsf(x[biggest]) ? i : biggest;
    for (int w = 1; w < np; w *= 2)
        for (int i = 0; i + w < np; i += 2 * w)
            part[i] += part[i + w];
    *out = part[0];
    CHECK(cutune_op_reduce_sum()->check(&fake, st, &r) == 0 && r.passed);
    CHECK_MSG(r.tolerance > 0 && r.error < r.tolerance / 4, "error %g, tolerance %g", r.error,
              r.tolerance);
    *out = part[0] - x[biggest]; /* one element dropped */
    CHECK(cutune_op_reduce_sum()->check(&fake, st, &r) == 0 && !r.passed);
    cutune_op_reduce_sum()->teardown(&fake, st);
}

/* Emulate a histogram kernel over the state's input into its bins. */
static void count(void **args, int is_float, long long n)
{
    const unsigned char *u8 = *(unsigned char **)args[0];
    const float *f = *(float **)args[1];
    unsigned *bins = *(unsigned **)args[2];
    memset(bins, 0, HISTOGRAM_BINS * sizeof *bins);
    for (long long i = 0; i < n; i++) {
        if (!is_float) {
            bins[u8[i]]++;
        } else if (f[i] >= -1.0f && f[i] < 1.0f) {
            int b = (int)((f[i] + 1.0f) * 128.0f);
            bins[b < 255 ? b : 255]++;
        }
    }
}

static void test_histogram(void)
{
    char err[256];
    CutuneProblem bad = problem(3, 100, 2, 1), one = problem(1, 100, 0, 0);
    CHECK(cutune_op_histogram()->check_problem(&bad, err, sizeof err) != 0);
    CHECK(cutune_op_histogram()->check_problem(&one, err, sizeof err) == 0 && one.ndims == 3 &&
          one.dim[1] == 1 && one.dim[2] == 1);
    const long long n = 1000003;
    for (int t = 0; t < 4; t++) {
        int is_float = t & 1, skewed = t >> 1;
        CutuneProblem p = problem(3, n, is_float ? 4 : 1, skewed ? 2 : 1);
        void *st = NULL, *args[16];
        CHECK(cutune_op_histogram()->setup(&fake, &p, 8, &st) == 0);
        CHECK_EQ_INT(cutune_op_histogram()->kernel_args(st, &no_config, args, 16), 7);
        CHECK(*(int *)args[6] == is_float && (*(void **)args[is_float ? 0 : 1]) == NULL);
        const unsigned *scratch = *(unsigned **)args[3];
        int clean = **(unsigned **)args[4] == 0;
        for (int b = 0; b < HISTOGRAM_BINS; b++)
            clean &= scratch[b] == 0;
        CHECK_MSG(clean, "setup leaves scratch and counter at zero");
        unsigned *bins = *(unsigned **)args[2];
        CutuneCheck r;
        CHECK(cutune_op_histogram()->poison_output(&fake, st) == 0);
        CHECK(cutune_op_histogram()->check(&fake, st, &r) == 0 && !r.passed);
        count(args, is_float, n);
        CHECK_MSG(cutune_op_histogram()->check(&fake, st, &r) == 0 && r.passed, "data set %d: %s",
                  t, r.message);
        unsigned long long total = 0, hot = bins[is_float ? 192 : 200];
        for (int b = 0; b < HISTOGRAM_BINS; b++)
            total += bins[b];
        if (skewed) /* 7 in 8 in the hot bin */
            CHECK_MSG(hot > 0.86 * n && hot < 0.89 * n, "data set %d: hot bin %llu of %lld", t, hot,
                      n);
        else
            CHECK_MSG(hot < 0.01 * n, "data set %d: bin %llu of %lld", t, hot, n);
        if (is_float && !skewed) /* about 6% fall outside [-1, 1) and are not counted */
            CHECK_MSG(total > 0.93 * n && total < 0.95 * n, "counted %llu of %lld", total, n);
        else if (!is_float)
            CHECK(total == (unsigned long long)n);
        bins[3]++;
        CHECK(cutune_op_histogram()->check(&fake, st, &r) == 0 && !r.passed);
        CHECK_STR_CONTAINS(r.message, "first bin 3");
        cutune_op_histogram()->teardown(&fake, st);
    }
}

static const float *sort_base;
static int by_value_desc(const void *a, const void *b)
{
    float x = sort_base[*(const int *)a], y = sort_base[*(const int *)b];
    return (x < y) - (x > y);
}

static void test_topk(void)
{
    char err[256];
    CutuneProblem big_k = problem(2, 5000, 1025, 0), k_over_n = problem(2, 5, 6, 0);
    CHECK(cutune_op_topk()->check_problem(&big_k, err, sizeof err) != 0);
    CHECK(cutune_op_topk()->check_problem(&k_over_n, err, sizeof err) != 0);
    const int n = 200003, k = 1000;
    CutuneProblem p = problem(2, n, k, 0);
    void *st = NULL, *args[16];
    CHECK(cutune_op_topk()->setup(&fake, &p, 9, &st) == 0);
    CHECK_EQ_INT(cutune_op_topk()->kernel_args(st, &no_config, args, 16), 8);
    const float *x = *(float **)args[0];
    float *val = *(float **)args[1];
    int *idx = *(int **)args[2];
    CutuneCheck r;
    CHECK(cutune_op_topk()->poison_output(&fake, st) == 0);
    CHECK(cutune_op_topk()->check(&fake, st, &r) == 0 && !r.passed);
    int *order = malloc(n * sizeof *order);
    CHECK(order != NULL);
    if (!order)
        return;
    for (int i = 0; i < n; i++)
        order[i] = i;
    sort_base = x;
    qsort(order, n, sizeof *order, by_value_desc);
    for (int i = 0; i < k; i++) {
        idx[i] = order[i];
        val[i] = x[order[i]];
    }
    CHECK_MSG(cutune_op_topk()->check(&fake, st, &r) == 0 && r.passed, "%s", r.message);
    idx[10] = order[k + 5]; /* an index that does not hold its value */
    CHECK(cutune_op_topk()->check(&fake, st, &r) == 0 && !r.passed);
    CHECK_STR_CONTAINS(r.message, "rank 10");
    idx[10] = order[10];
    val[k - 1] = x[order[k]]; /* the (k+1)-th value in the last rank */
    idx[k - 1] = order[k];
    CHECK(cutune_op_topk()->check(&fake, st, &r) == 0 &&
          (r.passed == (x[order[k]] == x[order[k - 1]])));
    val[k - 1] = x[order[k - 1]];
    idx[k - 1] = order[k - 1];
    int saved = idx[3];
    idx[3] = idx[2]; /* the same index twice needs the same value twice */
    val[3] = val[2];
    CHECK(cutune_op_topk()->check(&fake, st, &r) == 0 && !r.passed);
    idx[3] = saved;
    val[3] = x[saved];
    CHECK(cutune_op_topk()->check(&fake, st, &r) == 0 && r.passed);
    free(order);
    cutune_op_topk()->teardown(&fake, st);
}

int main(void)
{
    test_matadd();
    test_transpose();
    test_reduce();
    test_histogram();
    test_topk();
    if (fake_failure[0])
        printf("last op failure message: %s\n", fake_failure);
    return check_result("memory_ops");
}
