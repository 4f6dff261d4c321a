/* The axpy op plugin: out = a*x + y over n floats, a = 1.5. The smallest op: a problem of
 * one dimension, seeded inputs, a reference on the host, a check, and the counts. Its
 * variant, axpy_template, is data (tuning_spaces/axpy_template.ini and .cu). Like the other
 * shipped ops it states its state's layout to the op SDK (op_sdk.h), which writes the
 * callbacks that only follow it; examples/softmax/ is an op with every callback written out
 * against cutune/op.h alone.
 *
 * Kernel signature, for every variant:
 *   extern "C" __global__ void NAME(const float *x, const float *y, float *out, float a,
 *                                   long long n) */
#include "op_sdk.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Everything one problem needs: device buffers, host copies for the reference, the scalar. */
typedef struct AxpyState {
    long long n;
    float a;
    float *x, *y, *out; /* device */
    float *hx, *hy;     /* host: the inputs, kept */
} AxpyState;

/* The kernel's arguments, in the order of its signature. */
static const size_t kernel_arg_fields[] = {
    offsetof(AxpyState, x), offsetof(AxpyState, y), offsetof(AxpyState, out),
    offsetof(AxpyState, a), offsetof(AxpyState, n),
};

/* Inputs: fresh seeded random values in [-1, 1), x from stream 0 and y from stream 1, never
 * zeros (zeros hide unwritten outputs). */
static CutuneOpBuffers buffers(void *state)
{
    AxpyState *s = state;
    return (CutuneOpBuffers){{
        CUTUNE_OP_INPUT_KEPT(&s->x, s->n, 0, &s->hx),
        CUTUNE_OP_INPUT_KEPT(&s->y, s->n, 1, &s->hy),
        CUTUNE_OP_RESULT(&s->out, (size_t)s->n * sizeof(float)),
    }};
}

/* The problem is one number, n. Say precisely what is wrong otherwise. */
static int check_problem(CutuneProblem *p, char *err, size_t errlen)
{
    if (p->ndims != 1) {
        snprintf(err, errlen, "axpy takes one size, the vector length n (e.g. 16777216)");
        return -1;
    }
    return 0;
}

static double flops(const CutuneProblem *p)
{
    return 2.0 * (double)p->dim[0];
}

static double bytes(const CutuneProblem *p)
{
    return 12.0 * (double)p->dim[0];
}

CUTUNE_OP_MEMCPY_YARDSTICK

static void setup_dims(AxpyState *s, const CutuneProblem *p)
{
    s->n = p->dim[0];
    s->a = 1.5f;
}

/* The reference is computed by check, on the host, from the inputs kept. */
static int setup_reference(const CutuneHost *host, AxpyState *s)
{
    (void)host, (void)s;
    return 0;
}

CUTUNE_OP_SETUP(AxpyState)

/* Reference in double on the host. One float multiply-add per element: the result must be
 * within one rounding (plus one for the product without FMA) of the exact value. */
static void check_values(const AxpyState *s, const float *hout, CutuneCheck *out)
{
    const double u = 0x1p-24;
    out->passed = 1;
    out->error = 0;
    out->tolerance = 2 * u;
    for (long long i = 0; i < s->n; i++) {
        double prod = (double)s->a * s->hx[i];
        double ref = prod + s->hy[i];
        double err = fabs((double)hout[i] - ref);
        double bound = 2 * u * (fabs(prod) + fabs((double)s->hy[i])) + 1e-45;
        if (!(err <= bound)) { /* NaN fails */
            out->passed = 0;
            snprintf(out->message, sizeof out->message, "out[%lld] = %.9g, expected %.9g", i,
                     (double)hout[i], ref);
            out->error = err;
            return;
        }
        double rel = err / (fabs(prod) + fabs((double)s->hy[i]) + 1e-45);
        out->error = rel > out->error ? rel : out->error;
    }
}

static int check(const CutuneHost *host, void *state, CutuneCheck *out)
{
    AxpyState *s = state;
    size_t size = (size_t)s->n * sizeof(float);
    float *hout = malloc(size);
    if (!hout)
        return host->fail(host->ctx, CUTUNE_ERR_NOMEM, "out of host memory");
    int rc = host->copy_to_host(host->ctx, hout, s->out, size);
    if (!rc)
        check_values(s, hout, out);
    free(hout);
    return rc;
}

CUTUNE_OP_DEFINE(axpy, .summary = "out = a*x + y over n floats (a = 1.5)", .dim_names = "n",
                 .size_help = "n (the vector length, e.g. 16777216)",
                 .signature = "const float *x, const float *y, float *out, float a, long long n")
