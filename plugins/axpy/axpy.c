/* The axpy op plugin: out = a*x + y over n floats, a = 1.5. The smallest complete op, to
 * read before writing one (cutune/op.h): a problem of one dimension, seeded inputs, a
 * reference on the host, a check, and the counts. Its variant, axpy_template, is data
 * (tuning_spaces/axpy_template.ini and .cu).
 *
 * Kernel signature, for every variant:
 *   extern "C" __global__ void NAME(const float *x, const float *y, float *out, float a,
 *                                   long long n)
 * An op plugin never links against libcutune or CUDA: everything it needs from the GPU
 * comes through the CutuneHost table passed to its callbacks. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cutune/op.h"

/* Everything one problem needs: device buffers, host copies for the reference, the scalar. */
typedef struct State {
    long long n;
    float a;
    float *x, *y, *out;    /* device */
    float *hx, *hy, *hout; /* host */
} State;

/* The problem is one number, n. Say precisely what is wrong otherwise. */
static int check_problem(CutuneProblem *p, char *err, size_t errlen)
{
    if (p->ndims != 1) {
        snprintf(err, errlen, "axpy takes one size, the vector length n (e.g. 16777216)");
        return -1;
    }
    return 0;
}

/* Grid and block for a config. Read parameters by name; the space guarantees they exist. */
static void teardown(const CutuneHost *host, void *state)
{
    State *s = state;
    if (!s)
        return;
    host->dev_free(host->ctx, s->x);
    host->dev_free(host->ctx, s->y);
    host->dev_free(host->ctx, s->out);
    free(s->hx);
    free(s->hy);
    free(s->hout);
    free(s);
}

/* Inputs: fresh seeded random values, never zeros (zeros hide unwritten outputs). */
static int setup(const CutuneHost *host, const CutuneProblem *p, uint64_t seed, void **state)
{
    State *s = calloc(1, sizeof *s);
    if (!s)
        return host->fail(host->ctx, CUTUNE_ERR_NOMEM, "out of host memory");
    s->n = p->dim[0];
    s->a = 1.5f;
    size_t bytes = (size_t)s->n * sizeof(float);
    s->hx = malloc(bytes);
    s->hy = malloc(bytes);
    s->hout = malloc(bytes);
    int rc = (!s->hx || !s->hy || !s->hout)
                 ? host->fail(host->ctx, CUTUNE_ERR_NOMEM, "out of host memory")
                 : 0;
    if (!rc) {
        host->random_uniform(seed, 0, s->hx, (size_t)s->n, -1.0f, 1.0f); /* stream 0: x */
        host->random_uniform(seed, 1, s->hy, (size_t)s->n, -1.0f, 1.0f); /* stream 1: y */
    }
    if (rc || (rc = host->dev_alloc(host->ctx, bytes, (void **)&s->x)) ||
        (rc = host->dev_alloc(host->ctx, bytes, (void **)&s->y)) ||
        (rc = host->dev_alloc(host->ctx, bytes, (void **)&s->out)) ||
        (rc = host->copy_to_device(host->ctx, s->x, s->hx, bytes)) ||
        (rc = host->copy_to_device(host->ctx, s->y, s->hy, bytes))) {
        teardown(host, s);
        return rc;
    }
    *state = s;
    return 0;
}

/* Pointers to the kernel's arguments, in the order of its signature. */
static int kernel_args(void *state, const CutuneConfig *cfg, void **args, int max)
{
    (void)cfg;
    State *s = state;
    if (max < 5)
        return -1;
    args[0] = &s->x;
    args[1] = &s->y;
    args[2] = &s->out;
    args[3] = &s->a;
    args[4] = &s->n;
    return 5;
}

/* 0xFF bytes are NaN floats: an element the kernel forgets to write fails the check. */
static int poison(const CutuneHost *host, void *state)
{
    State *s = state;
    return host->dev_memset(host->ctx, s->out, 0xFF, (size_t)s->n * sizeof(float));
}

/* Reference in double on the host. One float multiply-add per element: the result must be
 * within one rounding (plus one for the product without FMA) of the exact value. */
static int check(const CutuneHost *host, void *state, CutuneCheck *out)
{
    State *s = state;
    int rc = host->copy_to_host(host->ctx, s->hout, s->out, (size_t)s->n * sizeof(float));
    if (rc)
        return rc;
    const double u = 0x1p-24;
    out->passed = 1;
    out->error = 0;
    out->tolerance = 2 * u;
    for (long long i = 0; i < s->n; i++) {
        double prod = (double)s->a * s->hx[i];
        double ref = prod + s->hy[i];
        double err = fabs((double)s->hout[i] - ref);
        double bound = 2 * u * (fabs(prod) + fabs((double)s->hy[i])) + 1e-45;
        if (!(err <= bound)) { /* NaN fails */
            out->passed = 0;
            snprintf(out->message, sizeof out->message, "out[%lld] = %.9g, expected %.9g", i,
                     (double)s->hout[i], ref);
            out->error = err;
            return 0;
        }
        double rel = err / (fabs(prod) + fabs((double)s->hy[i]) + 1e-45);
        out->error = rel > out->error ? rel : out->error;
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

/* The descriptor: designated initialisers, ABI version and size first. */
static int yardstick(const CutuneHost *host, void *state, const CutuneProblem *p,
                     CutuneYardstick *out)
{
    (void)state;
    return host->memcpy_yardstick(host->ctx, bytes(p), out);
}

static const CutuneOp op = {
    .abi_major = CUTUNE_ABI_MAJOR,
    .abi_minor = CUTUNE_ABI_MINOR,
    .struct_size = sizeof(CutuneOp),
    .name = "axpy",
    .summary = "out = a*x + y over n floats (a = 1.5)",
    .dim_names = "n",
    .size_help = "n (the vector length, e.g. 16777216)",
    .signature = "const float *x, const float *y, float *out, float a, long long n",
    .nargs = 5,
    .check_problem = check_problem,
    .setup = setup,
    .kernel_args = kernel_args,
    .poison_output = poison,
    .check = check,
    .teardown = teardown,
    .flops = flops,
    .bytes = bytes,
    .yardstick = yardstick,
};

const CutuneOp *cutune_op_axpy(void)
{
    return &op;
}
