/* matmul's check on the CPU, with errors planted: the worst-case bound stays the hard limit,
 * and the statistical bound (plugins/matmul/matmul.h) catches a 1e-3 relative error in one
 * element that the worst-case bound lets through, at the sizes of issue 4 (1000^3, 4096^3,
 * 8192^3), without failing any summation order a correct kernel uses (sequential with and
 * without FMA, split K, interleaved accumulators, a tree).
 *
 * Part 1 runs the op's own check through a host table on host memory at a small size: the
 * op's setup and check, the SDK's comparison (compare.c) and the element rule the device
 * uses (compare_rule.h), with matmul_ref.cu and compare.cu emulated here. Part 2 takes the
 * op's tolerances (matmul_tolerances) and its seeded inputs at the large sizes, where a
 * whole product is too much for a test on the CPU, for a few elements of C each. The same
 * rules on a GPU, over every matmul space and several seeds: test_gpu_check.c. Part 1 also
 * checks bf16 with the bias epilogue (op_check_bias). */
#include "check.h"
#include "compare_rule.h"
#include "fake_host.h"
#include "host.h"
#include "sdk.h"

#include "matmul/matmul.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the scale of the statistical bound, as matmul_ref.cu computes it ---- */

typedef struct Element {
    double ref, mag, scale, l2;
} Element;

static Element element_of(const float *arow, const float *bcol, size_t bstride, int K)
{
    double acc = 0, abs_acc = 0, sq = 0;
    for (int k = 0; k < K; k++) {
        double p = (double)arow[k] * (double)bcol[(size_t)k * bstride];
        acc += p;
        abs_acc += fabs(p);
        sq += p * p;
    }
    return (Element){acc, abs_acc, sqrt((double)K) * (sqrt(sq) + fabs(acc)), sqrt(sq)};
}

/* ---- float32 dot products in the orders kernels use ---- */

enum { SEQ_FMA, SEQ_MUL_ADD, SPLIT8, INTERLEAVE4, TREE, NORDERS };
static const char *const order_names[NORDERS] = {"sequential FMA", "sequential mul+add",
                                                 "split K 8 ways", "4 interleaved accumulators",
                                                 "pairwise tree"};

static float tree(const float *a, const float *b, size_t bs, int lo, int hi)
{
    if (hi - lo == 1) {
        volatile float p = a[lo] * b[(size_t)lo * bs];
        return p;
    }
    int mid = lo + (hi - lo) / 2;
    return tree(a, b, bs, lo, mid) + tree(a, b, bs, mid, hi);
}

static float dot(const float *a, const float *b, size_t bs, int K, int order)
{
    float acc = 0, part[8] = {0};
    switch (order) {
    case SEQ_FMA:
        for (int k = 0; k < K; k++)
            acc = fmaf(a[k], b[(size_t)k * bs], acc);
        return acc;
    case SEQ_MUL_ADD:
        for (int k = 0; k < K; k++) {
            volatile float p = a[k] * b[(size_t)k * bs];
            acc = acc + p;
        }
        return acc;
    case SPLIT8: {
        int chunk = (K + 7) / 8;
        for (int c = 0; c < 8; c++)
            for (int k = c * chunk; k < K && k < (c + 1) * chunk; k++)
                part[c] = fmaf(a[k], b[(size_t)k * bs], part[c]);
        for (int c = 0; c < 8; c++)
            acc += part[c];
        return acc;
    }
    case INTERLEAVE4:
        for (int k = 0; k < K; k++)
            part[k & 3] = fmaf(a[k], b[(size_t)k * bs], part[k & 3]);
        return (part[0] + part[1]) + (part[2] + part[3]);
    default: return tree(a, b, bs, 0, K);
    }
}

/* ---- part 1: the op's check through a host table on host memory ---- */

/* ---- bf16, as matmul_ref.cu rounds and widens it ---- */

static uint16_t to_bf16(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16); /* to nearest even */
}

