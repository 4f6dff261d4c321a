/* The transpose op plugin: problem checks, inputs, check. */
#include "transpose.h"
#include "op_sdk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct TransposeState {
    int R, C;
    float *A, *B;  /* device */
    float *ref;    /* device: A^T from transpose_ref.cu */
} TransposeState;

extern const char cutune_transpose_ref_cu[]; /* transpose_ref.cu, embedded at build time */

static void teardown(const CutuneHost *host, void *state);

/* The reference kernel over n elements: a grid-stride loop, so the grid is capped. */
static int run_reference(const CutuneHost *host, size_t n, void **args)
{
    size_t blocks = (n + 255) / 256;
    blocks = blocks == 0 ? 1 : blocks > 8192 ? 8192 : blocks;
    CutuneLaunch l = {{(unsigned)blocks, 1, 1}, {256, 1, 1}, 0};
    return host->run_kernel(host->ctx, cutune_transpose_ref_cu, "cutune_ref_transpose", &l, args);
}

static int check_problem(CutuneProblem *p, char *err, size_t errlen)
{
    cutune_op_square(p, 2); /* "N" means NxN */
    if (p->ndims != 2) {
        snprintf(err, errlen, "transpose takes RxC (rows x columns of the input), got %d numbers",
                 p->ndims);
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
    (void)p;
    return 0;
}

static double bytes(const CutuneProblem *p)
{
    return 8.0 * (double)p->dim[0] * (double)p->dim[1];
}

static int setup(const CutuneHost *host, const CutuneProblem *p, uint64_t seed, void **state)
{
    TransposeState *s = calloc(1, sizeof *s);
    if (!s)
        return host->fail(host->ctx, CUTUNE_ERR_NOMEM, "out of host memory");
    s->R = (int)p->dim[0];
    s->C = (int)p->dim[1];
    size_t n = (size_t)s->R * s->C;
    int rc;
    void *args[] = {&s->A, &s->ref, &s->R, &s->C};
    if ((rc = cutune_op_random_floats(host, n, seed, 0, -1.0f, 1.0f, &s->A, NULL)) ||
        (rc = host->dev_alloc(host->ctx, n * sizeof(float), (void **)&s->B)) ||
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
    TransposeState *s = state;
    void *const from[] = {&s->A, &s->B, &s->R, &s->C};
    return cutune_op_args(args, max, from, 4);
}

static int poison_output(const CutuneHost *host, void *state)
{
    TransposeState *s = state;
    return host->dev_memset(host->ctx, s->B, 0xFF, (size_t)s->R * s->C * sizeof(float));
}

static int check(const CutuneHost *host, void *state, CutuneCheck *out)
{
    TransposeState *s = state;
    return cutune_op_check_exact_f32(host, s->B, s->ref, (size_t)s->R * s->C, "B", (size_t)s->R, out);
}

static void teardown(const CutuneHost *host, void *state)
{
    TransposeState *s = state;
    if (!s)
        return;
    void *const bufs[] = {s->A, s->B, s->ref};
    cutune_op_dev_free(host, bufs, sizeof bufs / sizeof bufs[0]);
    free(s);
}

const float *transpose_device_input(void *state)
{
    return ((TransposeState *)state)->A;
}

CUTUNE_OP_MEMCPY_YARDSTICK

static const CutuneOp op = {
    CUTUNE_OP_ABI,
    .name = "transpose",
    .summary = "B = A^T, float32, row-major",
    .dim_names = "R,C",
    .size_help = "RxC (rows x columns of the input); N means NxN",
    .signature = "const float *A, float *B, int R, int C",
    .nargs = 4,
    CUTUNE_OP_CALLBACKS,
    .yardstick = yardstick,
};

const CutuneOp *cutune_op_transpose(void)
{
    return &op;
}
