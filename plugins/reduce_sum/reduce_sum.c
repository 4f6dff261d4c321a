/* The reduce_sum op plugin: problem checks, inputs, reference, check. */
#include "reduce_sum.h"
#include "op_sdk.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct ReduceState {
    long long n;
    float *x, *out, *partials; /* device */
    unsigned int *counter;     /* device */
    float *hx;                 /* host copy of x, during setup */
    double ref, max_abs;       /* the double-precision sum, and max |x| */
} ReduceState;

/* The kernel's arguments, in the order of its signature. */
static const size_t kernel_arg_fields[] = {
    offsetof(ReduceState, x),       offsetof(ReduceState, out), offsetof(ReduceState, partials),
    offsetof(ReduceState, counter), offsetof(ReduceState, n),
};

static CutuneOpBuffers buffers(void *state)
{
    ReduceState *s = state;
    return (CutuneOpBuffers){{
        CUTUNE_OP_INPUT_KEPT(&s->x, s->n, 0, &s->hx),
        CUTUNE_OP_RESULT(&s->out, sizeof(float)),
        CUTUNE_OP_BUFFER(&s->partials, (size_t)reduce_max_blocks(s->n) * sizeof(float)),
        CUTUNE_OP_ZEROS(&s->counter, sizeof(unsigned int)),
    }};
}

static int check_problem(CutuneProblem *p, char *err, size_t errlen)
{
    if (p->ndims != 1) {
        snprintf(err, errlen, "reduce_sum takes one size, the number of elements n");
        return -1;
    }
    return 0;
}

static double flops(const CutuneProblem *p)
{
    return (double)p->dim[0];
}

static double bytes(const CutuneProblem *p)
{
    return 4.0 * (double)p->dim[0] + 4.0;
}

CUTUNE_OP_MEMCPY_YARDSTICK

static void setup_dims(ReduceState *s, const CutuneProblem *p)
{
    s->n = p->dim[0];
}

/* the reference: a double sum in four interleaved parts (any order is exact enough: double
 * rounding over 2^31 terms of size < 1 stays below 2^-21) */
static int setup_reference(const CutuneHost *host, ReduceState *s)
{
    (void)host;
    double acc[4] = {0, 0, 0, 0}, mx = 0;
    for (long long i = 0; i < s->n; i++) {
        acc[i & 3] += s->hx[i];
        mx = fabs(s->hx[i]) > mx ? fabs(s->hx[i]) : mx;
    }
    s->ref = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    s->max_abs = mx;
    free(s->hx);
    s->hx = NULL;
    return 0;
}

CUTUNE_OP_SETUP(ReduceState)

static int check(const CutuneHost *host, void *state, CutuneCheck *out)
{
    ReduceState *s = state;
    float got = 0;
    int rc = host->copy_to_host(host->ctx, &got, s->out, sizeof got);
    if (rc)
        return rc;
    memset(out, 0, sizeof *out);
    const double u = 0x1p-24;
    out->tolerance = 8.0 * u * pow((double)s->n, 0.75) * s->max_abs;
    out->error = fabs((double)got - s->ref);
    out->passed = out->error <= out->tolerance; /* NaN fails */
    if (!out->passed)
        snprintf(out->message, sizeof out->message,
                 "sum of %lld elements: got %.9g, expected %.9g (error %.3g, tolerance %.3g)", s->n,
                 (double)got, s->ref, out->error, out->tolerance);
    return 0;
}

const float *reduce_device_input(void *state)
{
    return ((ReduceState *)state)->x;
}

double reduce_reference(void *state)
{
    return ((ReduceState *)state)->ref;
}

static int check_launch(const CutuneProblem *p, const CutuneLaunch *l, char *why, size_t len)
{
    char holds[96];
    snprintf(holds, sizeof holds, "%lld partial sums for n = %lld",
             (long long)reduce_max_blocks(p->dim[0]), (long long)p->dim[0]);
    return cutune_op_check_blocks(l, (uint64_t)reduce_max_blocks(p->dim[0]), why, len, holds);
}

CUTUNE_OP_DEFINE(
    reduce_sum, .summary = "the sum of n float32 values, in one launch", .dim_names = "N",
    .size_help = "N (the number of elements)",
    .signature = "const float *x, float *out, float *partials, unsigned int *counter, long long n",
    .check_launch = check_launch)
