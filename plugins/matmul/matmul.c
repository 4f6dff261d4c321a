/* The matmul op plugin: problem checks, inputs, the double-precision reference on the
 * device, the check (the contract is in matmul.h). */
#include "matmul.h"
#include "op_sdk.h"
#include "cublas.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const char cutune_matmul_ref_cu[]; /* matmul_ref.cu, embedded at build time */

typedef struct MatmulState {
    int M, N, K;
    int dtype, bt, has_bias;    /* CutuneDtype; bt: B is stored N x K (layout nt); has_bias:
                                  epilogue bias */
    float *A, *B, *C;           /* device: float32 inputs (for fp16 and bf16 the exact values
                                  of the 16-bit ones) and output (the 16-bit one widened) */
    float *bias;                /* device, N: the bias (its 16-bit values, exactly), or NULL */
    uint16_t *A16, *B16, *C16;  /* device: fp16 and bf16 operands */
    uint16_t *bias16;           /* device, N: the 16-bit bias, or NULL */
    void *kA, *kB, *kC, *kbias; /* what the kernel gets: A, B, C or A16, B16, C16; bias16 or
                                   NULL */
    double *ref, *mag, *scale;  /* device, MxN (matmul_ref.cu) */
} MatmulState;

static int is16(int dtype)
{
    return dtype == CUTUNE_DTYPE_FP16 || dtype == CUTUNE_DTYPE_BF16;
}

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
    if (K >= (1 << 23)) { /* the error bound 2 K u / (1 - 2 K u) needs 2 K u < 1 */
        snprintf(err, errlen, "K must be below 2^23 for a float32 sum to be checkable");
        return -1;
    }
    if (p->dtype == CUTUNE_DTYPE_FP16 && K > 65504 - (p->epilogue == CUTUNE_EPILOGUE_BIAS)) {
        /* |C| <= K (+ 1 with a bias) must not overflow */
        snprintf(err, errlen,
                 "fp16 takes K up to 65504, 65503 with a bias (the largest half; |C| <= K + 1 "
                 "here)");
        return -1;
    }
    if (p->epilogue == CUTUNE_EPILOGUE_BIAS && !is16(p->dtype)) {
        snprintf(err, errlen,
                 "the bias epilogue is offered in fp16 and bf16 (what F.linear runs on the "
                 "tensor cores); write e.g. 4096x1024x1024-bf16-nt-bias");
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
    double bias = p->epilogue == CUTUNE_EPILOGUE_BIAS ? N : 0.0;
    return cutune_dtype_bytes(p->dtype) * (M * K + K * N + M * N + bias);
}

/* The kernel's arguments, in the order of its signature. */
static const size_t kernel_arg_fields[] = {
    offsetof(MatmulState, kA),    offsetof(MatmulState, kB), offsetof(MatmulState, kC),
    offsetof(MatmulState, M),     offsetof(MatmulState, N),  offsetof(MatmulState, K),
    offsetof(MatmulState, kbias),
};

static CutuneOpBuffers buffers(void *state)
{
    MatmulState *s = state;
    size_t mk = (size_t)s->M * s->K, kn = (size_t)s->K * s->N, mn = (size_t)s->M * s->N;
    if (is16(s->dtype)) {
        CutuneOpBuffers b = {{
            CUTUNE_OP_INPUT(&s->A, mk, 0),
            CUTUNE_OP_INPUT(&s->B, kn, 1),
            CUTUNE_OP_RESULT(&s->C16, mn * sizeof(uint16_t)),
            CUTUNE_OP_BUFFER(&s->C, mn * sizeof(float)),
            CUTUNE_OP_BUFFER(&s->A16, mk * sizeof(uint16_t)),
            CUTUNE_OP_BUFFER(&s->B16, kn * sizeof(uint16_t)),
            CUTUNE_OP_BUFFER(&s->ref, mn * sizeof(double)),
            CUTUNE_OP_BUFFER(&s->mag, mn * sizeof(double)),
            CUTUNE_OP_BUFFER(&s->scale, mn * sizeof(double)),
        }};
        if (s->has_bias) { /* the bias: stream 2, and its 16-bit copy */
            b.entry[9] = (CutuneOpBuffer)CUTUNE_OP_INPUT(&s->bias, (size_t)s->N, 2);
            b.entry[10] = (CutuneOpBuffer)CUTUNE_OP_BUFFER(&s->bias16, s->N * sizeof(uint16_t));
        }
        return b;
    }
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
    s->dtype = p->dtype;
    s->bt = p->layout == CUTUNE_LAYOUT_NT;
    s->has_bias = p->epilogue == CUTUNE_EPILOGUE_BIAS;
}

