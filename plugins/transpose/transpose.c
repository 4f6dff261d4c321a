/* The transpose op plugin: problem checks, inputs, check. */
#include "transpose.h"
#include "op_sdk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct TransposeState {
    int R, C;
    float *A, *B; /* device */
    float *ref;   /* device: A^T from transpose_ref.cu */
} TransposeState;

extern const char cutune_transpose_ref_cu[]; /* transpose_ref.cu, embedded at build time */

/* The kernel's arguments, in the order of its signature. */
static const size_t kernel_arg_fields[] = {
    offsetof(TransposeState, A),
    offsetof(TransposeState, B),
    offsetof(TransposeState, R),
    offsetof(TransposeState, C),
};

static CutuneOpBuffers buffers(void *state)
{
    TransposeState *s = state;
    size_t n = (size_t)s->R * s->C;
    return (CutuneOpBuffers){{
        CUTUNE_OP_INPUT(&s->A, n, 0),
        CUTUNE_OP_RESULT(&s->B, n * sizeof(float)),
        CUTUNE_OP_BUFFER(&s->ref, n * sizeof(float)),
    }};
}

static int check_problem(CutuneProblem *p, char *err, size_t errlen)
{
    if (cutune_op_check_square(p, 2, "transpose takes RxC (rows x columns of the input)", err,
                               errlen))
        return -1;
    return cutune_op_check_int_size(p->dim[0] * p->dim[1],
                                    "the matrix must have fewer than 2^31 elements", err, errlen);
}

CUTUNE_OP_NO_FLOPS

static double bytes(const CutuneProblem *p)
{
    return 8.0 * (double)p->dim[0] * (double)p->dim[1];
}

CUTUNE_OP_MEMCPY_YARDSTICK

static void setup_dims(TransposeState *s, const CutuneProblem *p)
{
    s->R = (int)p->dim[0];
    s->C = (int)p->dim[1];
}

/* ref = A^T, on the device */
static int setup_reference(const CutuneHost *host, TransposeState *s)
{
    void *args[] = {&s->A, &s->ref, &s->R, &s->C};
    return cutune_op_run_strided(host, cutune_transpose_ref_cu, "cutune_ref_transpose",
                                 (size_t)s->R * s->C, args);
}

CUTUNE_OP_SETUP(TransposeState)

static int check(const CutuneHost *host, void *state, CutuneCheck *out)
{
    TransposeState *s = state;
    return cutune_op_check_exact_f32(host, s->B, s->ref, (size_t)s->R * s->C, "B", (size_t)s->R,
                                     out);
}

const float *transpose_device_input(void *state)
{
    return ((TransposeState *)state)->A;
}

CUTUNE_OP_DEFINE(transpose, .summary = "B = A^T, float32, row-major", .dim_names = "R,C",
                 .size_help = "RxC (rows x columns of the input); N means NxN",
                 .signature = "const float *A, float *B, int R, int C")
