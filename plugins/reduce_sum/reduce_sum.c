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
    double ref, max_abs;       /* the double-precision sum, and max |x| */
} ReduceState;

static void teardown(const CutuneHost *host, void *state);

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

static int setup(const CutuneHost *host, const CutuneProblem *p, uint64_t seed, void **state)
{
    ReduceState *s = calloc(1, sizeof *s);
    if (!s)
        return host->fail(host->ctx, CUTUNE_ERR_NOMEM, "out of host memory");
    s->n = p->dim[0];
    float *hx = NULL;
    size_t parts = (size_t)reduce_max_blocks(s->n);
    int rc;
    if ((rc = cutune_op_random_floats(host, (size_t)s->n, seed, 0, -1.0f, 1.0f, &s->x, &hx)) ||
        (rc = host->dev_alloc(host->ctx, sizeof(float), (void **)&s->out)) ||
        (rc = host->dev_alloc(host->ctx, parts * sizeof(float), (void **)&s->partials)) ||
        (rc = host->dev_alloc(host->ctx, sizeof(unsigned int), (void **)&s->counter)) ||
        (rc = host->dev_memset(host->ctx, s->counter, 0, sizeof(unsigned int))))
        goto fail;
    /* the reference: a double sum in four interleaved parts (any order is exact enough:
     * double rounding over 2^31 terms of size < 1 stays below 2^-21) */
    double acc[4] = {0, 0, 0, 0}, mx = 0;
    for (long long i = 0; i < s->n; i++) {
        acc[i & 3] += hx[i];
        mx = fabs(hx[i]) > mx ? fabs(hx[i]) : mx;
    }
    s->ref = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    s->max_abs = mx;
    free(hx);
    *state = s;
    return 0;
fail:
    free(hx);
    teardown(host, s);
    return rc;
}

static int kernel_args(void *state, const CutuneConfig *cfg, void **args, int max)
{
    (void)cfg;
    ReduceState *s = state;
    void *const from[] = {&s->x, &s->out, &s->partials, &s->counter, &s->n};
    return cutune_op_args(args, max, from, 5);
}

static int poison_output(const CutuneHost *host, void *state)
{
    ReduceState *s = state;
    return host->dev_memset(host->ctx, s->out, 0xFF, sizeof(float));
}

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
                 "sum of %lld elements: got %.9g, expected %.9g (error %.3g, tolerance %.3g)",
                 s->n, (double)got, s->ref, out->error, out->tolerance);
    return 0;
}

static void teardown(const CutuneHost *host, void *state)
{
    ReduceState *s = state;
    if (!s)
        return;
    void *const bufs[] = {s->x, s->out, s->partials, s->counter};
    cutune_op_dev_free(host, bufs, sizeof bufs / sizeof bufs[0]);
    free(s);
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

CUTUNE_OP_MEMCPY_YARDSTICK

static const CutuneOp op = {
    CUTUNE_OP_ABI,
    .name = "reduce_sum",
    .summary = "the sum of n float32 values, in one launch",
    .dim_names = "N",
    .size_help = "N (the number of elements)",
    .signature = "const float *x, float *out, float *partials, unsigned int *counter, long long n",
    .nargs = 5,
    CUTUNE_OP_CALLBACKS,
    .yardstick = yardstick,
    .check_launch = check_launch,
};

const CutuneOp *cutune_op_reduce_sum(void)
{
    return &op;
}
