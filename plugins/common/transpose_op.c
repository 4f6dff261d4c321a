/* The transpose op's shared plugin code: problem checks, inputs, check. */
#include "transpose_op.h"
#include "exact.h"
#include "memop.h"
#include "cutune/cutune.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct TransposeState {
    int R, C;
    float *A, *B;  /* device */
    float *ref;    /* device: A^T from exact.cu's reference kernel */
} TransposeState;

int transpose_check_problem(CutuneProblem *p, char *err, size_t errlen)
{
    if (p->ndims == 1) { /* "N" means NxN */
        p->ndims = 2;
        p->dim[1] = p->dim[0];
    }
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

double transpose_flops(const CutuneProblem *p)
{
    (void)p;
    return 0;
}

double transpose_bytes(const CutuneProblem *p)
{
    return 8.0 * (double)p->dim[0] * (double)p->dim[1];
}

int transpose_setup(const CutuneHost *host, const CutuneProblem *p, uint64_t seed, void **state)
{
    TransposeState *s = calloc(1, sizeof *s);
    if (!s)
        return host->fail(host->ctx, CUTUNE_ERR_NOMEM, "out of host memory");
    s->R = (int)p->dim[0];
    s->C = (int)p->dim[1];
    size_t n = (size_t)s->R * s->C;
    int rc;
    void *args[] = {&s->A, &s->ref, &s->R, &s->C};
    if ((rc = memop_random_floats(host, n, seed, 0, -1.0f, 1.0f, &s->A, NULL)) ||
        (rc = host->dev_alloc(host->ctx, n * sizeof(float), (void **)&s->B)) ||
        (rc = host->dev_alloc(host->ctx, n * sizeof(float), (void **)&s->ref)) ||
        (rc = exact_run_reference(host, "cutune_ref_transpose", n, args)))
        goto fail;
    *state = s;
    return 0;
fail:
    transpose_teardown(host, s);
    return rc;
}

int transpose_kernel_args(void *state, const CutuneConfig *cfg, void **args, int max)
{
    (void)cfg;
    TransposeState *s = state;
    if (max < 4)
        return -1;
    args[0] = &s->A;
    args[1] = &s->B;
    args[2] = &s->R;
    args[3] = &s->C;
    return 4;
}

int transpose_poison_output(const CutuneHost *host, void *state)
{
    TransposeState *s = state;
    return host->dev_memset(host->ctx, s->B, 0xFF, (size_t)s->R * s->C * sizeof(float));
}

int transpose_check(const CutuneHost *host, void *state, CutuneCheck *out)
{
    TransposeState *s = state;
    return exact_check_f32(host, s->B, s->ref, (size_t)s->R * s->C, "B", (size_t)s->R, out);
}

void transpose_teardown(const CutuneHost *host, void *state)
{
    TransposeState *s = state;
    if (!s)
        return;
    host->dev_free(host->ctx, s->A);
    host->dev_free(host->ctx, s->B);
    host->dev_free(host->ctx, s->ref);
    free(s);
}

const float *transpose_device_input(void *state)
{
    return ((TransposeState *)state)->A;
}