static float from_bf16(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* cutune_matmul_bounds for bf16 (matmul.h, "The bias epilogue"; with bias NULL, "Other
 * element types"), written out again from the derivation: ref, mag, scale in place. */
static int bf16_bounds(void **args)
{
    double *ref = *(double **)args[0], *mag = *(double **)args[1], *sc = *(double **)args[2];
    size_t n = *(size_t *)args[3];
    int K = *(int *)args[4];
    const float *bias = *(float **)args[6];
    int N = *(int *)args[7];
    const double u = 0x1p-24, uT = 0x1p-8, g = 2.0 * K * u / (1.0 - 2.0 * K * u);
    for (size_t i = 0; i < n; i++) {
        double walk = sc[i] / sqrt((double)K);
        double R = ref[i] + (bias ? (double)bias[i % (size_t)N] : 0.0), aR = fabs(R);
        double add = bias ? u : 0.0, grow = bias ? 1.0 + u : 1.0; /* the add's rounding */
        ref[i] = R;
        mag[i] = uT * aR + (1.0 + uT) * (grow * g * mag[i] + add * aR);
        sc[i] = uT * aR + (1.0 + uT) * (grow * K * u * walk + add * aR);
    }
    return 0;
}

static int f_fail(void *ctx, int code, const char *fmt, ...)
{
    (void)ctx, (void)fmt;
    return code;
}

/* matmul_ref.cu and compare.cu, emulated by name (args point at the kernel arguments). */
static int f_run_kernel(void *ctx, const char *source, const char *name, const CutuneLaunch *l,
                        void **args)
{
    (void)ctx, (void)source, (void)l;
    if (!strcmp(name, "cutune_matmul_ref")) {
        const float *A = *(float **)args[0], *B = *(float **)args[1];
        double *ref = *(double **)args[2], *mag = *(double **)args[3], *sc = *(double **)args[4];
        int M = *(int *)args[5], N = *(int *)args[6], K = *(int *)args[7];
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                Element e = element_of(A + (size_t)i * K, B + j, (size_t)N, K);
                ref[(size_t)i * N + j] = e.ref;
                mag[(size_t)i * N + j] = e.mag;
                sc[(size_t)i * N + j] = e.scale;
            }
        return 0;
    }
    if (!strcmp(name, "cutune_compare_f32")) {
        const float *out = *(float **)args[0];
        const double *ref = *(double **)args[1], *mag = *(double **)args[2];
        const double *sc = *(double **)args[3];
        unsigned long long n = *(unsigned long long *)args[4];
        double gamma = *(double *)args[5], tau = *(double *)args[6], fl = *(double *)args[7];
        double *acc = *(double **)args[8];
        unsigned long long *bad = *(unsigned long long **)args[9];
        for (unsigned long long i = 0; i < n; i++) {
            double d = (double)out[i] - ref[i];
            if (cutune_compare_element(out[i], ref[i], mag[i], gamma, sc != NULL, sc ? sc[i] : 0,
                                       tau, fl)) {
                bad[0]++;
                bad[1] = i < bad[1] ? i : bad[1];
            }
            if (isfinite(d))
                acc[0] += d * d;
            acc[1] += ref[i] * ref[i];
        }
        return 0;
    }
    if (!strcmp(name, "cutune_matmul_round")) { /* bf16 (dtype 3) alone here */
        float *x = *(float **)args[0];
        uint16_t *x16 = *(uint16_t **)args[1];
        size_t n = *(size_t *)args[2];
        for (size_t i = 0; i < n; i++) {
            x16[i] = to_bf16(x[i]);
            x[i] = from_bf16(x16[i]);
        }
        return 0;
    }
    if (!strcmp(name, "cutune_matmul_widen")) {
        const uint16_t *c16 = *(uint16_t **)args[0];
        float *c = *(float **)args[1];
        size_t n = *(size_t *)args[2];
        for (size_t i = 0; i < n; i++)
            c[i] = from_bf16(c16[i]);
        return 0;
    }
    if (!strcmp(name, "cutune_matmul_bounds")) /* matmul_ref.cu's, for bf16 */
        return bf16_bounds(args);
    return CUTUNE_ERR_NOT_FOUND;
}

static CutuneHost fake;

static int f_compare_f32(void *ctx, const CutuneCompareF32 *spec, CutuneCheck *verdict)
{
    (void)ctx;
    return cutune_sdk_compare_f32(&fake, spec, verdict);
}

/* The host table of part 1: host memory, and matmul_ref.cu and compare.cu emulated. */
static void fake_init(void)
{
    fake = (CutuneHost){
        FAKE_HOST_MEMORY,
        .run_kernel = f_run_kernel,
        .fail = f_fail,
        .compare_f32 = f_compare_f32,
    };
}

static void op_check_small(int M, int N, int K)
{
    fake_init();
    const CutuneOp *op = cutune_op_matmul();
    CutuneProblem p = {.ndims = 3, .dim = {M, N, K}};
    void *st = NULL, *args[16];
    CHECK(op->setup(&fake, &p, 3, &st) == 0);
    if (!st)
        return;
    CHECK_EQ_INT(op->kernel_args(st, NULL, args, 16), 7);
    CHECK(*(void **)args[6] == NULL); /* no bias without the epilogue */
    const float *A = *(float **)args[0], *B = *(float **)args[1];
    float *C = *(float **)args[2];
    CutuneCheck r;
    CHECK(op->poison_output(&fake, st) == 0 && op->check(&fake, st, &r) == 0 && !r.passed);
    for (int order = 0; order < NORDERS; order++) {
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++)
                C[(size_t)i * N + j] = dot(A + (size_t)i * K, B + j, (size_t)N, K, order);
        CHECK_MSG(op->check(&fake, st, &r) == 0 && r.passed, "%dx%dx%d, %s: %s", M, N, K,
                  order_names[order], r.message);
    }
    /* 1e-3 too large: caught in every element; where the worst-case bound lets it through,
     * the statistical bound is what says so */
    double gamma, tau, norm_tol;
    matmul_tolerances(K, &gamma, &tau, &norm_tol);
    size_t caught = 0, by_stat = 0, big = 0;
    for (size_t i = 0; i < (size_t)M * N; i++) {
        big = fabsf(C[i]) > fabsf(C[big]) ? i : big;
        float good = C[i];
        Element e = element_of(A + i / (size_t)N * K, B + i % (size_t)N, (size_t)N, K);
        C[i] = (float)((double)good * (1 + 1e-3));
        int within_worst = fabs((double)C[i] - e.ref) <= gamma * e.mag;
        if (fabs(e.ref) >= 0.05 * e.l2 && op->check(&fake, st, &r) == 0 && !r.passed) {
            caught++;
            if (within_worst && strstr(r.message, "the statistical bound"))
                by_stat++;
        } else if (fabs(e.ref) >= 0.05 * e.l2) {
            CHECK_MSG(0, "%dx%dx%d: a 1e-3 error in C[%zu][%zu] passes", M, N, K, i / (size_t)N,
                      i % (size_t)N);
        }
        C[i] = good;
    }
    printf("%dx%dx%d: a 1e-3 error caught in %zu elements, %zu of them inside the worst-case "
           "bound\n",
           M, N, K, caught, by_stat);
    CHECK(caught > 0 && (K < 500 || by_stat > 0));
    float good = C[big];
    /* off by the worst-case bound: said to be past it */
    C[big] = good + 2 * (float)(K * 0x1p-24 * 2 * fabs(good) + 1);
    CHECK(op->check(&fake, st, &r) == 0 && !r.passed);
    CHECK_STR_CONTAINS(r.message, "the worst-case bound");
    op->teardown(&fake, st);
}