/* For fp16 and bf16: x rounded into x16, and x set to the rounded values (matmul_ref.cu). */
static int round16(const CutuneHost *host, float *x, uint16_t *x16, size_t n, int dtype)
{
    void *args[] = {&x, &x16, &n, &dtype};
    return cutune_op_run_strided(host, cutune_matmul_ref_cu, "cutune_matmul_round", n, args);
}

/* The inputs in the element type, then ref, mag and scale from matmul_ref.cu, on the device;
 * for the tensor-core types mag and scale become absolute bounds (matmul.h). */
static int setup_reference(const CutuneHost *host, MatmulState *s)
{
    int rc = 0;
    size_t mk = (size_t)s->M * s->K, kn = (size_t)s->K * s->N, mn = (size_t)s->M * s->N;
    s->kA = s->A, s->kB = s->B, s->kC = s->C, s->kbias = NULL;
    if (is16(s->dtype)) {
        s->kA = s->A16, s->kB = s->B16, s->kC = s->C16;
        if ((rc = round16(host, s->A, s->A16, mk, s->dtype)) ||
            (rc = round16(host, s->B, s->B16, kn, s->dtype)))
            return rc;
        if (s->has_bias) {
            s->kbias = s->bias16;
            if ((rc = round16(host, s->bias, s->bias16, (size_t)s->N, s->dtype)))
                return rc;
        }
    }
    /* tiles of 64 x 64 outputs, 256 threads each (matmul_ref.cu) */
    CutuneLaunch l = {{(unsigned)cutune_ceil_div(s->N, 64), (unsigned)cutune_ceil_div(s->M, 64), 1},
                      {256, 1, 1},
                      0};
    void *args[] = {&s->A, &s->B, &s->ref, &s->mag, &s->scale, &s->M, &s->N, &s->K, &s->bt};
    rc = host->run_kernel(host->ctx, cutune_matmul_ref_cu, "cutune_matmul_ref", &l, args);
    if (rc || s->dtype == CUTUNE_DTYPE_FP32)
        return rc;
    /* bias NULL: none; else ref becomes A B + bias, and the bounds take the bias's add */
    void *bargs[] = {&s->ref, &s->mag, &s->scale, &mn, &s->K, &s->dtype, &s->bias, &s->N};
    return cutune_op_run_strided(host, cutune_matmul_ref_cu, "cutune_matmul_bounds", mn, bargs);
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
    size_t mn = (size_t)s->M * s->N;
    if (is16(s->dtype)) {
        void *args[] = {&s->C16, &s->C, &mn, &s->dtype};
        int rc = cutune_op_run_strided(host, cutune_matmul_ref_cu, "cutune_matmul_widen", mn, args);
        if (rc)
            return rc;
    }
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
    if (s->dtype != CUTUNE_DTYPE_FP32) { /* mag and scale hold absolute bounds */
        const double u = 0x1p-24;
        spec.gamma = spec.tau = 1.0;
        spec.norm_tol = s->dtype == CUTUNE_DTYPE_TF32   ? 0x1p-7
                        : s->dtype == CUTUNE_DTYPE_BF16 ? 0x1p-8 + 2.0 * s->K * u
                                                        : 0x1p-11 + 2.0 * s->K * u;
        if (s->dtype == CUTUNE_DTYPE_FP16)
            spec.floor_abs = 0x1p-25; /* half the spacing of fp16's subnormals */
    }
    return host->compare_f32(host->ctx, &spec, out);
}

static int yardstick(const CutuneHost *host, void *state, const CutuneProblem *p,
                     CutuneYardstick *out)
{
    (void)p;
    MatmulState *s = state;
    if (s->dtype == CUTUNE_DTYPE_FP32)
        return matmul_cublas_yardstick(host, s->A, s->B, s->C, s->M, s->N, s->K, s->bt, out);
    return matmul_cublaslt_yardstick(host, s->dtype, s->bt, s->kA, s->kB, s->kC, s->kbias, s->M,
                                     s->N, s->K, out);
}

CUTUNE_OP_DEFINE(matmul,
                 .summary = "C = A * B (+ bias), row-major; fp32, tf32, fp16, bf16; B as K x N or "
                            "N x K",
                 .dim_names = "M,N,K",
                 .size_help = "MxNxK (C is MxN, K the inner dimension); N means NxNxN; then "
                              "-tf32, -fp16 or -bf16, -nt (B stored N x K) and -bias (fp16 and "
                              "bf16: C = A B + bias, a row of N) where they apply",
                 .signature = "const T *A, const T *B, T *C, int M, int N, int K, const T *bias",
                 .dtypes = "fp32, tf32, fp16, bf16", .layouts = "nn, nt", .epilogues = "none, bias")
