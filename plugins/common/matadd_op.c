/* The matadd op's shared plugin code: problem checks, inputs, reference, check. */
#include "matadd_op.h"
#include "exact.h"
#include "memop.h"
#include "cutune/cutune.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct MataddState {
    int M, N;
    float *A, *B, *C;  /* device */
    float *ref;        /* device: A + B from exact.cu's reference kernel */
} MataddState;

int matadd_check_problem(CutuneProblem *p, char *err, size_t errlen)
{
    if (p->ndims == 1) { /* "N" means NxN */
        p->ndims = 2;
        p->dim[1] = p->dim[0];
    }
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

double matadd_flops(const CutuneProblem *p)
{
    return (double)p->dim[0] * (double)p->dim[1];
}

double matadd_bytes(const CutuneProblem *p)
{
    return 12.0 * (double)p->dim[0] * (double)p->dim[1];
}

int matadd_setup(const CutuneHost *host, const CutuneProblem *p, uint64_t seed, void **state)
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
    if ((rc = memop_random_floats(host, n, seed, 0, -1.0f, 1.0f, &s->A, NULL)) ||
        (rc = memop_random_floats(host, n, seed, 1, -1.0f, 1.0f, &s->B, NULL)) ||
        (rc = host->dev_alloc(host->ctx, n * sizeof(float), (void **)&s->C)) ||
        (rc = host->dev_alloc(host->ctx, n * sizeof(float), (void **)&s->ref)) ||
        (rc = exact_run_reference(host, "cutune_ref_add", n, args)))
        goto fail;
    *state = s;
    return 0;
fail:
    matadd_teardown(host, s);
    return rc;
}

int matadd_kernel_args(void *state, const CutuneConfig *cfg, void **args, int max)
{
    (void)cfg;
    MataddState *s = state;
    if (max < 5)
        return -1;
    args[0] = &s->A;
    args[1] = &s->B;
    args[2] = &s->C;
    args[3] = &s->M;
    args[4] = &s->N;
    return 5;
}

int matadd_poison_output(const CutuneHost *host, void *state)
{
    MataddState *s = state;
    return host->dev_memset(host->ctx, s->C, 0xFF, (size_t)s->M * s->N * sizeof(float));
}

int matadd_check(const CutuneHost *host, void *state, CutuneCheck *out)
{
    MataddState *s = state;
    return exact_check_f32(host, s->C, s->ref, (size_t)s->M * s->N, "C", (size_t)s->N, out);
}

void matadd_teardown(const CutuneHost *host, void *state)
{
    MataddState *s = state;
    if (!s)
        return;
    host->dev_free(host->ctx, s->A);
    host->dev_free(host->ctx, s->B);
    host->dev_free(host->ctx, s->C);
    host->dev_free(host->ctx, s->ref);
    free(s);
}

const float *matadd_device_input(void *state, int which)
{
    MataddState *s = state;
    return which == 0 ? s->A : s->B;
}