/* bf16 with the bias epilogue at a small size: C = round_bf16(fl32(s + b)) passes in every
 * summation order; the bias left out, added twice, or one element two bf16 ulps off (the
 * largest, where a 2-ulp error is past the bound) fails. */
static void op_check_bias(int M, int N, int K)
{
    fake_init();
    const CutuneOp *op = cutune_op_matmul();
    CutuneProblem p = {.ndims = 3,
                       .dim = {M, N, K},
                       .dtype = CUTUNE_DTYPE_BF16,
                       .epilogue = CUTUNE_EPILOGUE_BIAS};
    char why[256] = "";
    CHECK_MSG(op->check_problem(&p, why, sizeof why) == 0, "%s", why);
    void *st = NULL, *args[16];
    CHECK(op->setup(&fake, &p, 5, &st) == 0);
    if (!st)
        return;
    CHECK_EQ_INT(op->kernel_args(st, NULL, args, 16), 7);
    const uint16_t *A = *(uint16_t **)args[0], *B = *(uint16_t **)args[1];
    uint16_t *C = *(uint16_t **)args[2];
    const uint16_t *bias = *(uint16_t **)args[6];
    CHECK(bias != NULL);
    if (!bias)
        return;
    size_t mk = (size_t)M * K, kn = (size_t)K * N;
    float *a = malloc(mk * sizeof *a), *b = malloc(kn * sizeof *b);
    CHECK(a && b);
    for (size_t i = 0; a && i < mk; i++)
        a[i] = from_bf16(A[i]);
    for (size_t i = 0; b && i < kn; i++)
        b[i] = from_bf16(B[i]);
    CutuneCheck r;
    CHECK(op->poison_output(&fake, st) == 0 && op->check(&fake, st, &r) == 0 && !r.passed);
    static const struct {
        const char *what;
        int times; /* the bias added this many times */
        int pass;
    } cases[] = {{"the bias added once", 1, 1}, {"no bias", 0, 0}, {"the bias twice", 2, 0}};
    for (size_t c = 0; a && b && c < sizeof cases / sizeof cases[0]; c++)
        for (int order = 0; order < NORDERS; order++) {
            for (int i = 0; i < M; i++)
                for (int j = 0; j < N; j++) {
                    float v = dot(a + (size_t)i * K, b + j, (size_t)N, K, order);
                    for (int t = 0; t < cases[c].times; t++)
                        v += from_bf16(bias[j]);
                    C[(size_t)i * N + j] = to_bf16(v);
                }
            CHECK_MSG(op->check(&fake, st, &r) == 0 && r.passed == cases[c].pass,
                      "%dx%dx%d-bf16-bias, %s, %s: passed %d; %s", M, N, K, cases[c].what,
                      order_names[order], r.passed, r.message);
        }
    /* right again, then the largest element two bf16 ulps off */
    size_t big = 0;
    for (int i = 0; a && b && i < M; i++)
        for (int j = 0; j < N; j++) {
            size_t at = (size_t)i * N + j;
            C[at] = to_bf16(dot(a + (size_t)i * K, b + j, (size_t)N, K, SEQ_FMA) +
                            from_bf16(bias[j]));
            big = fabsf(from_bf16(C[at])) > fabsf(from_bf16(C[big])) ? at : big;
        }
    CHECK(op->check(&fake, st, &r) == 0 && r.passed);
    C[big] = (uint16_t)(C[big] + 2);
    CHECK_MSG(op->check(&fake, st, &r) == 0 && !r.passed, "2 ulps off C[%zu] (%g) pass", big,
              (double)from_bf16(C[big]));
    printf("%dx%dx%d-bf16-bias: %d summation orders pass, the bias left out or added twice "
           "fails each, 2 ulps off the largest element fails\n",
           M, N, K, NORDERS);
    free(a);
    free(b);
    op->teardown(&fake, st);
    /* the op takes the bias in fp16 and bf16 alone */
    p.dtype = CUTUNE_DTYPE_FP32;
    CHECK(op->check_problem(&p, why, sizeof why) != 0);
    CHECK_STR_CONTAINS(why, "the bias epilogue is offered in fp16 and bf16");
}

