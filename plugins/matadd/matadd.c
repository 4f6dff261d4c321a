/* The matadd op plugin: problem checks, inputs, reference, check. */
#include "matadd.h"
#include "op_sdk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct MataddState {
    int M, N;
    float *A, *B, *C;  /* device */
    float *ref;        /* device: A + B from matadd_ref.cu */
} MataddState;

extern const char cutune_matadd_ref_cu[]; /* matadd_ref.cu, embedded at build time */

static void teardown(const CutuneHost *host, void *state);

/* The reference kernel over n elements: a grid-stride loop, so the grid is capped. */
static int run_reference(const CutuneHost *host, size_t n, void **args)
{
    size_t blocks = (n + 255) / 256;
    blocks = blocks == 0 ? 1 : blocks > 8192 ? 8192 : blocks;
    CutuneLaunch l = {{(unsigned)blocks, 1, 1}, {256, 1, 1}, 0};
    return host->run_kernel(host->ctx, cutune_matadd_ref_cu, "cutune_ref_add", &l, args);
}

static int check_problem(CutuneProblem *p, char *err, size_t errlen)
{
    cutune_op_square(p, 2); /* "N" means NxN */
    if (p->ndims != 2) {
        snprintf(err, errlen, "matadd takes MxN (rows x columns), got %d numbers", p->ndims);
        return -1;
    }
    if (p->dim[0] * p->dim[1] >= (1LL << 31)) {
        snprintf(err, errlen, "a matrix must have fewer than 2^31 elements");
        return -1;
    }
    return 0;
}

static double flops(const CutuneProblem *p)
{
    return (double)p->dim[0] * (double)p->dim[1];
}

static double bytes(const CutuneProblem *p)
{
    return 12.0 * (double)p->dim[0] * (double)p->dim[1];
}

static int setup(const CutuneHost *host, const CutuneProblem *p, uint64_t seed, void **state)
{
    MataddState *s = calloc(1, sizeof *s);
    if (!s)
        return host->fail(host->ctx, CUTUNE_ERR_NOMEM, "out of host memory");
    s->M = (int)p->dim[0];
    s->N = (int)p->dim[1];
    size_t n = (size_t)s->M * s->N;
    int rc;
    unsigned long long nn = n;
    void *args[] = {&s->A, &s->B, &s->ref, &nn};
    if ((rc = cutune_op_random_floats(host, n, seed, 0, -1.0f, 1.0f, &s->A, NULL)) ||
        (rc = cutune_op_random_floats(host, n, seed, 1, -1.0f, 1.0f, &s->B, NULL)) ||
        (rc = host->dev_alloc(host->ctx, n * sizeof(float), (void **)&s->C)) ||
        (rc = host->dev_alloc(host->ctx, n * sizeof(float), (void **)&s->ref)) ||
        (rc = run_reference(host, n, args)))
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
    MataddState *s = state;
    void *const from[] = {&s->A, &s->B, &s->C, &s->M, &s->N};
    return cutune_op_args(args, max, from, 5);
}

static int poison_output(const CutuneHost *host, void *state)
{
    MataddState *s = state;
    return host->dev_memset(host->ctx, s->C, 0xFF, (size_t)s->M * s->N * sizeof(float));
}

static int check(const CutuneHost *host, void *state, CutuneCheck *out)
{
    MataddState *s = state;
    return cutune_op_check_exact_f32(host, s->C, s->ref, (size_t)s->M * s->N, "C", (size_t)s->N, out);
}

static void teardown(const CutuneHost *host, void *state)
{
    MataddState *s = state;
    if (!s)
        return;
    void *const bufs[] = {s->A, s->B, s->C, s->ref};
    cutune_op_dev_free(host, bufs, sizeof bufs / sizeof bufs[0]);
    free(s);
}

const float *matadd_device_input(void *state, int which)
{
    MataddState *s = state;
    return which == 0 ? s->A : s->B;
}

CUTUNE_OP_MEMCPY_YARDSTICK

static const CutuneOp op = {
    CUTUNE_OP_ABI,
    .name = "matadd",
    .summary = "C = A + B, element-wise, float32",
    .dim_names = "M,N",
    .size_help = "MxN (rows x columns); N means NxN",
    .signature = "const float *A, const float *B, float *C, int M, int N",
    .nargs = 5,
    CUTUNE_OP_CALLBACKS,
    .yardstick = yardstick,
};

const CutuneOp *cutune_op_matadd(void)
{
    return &op;
}
