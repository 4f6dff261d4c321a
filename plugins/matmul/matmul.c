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
    float *A, *B, *C;          /* device */
    double *ref, *mag, *scale; /* device, MxN (matmul_ref.cu) */
} MatmulState;

static int check_problem(CutuneProblem *p, char *err, size_t errlen)
{
    if (cutune_op_check_square(p, 3, "matmul takes MxNxK (C is MxN, K is the inner dimension)", err,
                               errlen))
        return -1;
    int64_t M = p->dim[0], N = p->dim[1], K = p->dim[2];
    int64_t most = M * K > K * N ? M * K : K * N;
    if (cutune_op_check_int_size(most > M * N ? most : M * N,
                                 "each matrix must have fewer than 2^31 elements", err, errlen))
        return -1;
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

/* The kernel's arguments, in the order of its signature. */
static const size_t kernel_arg_fields[] = {
    offsetof(MatmulState, A), offsetof(MatmulState, B), offsetof(MatmulState, C),
    offsetof(MatmulState, M), offsetof(MatmulState, N), offsetof(MatmulState, K),
};

static CutuneOpBuffers buffers(void *state)
{
    MatmulState *s = state;
    size_t mk = (size_t)s->M * s->K, kn = (size_t)s->K * s->N, mn = (size_t)s->M * s->N;
    return (CutuneOpBuffers){{
        CUTUNE_OP_INPUT(&s->A, mk, 0),
        CUTUNE_OP_INPUT(&s->B, kn, 1),
        CUTUNE_OP_RESULT(&s->C, mn * sizeof(float)),
        CUTUNE_OP_BUFFER(&s->ref, mn * sizeof(double)),
        CUTUNE_OP_BUFFER(&s->mag, mn * sizeof(double)),
        CUTUNE_OP_BUFFER(&s->scale, mn * sizeof(double)),
    }};
}

static void setup_dims(MatmulState *s, const CutuneProblem *p)
{
    s->M = (int)p->dim[0];
    s->N = (int)p->dim[1];
    s->K = (int)p->dim[2];
}

/* ref, mag and scale from matmul_ref.cu, on the device */
static int setup_reference(const CutuneHost *host, MatmulState *s)
{
    CutuneLaunch l = {{(unsigned)cutune_ceil_div(s->N, 16), (unsigned)cutune_ceil_div(s->M, 16), 1},
                      {16, 16, 1},
                      0};
    void *args[] = {&s->A, &s->B, &s->ref, &s->mag, &s->scale, &s->M, &s->N, &s->K};
    return host->run_kernel(host->ctx, cutune_matmul_ref_cu, "cutune_matmul_ref", &l, args);
}

CUTUNE_OP_SETUP(MatmulState)

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
        .out = s->C,
        .ref = s->ref,
        .n = (size_t)s->M * s->N,
        .mag = s->mag,
        .scale = s->scale,
        .floor_abs = 1e-30,
        .describe = describe,
        .user = s,
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

CUTUNE_OP_DEFINE(matmul, .summary = "C = A * B, float32, row-major", .dim_names = "M,N,K",
                 .size_help = "MxNxK (C is MxN, K the inner dimension); N means NxNxN",
                 .signature = "const float *A, const float *B, float *C, int M, int N, int K")