/* ---- part 2: elements of the sizes ---- */

typedef struct Tally {
    size_t checked, planted, caught, caught_worst_case, below;
    double worst_ratio; /* the largest |d| / (tau scale) of a correct order */
} Tally;

static void large(int M, int N, int K, uint64_t seed, Tally *t)
/* (M only names the size: the elements are in A's first rows) */
{
    /* the op's inputs: A from stream 0 (M x K), B from stream 1 (K x N), as setup makes them;
     * a stream's first values do not depend on how many are drawn, so A's first rows are
     * its first ROWS * K values */
    enum { ROWS = 4, COLS = 4 };
    const int rows[ROWS] = {0, 1, 2, 3}, cols[COLS] = {0, 1, N / 2, N - 1};
    float *A = malloc((size_t)ROWS * K * sizeof *A), *B = malloc((size_t)K * N * sizeof *B);
    float *bcol = malloc((size_t)K * COLS * sizeof *bcol);
    CHECK(A && B && bcol);
    if (!A || !B || !bcol)
        goto out;
    cutune_random_uniform(seed, 0, A, (size_t)ROWS * K, -1.0f, 1.0f);
    cutune_random_uniform(seed, 1, B, (size_t)K * N, -1.0f, 1.0f);
    for (int c = 0; c < COLS; c++)
        for (int k = 0; k < K; k++)
            bcol[(size_t)c * K + k] = B[(size_t)k * N + cols[c]];
    free(B);
    B = NULL;
    double gamma, tau, norm_tol;
    matmul_tolerances(K, &gamma, &tau, &norm_tol);
    for (int r = 0; r < ROWS; r++)
        for (int c = 0; c < COLS; c++) {
            const float *arow = A + (size_t)rows[r] * K, *b = bcol + (size_t)c * K;
            Element e = element_of(arow, b, 1, K);
            t->checked++;
            for (int order = 0; order < NORDERS; order++) {
                float got = dot(arow, b, 1, K, order);
                int v = cutune_compare_element(got, e.ref, e.mag, gamma, 1, e.scale, tau, 1e-30);
                CHECK_MSG(v == 0, "%dx%dx%d seed %llu C[%d][%d], %s: rule %d", M, N, K,
                          (unsigned long long)seed, rows[r], cols[c], order_names[order], v);
                double ratio = fabs((double)got - e.ref) / (tau * e.scale);
                t->worst_ratio = ratio > t->worst_ratio ? ratio : t->worst_ratio;
            }
            /* a 1e-3 relative error: caught wherever |ref| is not near 0 */
            float good = dot(arow, b, 1, K, SEQ_FMA);
            float bad = (float)((double)good * (1 + 1e-3));
            int v = cutune_compare_element(bad, e.ref, e.mag, gamma, 1, e.scale, tau, 1e-30);
            int worst_alone = !(fabs((double)bad - e.ref) <= gamma * e.mag + 1e-30);
            /* test_gpu_check plants this error in C[0][0] with seed 1 on the GPU: it must be
             * an element where the error is caught */
            if (seed == 1 && rows[r] == 0 && cols[c] == 0)
                CHECK_MSG(fabs(e.ref) >= 0.05 * e.l2 && v == 2,
                          "%dx%dx%d seed 1: C[0][0] = %.6g is too near 0 (|p| %.6g) for the GPU "
                          "test's planted error, or is caught by the worst-case bound (%d)",
                          M, N, K, e.ref, e.l2, v);
            if (fabs(e.ref) >= 0.05 * e.l2) {
                t->planted++;
                t->caught += v != 0;
                t->caught_worst_case += worst_alone;
                CHECK_MSG(v != 0,
                          "%dx%dx%d seed %llu C[%d][%d] = %.6g (|p| %.6g): a 1e-3 error "
                          "passes",
                          M, N, K, (unsigned long long)seed, rows[r], cols[c], e.ref, e.l2);
            } else {
                t->below++;
            }
        }
out:
    free(A);
    free(B);
    free(bcol);
}

