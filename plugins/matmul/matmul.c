/* The matmul op plugin: problem checks, inputs, the double-precision reference on the
 * device, the check (the contract is in matmul.h). */
#include "matmul.h"
#include "op_sdk.h"
#include "cublas.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const char cutune_matmul_ref_cu[]; /* matmul_ref.cu, embedded at build time */

typedef struct MatmulState {
    int M, N, K;
    float *A, *B, *C;   /* device */
    double *ref, *mag, *scale; /* device, MxN (matmul_ref.cu) */
} MatmulState;

#define DIM_LIMIT (1LL << 31)

static int check_problem(CutuneProblem *p, char *err, size_t errlen)
{
    cutune_op_square(p, 3); /* "N" means NxNxN */
    if (p->ndims != 3) {
        snprintf(err, errlen, "matmul takes MxNxK (C is MxN, K is the inner dimension), got %d numbers",
                 p->ndims);
        return -1;
    }
    int64_t M = p->dim[0], N = p->dim[1], K = p->dim[2];
    if (M * K >= DIM_LIMIT || K * N >= DIM_LIMIT || M * N >= DIM_LIMIT) {
        snprintf(err, errlen, "each matrix must have fewer than 2^31 elements");
        return -1;
    }
    if (K >= (1 << 24)) { /* the error bound K u / (1 - K u) needs K u < 1 */
        snprintf(err, errlen, "K must be below 2^24 for a float32 result to be checkable");
        return -1;
    }
    return 0;
}

static double flops(const CutuneProblem *p)
{
    return 2.0 * (double)p->dim[0] * (double)p->dim[1] * (double)p->dim[2];
}

static double bytes(const CutuneProblem *p)
{
    double M = (double)p->dim[0], N = (double)p->dim[1], K = (double)p->dim[2];
    return 4.0 * (M * K + K * N + M * N);
}

static int fill_random(const CutuneHost *host, float *dst, size_t n, uint64_t seed, uint64_t stream)
{
    float *h = malloc(n * sizeof *h);
    if (!h)
        return host->fail(host->ctx, CUTUNE_ERR_NOMEM, "out of host memory for %zu inputs", n);
    host->random_uniform(seed, stream, h, n, -1.0f, 1.0f);
    int rc = host->copy_to_device(host->ctx, dst, h, n * sizeof *h);
    free(h);
    return rc;
}

static void teardown(const CutuneHost *host, void *state)
{
    MatmulState *s = state;
    if (!s)
        return;
    void *const bufs[] = {s->A, s->B, s->C, s->ref, s->mag, s->scale};
    cutune_op_dev_free(host, bufs, sizeof bufs / sizeof bufs[0]);
    free(s);
}

static int setup(const CutuneHost *host, const CutuneProblem *p, uint64_t seed, void **state)
{
    MatmulState *s = calloc(1, sizeof *s);
    if (!s)
        return host->fail(host->ctx, CUTUNE_ERR_NOMEM, "out of host memory");
    s->M = (int)p->dim[0];
    s->N = (int)p->dim[1];
    s->K = (int)p->dim[2];
    size_t mk = (size_t)s->M * s->K, kn = (size_t)s->K * s->N, mn = (size_t)s->M * s->N;
    int rc;
    if ((rc = host->dev_alloc(host->ctx, mk * sizeof(float), (void **)&s->A)) ||
        (rc = host->dev_alloc(host->ctx, kn * sizeof(float), (void **)&s->B)) ||
        (rc = host->dev_alloc(host->ctx, mn * sizeof(float), (void **)&s->C)) ||
        (rc = host->dev_alloc(host->ctx, mn * sizeof(double), (void **)&s->ref)) ||
        (rc = host->dev_alloc(host->ctx, mn * sizeof(double), (void **)&s->mag)) ||
        (rc = host->dev_alloc(host->ctx, mn * sizeof(double), (void **)&s->scale)) ||
        (rc = fill_random(host, s->A, mk, seed, 0)) || (rc = fill_random(host, s->B, kn, seed, 1)))
        goto fail;
    CutuneLaunch l = {{(unsigned)cutune_ceil_div(s->N, 16), (unsigned)cutune_ceil_div(s->M, 16), 1},
                      {16, 16, 1}, 0};
    void *args[] = {&s->A, &s->B, &s->ref, &s->mag, &s->scale, &s->M, &s->N, &s->K};
    if ((rc = host->run_kernel(host->ctx, cutune_matmul_ref_cu, "cutune_matmul_ref", &l, args)))
        goto fail;
    *state = s;
    return 0;
fail:
    teardown(host, s);
    return rc;
}

static int kernel_args(void *state, const CutuneConfig *cfg, void **args, int max)
{
    (void)cfg;
    MatmulState *s = state;
    void *const from[] = {&s->A, &s->B, &s->C, &s->M, &s->N, &s->K};
    return cutune_op_args(args, max, from, 6);
}

static int poison_output(const CutuneHost *host, void *state)
{
    MatmulState *s = state;
    return cutune_op_poison(host, s->C, (size_t)s->M * s->N * sizeof(float));
}

static const char *describe(size_t index, void *user, char *buf, size_t len)
{
    const MatmulState *s = user;
    snprintf(buf, len, "C[%zu][%zu]", index / (size_t)s->N, index % (size_t)s->N);
    return buf;
}

void matmul_tolerances(int K, double *gamma, double *tau, double *norm_tol)
{
    const double u = 0x1p-24, ku = K * u;
    *gamma = ku / (1.0 - ku);
    *tau = MATMUL_TAU * u;
    *norm_tol = 8.0 * u * sqrt((double)K);
}

static int check(const CutuneHost *host, void *state, CutuneCheck *out)
{
    MatmulState *s = state;
    CutuneCompareF32 spec = {
        .out = s->C, .ref = s->ref, .n = (size_t)s->M * s->N,
        .mag = s->mag, .scale = s->scale, .floor_abs = 1e-30,
        .describe = describe, .user = s,
    };
    matmul_tolerances(s->K, &spec.gamma, &spec.tau, &spec.norm_tol);
    return host->compare_f32(host->ctx, &spec, out);
}

static int yardstick(const CutuneHost *host, void *state, const CutuneProblem *p,
                     CutuneYardstick *out)
{
    (void)p;
    MatmulState *s = state;
    return matmul_cublas_yardstick(host, s->A, s->B, s->C, s->M, s->N, s->K, out);
}

static const CutuneOp op = {
    CUTUNE_OP_ABI,
    .name = "matmul",
    .summary = "C = A * B, float32, row-major",
    .dim_names = "M,N,K",
    .size_help = "MxNxK (C is MxN, K the inner dimension); N means NxNxN",
    .signature = "const float *A, const float *B, float *C, int M, int N, int K",
    .nargs = 6,
    CUTUNE_OP_CALLBACKS,
    .yardstick = yardstick,
};

const CutuneOp *cutune_op_matmul(void)
{
    return &op;
}
