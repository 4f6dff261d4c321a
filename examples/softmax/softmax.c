/* A new op written outside cutune, against the installed SDK only: a row-wise softmax.
 * It is a plugin built with `pkg-config --cflags cutune-plugin` (headers only: an op never
 * links libcutune or CUDA) into softmax.so, found through CUTUNE_PLUGIN_PATH; its variants
 * are data (softmax_naive.ini and .cu here), found through CUTUNE_SPACE_PATH.
 *
 * The op: y = softmax(x) along each row, float32, row-major; x is R x C. The size is RxC.
 * Kernel signature, for every variant:
 *   extern "C" __global__ void NAME(const float *x, float *y, int R, int C)
 * Inputs uniform in [-8, 8) from the seed; y is poisoned with NaN before the checked
 * launch. The reference is computed on the host in double precision. Each y_ij passes when
 * |y - ref| <= gamma * ref with gamma = (C + 32) u: the rounding of a float sum of C terms
 * (a bound for any order) plus some ulps for exp and the division. The yardstick is a
 * device-to-device copy of as many bytes as the op moves (8 R C). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cutune/op.h"

typedef struct State {
    int R, C;
    float *x, *y; /* device */
    double *ref;  /* device */
} State;

static int check_problem(CutuneProblem *p, char *err, size_t errlen)
{
    if (p->ndims != 2) {
        snprintf(err, errlen, "softmax takes RxC (rows x columns), got %d numbers", p->ndims);
        return -1;
    }
    if (p->dim[0] * p->dim[1] >= (1LL << 31)) {
        snprintf(err, errlen, "the matrix must have fewer than 2^31 elements");
        return -1;
    }
    return 0;
}

static double flops(const CutuneProblem *p)
{
    return 4.0 * (double)p->dim[0] * (double)p->dim[1]; /* max, exp, sum, divide */
}

static double bytes(const CutuneProblem *p)
{
    return 8.0 * (double)p->dim[0] * (double)p->dim[1];
}

static void teardown(const CutuneHost *host, void *state)
{
    State *s = state;
    if (!s)
        return;
    host->dev_free(host->ctx, s->x);
    host->dev_free(host->ctx, s->y);
    host->dev_free(host->ctx, s->ref);
    free(s);
}

static int setup(const CutuneHost *host, const CutuneProblem *p, uint64_t seed, void **state)
{
    State *s = calloc(1, sizeof *s);
    if (!s)
        return host->fail(host->ctx, CUTUNE_ERR_NOMEM, "out of host memory");
    s->R = (int)p->dim[0];
    s->C = (int)p->dim[1];
    size_t n = (size_t)s->R * s->C;
    float *hx = NULL;
    double *ref = malloc(n * sizeof *ref);
    int rc = ref ? cutune_op_random_floats(host, n, seed, 0, -8.0f, 8.0f, &s->x, &hx)
                 : host->fail(host->ctx, CUTUNE_ERR_NOMEM, "out of host memory");
    if (!rc)
        rc = host->dev_alloc(host->ctx, n * sizeof(float), (void **)&s->y);
    for (int i = 0; !rc && i < s->R; i++) { /* the reference, in double on the host */
        const float *row = hx + (size_t)i * s->C;
        double mx = row[0], sum = 0;
        for (int j = 1; j < s->C; j++)
            mx = row[j] > mx ? row[j] : mx;
        for (int j = 0; j < s->C; j++)
            sum += exp((double)row[j] - mx);
        for (int j = 0; j < s->C; j++)
            ref[(size_t)i * s->C + j] = exp((double)row[j] - mx) / sum;
    }
    if (!rc)
        rc = cutune_op_upload(host, ref, n * sizeof *ref, (void **)&s->ref);
    free(hx);
    free(ref);
    if (rc) {
        teardown(host, s);
        return rc;
    }
    *state = s;
    return 0;
}

static int kernel_args(void *state, const CutuneConfig *cfg, void **args, int max)
{
    (void)cfg;
    State *s = state;
    if (max < 4)
        return -1;
    args[0] = &s->x;
    args[1] = &s->y;
    args[2] = &s->R;
    args[3] = &s->C;
    return 4;
}

static int poison_output(const CutuneHost *host, void *state)
{
    State *s = state;
    return cutune_op_poison(host, s->y, (size_t)s->R * s->C * sizeof(float));
}

static const char *describe(size_t index, void *user, char *buf, size_t len)
{
    const State *s = user;
    snprintf(buf, len, "y[%zu][%zu]", index / (size_t)s->C, index % (size_t)s->C);
    return buf;
}

static int check(const CutuneHost *host, void *state, CutuneCheck *out)
{
    State *s = state;
    const double u = 0x1p-24, gamma = (s->C + 32) * u;
    CutuneCompareF32 spec = {
        .out = s->y,
        .ref = s->ref,
        .n = (size_t)s->R * s->C,
        .mag = s->ref,
        .gamma = gamma, /* relative: the reference is positive */
        .norm_tol = gamma,
        .describe = describe,
        .user = s,
    };
    return host->compare_f32(host->ctx, &spec, out);
}

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
    .name = "softmax",
    .summary = "y = softmax(x) along each row, float32 (an example written out of the tree)",
    .dim_names = "R,C",
    .size_help = "RxC (rows x columns)",
    .signature = "const float *x, float *y, int R, int C",
    .nargs = 4,
    .check_problem = check_problem,
    .setup = setup,
    .kernel_args = kernel_args,
    .poison_output = poison_output,
    .check = check,
    .teardown = teardown,
    .flops = flops,
    .bytes = bytes,
    .yardstick = yardstick,
};

CUTUNE_PLUGIN_EXPORT const CutuneOp *cutune_op(void)
{
    return &op;
}