int main(void)
{
    op_check_small(37, 29, 61);
    op_check_small(23, 41, 1000);
    op_check_bias(37, 29, 61);
    op_check_bias(23, 41, 1000);
    static const int sizes[][3] = {{1000, 1000, 1000}, {4096, 4096, 4096}, {8192, 8192, 8192}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        Tally t = {0};
        for (uint64_t seed = 1; seed <= (s < 2 ? 3u : 2u); seed++)
            large(sizes[s][0], sizes[s][1], sizes[s][2], seed, &t);
        printf("%dx%dx%d: %zu elements x %d summation orders pass (the largest error %.2f of the "
               "statistical bound); a 1e-3 error caught in %zu of %zu (the worst-case bound alone: "
               "%zu); %zu elements near 0 not planted\n",
               sizes[s][0], sizes[s][1], sizes[s][2], t.checked, NORDERS, t.worst_ratio, t.caught,
               t.planted, t.caught_worst_case, t.below);
        CHECK(t.planted >= t.checked / 2 && t.caught == t.planted);
        CHECK_MSG(t.worst_ratio < 0.5,
                  "an order of a correct kernel comes within %.2f of the "
                  "statistical bound",
                  t.worst_ratio);
        if (sizes[s][2] >= 4096) /* where the worst-case bound is loosest */
            CHECK_MSG(t.caught_worst_case < t.planted / 2, "the worst-case bound caught %zu of %zu",
                      t.caught_worst_case, t.planted);
    }
    return check_result("matmul_check");
}
