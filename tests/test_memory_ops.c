/* The memory-bound ops' shared plugin code on the CPU: problem parsing, data sets,
 * references and checks. A host table whose "device" memory is host memory stands in for
 * the GPU, the kernels under test are emulated here (right, and wrong in the ways a kernel
 * goes wrong), and exact.cu's reference and comparison kernels are emulated by name. Each
 * check must pass the right output and fail the wrong ones. */
#include "check.h"
#include "host.h"

#include "../plugins/common/histogram_op.h"
#include "../plugins/common/matadd_op.h"
#include "../plugins/common/reduce_op.h"
#include "../plugins/common/topk_op.h"
#include "../plugins/common/transpose_op.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char last_failure[512];

static int f_alloc(void *ctx, size_t bytes, void **p)
{
    (void)ctx;
    *p = calloc(1, bytes ? bytes : 1);
    return *p ? 0 : CUTUNE_ERR_NOMEM;
}
static void f_free(void *ctx, void *p)
{
    (void)ctx;
    free(p);
}
static int f_copy(void *ctx, void *dst, const void *src, size_t bytes)
{
    (void)ctx;
    memcpy(dst, src, bytes);
    return 0;
}
static int f_memset(void *ctx, void *p, int byte, size_t bytes)
{
    (void)ctx;
    memset(p, byte, bytes);
    return 0;
}

/* exact.cu's kernels, emulated: args point at the kernel arguments. */
static int f_run_kernel(void *ctx, const char *source, const char *name, const CutuneLaunch *l, void **args)
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
    } else if (!strcmp(name, "cutune_compare_exact")) {
        const unsigned *out = *(const unsigned **)args[0], *ref = *(const unsigned **)args[1];
        unsigned long long n = *(unsigned long long *)args[2], *bad = *(unsigned long long **)args[3];
        for (unsigned long long i = 0; i < n; i++)
            if (out[i] != ref[i]) {
                bad[0]++;
                bad[1] = i < bad[1] ? i : bad[1];
            }
    } else {
        return CUTUNE_ERR_NOT_FOUND;
    }
    return 0;
}

static int f_fail(void *ctx, int code, const char *fmt, ...)
{
    (void)ctx;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_failure, sizeof last_failure, fmt, ap);
    va_end(ap);
    return code;
}

static const CutuneHost fake = {
    .abi_major = CUTUNE_PLUGIN_ABI_MAJOR, .abi_minor = CUTUNE_PLUGIN_ABI_MINOR,
    .struct_size = sizeof(CutuneHost), .ctx = NULL, .dev_alloc = f_alloc, .dev_free = f_free,
    .copy_to_device = f_copy, .copy_to_host = f_copy, .dev_memset = f_memset,
    .random_uniform = cutune_random_uniform, .run_kernel = f_run_kernel, .fail = f_fail,
};

static CutuneProblem problem(int ndims, int64_t a, int64_t b, int64_t c)
{
    CutuneProblem p = {ndims, {a, b, c, 0}};
    return p;
}

static const CutuneConfig no_config = {0, NULL, NULL};

static void test_matadd(void)
{
    CutuneProblem p = problem(1, 37, 0, 0);
    char err[256];
    CHECK(matadd_check_problem(&p, err, sizeof err) == 0 && p.ndims == 2 && p.dim[1] == 37);
    p = problem(2, 37, 53, 0);
    void *st = NULL, *args[16];
    CHECK(matadd_setup(&fake, &p, 5, &st) == 0);
    CHECK_EQ_INT(matadd_kernel_args(st, &no_config, args, 16), 5);
    const float *A = *(float **)args[0], *B = *(float **)args[1];
    float *C = *(float **)args[2];
    CutuneCheck r;
    CHECK(matadd_poison_output(&fake, st) == 0);
    CHECK(matadd_check(&fake, st, &r) == 0 && !r.passed); /* poisoned: NaN everywhere */
    for (int i = 0; i < 37 * 53; i++)
        C[i] = A[i] + B[i];
    CHECK(matadd_check(&fake, st, &r) == 0 && r.passed);
    C[2 * 53 + 7] = nextafterf(C[2 * 53 + 7], 2.0f); /* one ulp off */
    CHECK(matadd_check(&fake, st, &r) == 0 && !r.passed);
    CHECK_STR_CONTAINS(r.message, "C[2][7]");
    CHECK(fabs(matadd_bytes(&p) - 12.0 * 37 * 53) < 1e-9);
    matadd_teardown(&fake, st);
}

static void test_transpose(void)
{
    CutuneProblem p = problem(2, 37, 53, 0);
    void *st = NULL, *args[16];
    CHECK(transpose_setup(&fake, &p, 6, &st) == 0);
    CHECK_EQ_INT(transpose_kernel_args(st, &no_config, args, 16), 4);
    const float *A = *(float **)args[0];
    float *B = *(float **)args[1];
    CutuneCheck r;
    for (int i = 0; i < 37 * 53; i++) /* a copy is no transpose */
        B[i] = A[i];
    CHECK(transpose_check(&fake, st, &r) == 0 && !r.passed);
    for (int i = 0; i < 37; i++)
        for (int j = 0; j < 53; j++)
            B[j * 37 + i] = A[i * 53 + j];
    CHECK(transpose_check(&fake, st, &r) == 0 && r.passed);
    B[5 * 37 + 36] = -B[5 * 37 + 36];
    CHECK(transpose_check(&fake, st, &r) == 0 && !r.passed);
    CHECK_STR_CONTAINS(r.message, "B[5][36]");
    transpose_teardown(&fake, st);
}

