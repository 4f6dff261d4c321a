/* The matadd op plugin: problem checks, inputs, reference, check. */
#include "matadd.h"
#include "op_sdk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct MataddState {
    int M, N;
    float *A, *B, *C; /* device */
    float *ref;       /* device: A + B from matadd_ref.cu */
} MataddState;

extern const char cutune_matadd_ref_cu[]; /* matadd_ref.cu, embedded at build time */

/* The kernel's arguments, in the order of its signature. */
static const size_t kernel_arg_fields[] = {
    offsetof(MataddState, A), offsetof(MataddState, B), offsetof(MataddState, C),
    offsetof(MataddState, M), offsetof(MataddState, N),
};

static CutuneOpBuffers buffers(void *state)
{
    MataddState *s = state;
    size_t n = (size_t)s->M * s->N;
    return (CutuneOpBuffers){{
        CUTUNE_OP_INPUT(&s->A, n, 0),
        CUTUNE_OP_INPUT(&s->B, n, 1),
        CUTUNE_OP_RESULT(&s->C, n * sizeof(float)),
        CUTUNE_OP_BUFFER(&s->ref, n * sizeof(float)),
    }};
}

static int check_problem(CutuneProblem *p, char *err, size_t errlen)
{
    if (cutune_op_check_square(p, 2, "matadd takes MxN (rows x columns)", err, errlen))
        return -1;
    return cutune_op_check_int_size(p->dim[0] * p->dim[1],
                                    "a matrix must have fewer than 2^31 elements", err, errlen);
}

static double flops(const CutuneProblem *p)
{
    return (double)p->dim[0] * (double)p->dim[1];
}

static double bytes(const CutuneProblem *p)
{
    return 12.0 * (double)p->dim[0] * (double)p->dim[1];
}

CUTUNE_OP_MEMCPY_YARDSTICK

static void setup_dims(MataddState *s, const CutuneProblem *p)
{
    s->M = (int)p->dim[0];
    s->N = (int)p->dim[1];
}

/* ref = A + B, on the device */
static int setup_reference(const CutuneHost *host, MataddState *s)
{
    unsigned long long n = (unsigned long long)s->M * s->N;
    void *args[] = {&s->A, &s->B, &s->ref, &n};
    return cutune_op_run_strided(host, cutune_matadd_ref_cu, "cutune_ref_add", n, args);
}

CUTUNE_OP_SETUP(MataddState)

static int check(const CutuneHost *host, void *state, CutuneCheck *out)
{
    MataddState *s = state;
    return cutune_op_check_exact_f32(host, s->C, s->ref, (size_t)s->M * s->N, "C", (size_t)s->N,
                                     out);
}

const float *matadd_device_input(void *state, int which)
{
    MataddState *s = state;
    return which == 0 ? s->A : s->B;
}

CUTUNE_OP_DEFINE(matadd, .summary = "C = A + B, element-wise, float32", .dim_names = "M,N",
                 .size_help = "MxN (rows x columns); N means NxN",
                 .signature = "const float *A, const float *B, float *C, int M, int N")