static void test_reduce(void)
{
    const long long n = 1000003;
    CutuneProblem p = problem(1, n, 0, 0);
    void *st = NULL, *args[16];
    CHECK(reduce_setup(&fake, &p, 7, &st) == 0);
    CHECK_EQ_INT(reduce_kernel_args(st, &no_config, args, 16), 5);
    const float *x = *(float **)args[0];
    float *out = *(float **)args[1];
    CHECK(**(unsigned **)args[3] == 0); /* the counter starts at zero */
    CutuneCheck r;
    CHECK(reduce_poison_output(&fake, st) == 0);
    CHECK(reduce_check(&fake, st, &r) == 0 && !r.passed);
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
    CHECK(reduce_check(&fake, st, &r) == 0 && r.passed);
    CHECK_MSG(r.tolerance > 0 && r.error < r.tolerance / 4, "error %g, tolerance %g", r.error, r.tolerance);
    *out = part[0] - x[biggest]; /* one element dropped */
    CHECK(reduce_check(&fake, st, &r) == 0 && !r.passed);
    reduce_teardown(&fake, st);
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
    CHECK(histogram_check_problem(&bad, err, sizeof err) != 0);
    CHECK(histogram_check_problem(&one, err, sizeof err) == 0 && one.ndims == 3 && one.dim[1] == 1 &&
          one.dim[2] == 1);
    const long long n = 1000003;
    for (int t = 0; t < 4; t++) {
        int is_float = t & 1, skewed = t >> 1;
        CutuneProblem p = problem(3, n, is_float ? 4 : 1, skewed ? 2 : 1);
        void *st = NULL, *args[16];
        CHECK(histogram_setup(&fake, &p, 8, &st) == 0);
        CHECK_EQ_INT(histogram_kernel_args(st, &no_config, args, 16), 7);
        CHECK(*(int *)args[6] == is_float && (*(void **)args[is_float ? 0 : 1]) == NULL);
        const unsigned *scratch = *(unsigned **)args[3];
        int clean = **(unsigned **)args[4] == 0;
        for (int b = 0; b < HISTOGRAM_BINS; b++)
            clean &= scratch[b] == 0;
        CHECK_MSG(clean, "setup leaves scratch and counter at zero");
        unsigned *bins = *(unsigned **)args[2];
        CutuneCheck r;
        CHECK(histogram_poison_output(&fake, st) == 0);
        CHECK(histogram_check(&fake, st, &r) == 0 && !r.passed);
        count(args, is_float, n);
        CHECK_MSG(histogram_check(&fake, st, &r) == 0 && r.passed, "data set %d: %s", t, r.message);
        unsigned long long total = 0, hot = bins[is_float ? 192 : 200];
        for (int b = 0; b < HISTOGRAM_BINS; b++)
            total += bins[b];
        if (skewed) /* 7 in 8 in the hot bin */
            CHECK_MSG(hot > 0.86 * n && hot < 0.89 * n, "data set %d: hot bin %llu of %lld", t, hot, n);
        else
            CHECK_MSG(hot < 0.01 * n, "data set %d: bin %llu of %lld", t, hot, n);
        if (is_float && !skewed) /* about 6% fall outside [-1, 1) and are not counted */
            CHECK_MSG(total > 0.93 * n && total < 0.95 * n, "counted %llu of %lld", total, n);
        else if (!is_float)
            CHECK(total == (unsigned long long)n);
        bins[3]++;
        CHECK(histogram_check(&fake, st, &r) == 0 && !r.passed);
        CHECK_STR_CONTAINS(r.message, "first bin 3");
        histogram_teardown(&fake, st);
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
    CHECK(topk_check_problem(&big_k, err, sizeof err) != 0);
    CHECK(topk_check_problem(&k_over_n, err, sizeof err) != 0);
    const int n = 200003, k = 1000;
    CutuneProblem p = problem(2, n, k, 0);
    void *st = NULL, *args[16];
    CHECK(topk_setup(&fake, &p, 9, &st) == 0);
    CHECK_EQ_INT(topk_kernel_args(st, &no_config, args, 16), 8);
    const float *x = *(float **)args[0];
    float *val = *(float **)args[1];
    int *idx = *(int **)args[2];
    CutuneCheck r;
    CHECK(topk_poison_output(&fake, st) == 0);
    CHECK(topk_check(&fake, st, &r) == 0 && !r.passed);
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
    CHECK_MSG(topk_check(&fake, st, &r) == 0 && r.passed, "%s", r.message);
    idx[10] = order[k + 5]; /* an index that does not hold its value */
    CHECK(topk_check(&fake, st, &r) == 0 && !r.passed);
    CHECK_STR_CONTAINS(r.message, "rank 10");
    idx[10] = order[10];
    val[k - 1] = x[order[k]]; /* the (k+1)-th value in the last rank */
    idx[k - 1] = order[k];
    CHECK(topk_check(&fake, st, &r) == 0 && (r.passed == (x[order[k]] == x[order[k - 1]])));
    val[k - 1] = x[order[k - 1]];
    idx[k - 1] = order[k - 1];
    int saved = idx[3];
    idx[3] = idx[2]; /* the same index twice needs the same value twice */
    val[3] = val[2];
    CHECK(topk_check(&fake, st, &r) == 0 && !r.passed);
    idx[3] = saved;
    val[3] = x[saved];
    CHECK(topk_check(&fake, st, &r) == 0 && r.passed);
    free(order);
    topk_teardown(&fake, st);
}

int main(void)
{
    test_matadd();
    test_transpose();
    test_reduce();
    test_histogram();
    test_topk();
    if (last_failure[0])
        printf("last plugin failure message: %s\n", last_failure);
    return check_result("memory_ops");
}
