/* The topk op plugin: problem checks, inputs, reference, check. */
#include "topk.h"
#include "op_sdk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct TopkState {
    long long n;
    int k;
    float *x, *out_val, *part_val; /* device */
    int *out_idx, *part_idx;       /* device */
    unsigned int *counter;         /* device */
    float *hx;                     /* host copy of x, to check the indices */
    float ref[TOPK_MAX_K];         /* the k largest values, descending */
} TopkState;

/* The kernel's arguments, in the order of its signature. */
static const size_t kernel_arg_fields[] = {
    offsetof(TopkState, x),        offsetof(TopkState, out_val),  offsetof(TopkState, out_idx),
    offsetof(TopkState, part_val), offsetof(TopkState, part_idx), offsetof(TopkState, counter),
    offsetof(TopkState, n),        offsetof(TopkState, k),
};

static CutuneOpBuffers buffers(void *state)
{
    TopkState *s = state;
    size_t k = (size_t)s->k, parts = (size_t)TOPK_MAX_BLOCKS * k;
    return (CutuneOpBuffers){{
        CUTUNE_OP_INPUT_KEPT(&s->x, s->n, 0, &s->hx),
        CUTUNE_OP_RESULT(&s->out_val, k * sizeof(float)),
        CUTUNE_OP_RESULT(&s->out_idx, k * sizeof(int)),
        CUTUNE_OP_BUFFER(&s->part_val, parts * sizeof(float)),
        CUTUNE_OP_BUFFER(&s->part_idx, parts * sizeof(int)),
        CUTUNE_OP_ZEROS(&s->counter, sizeof(unsigned int)),
    }};
}

static int check_problem(CutuneProblem *p, char *err, size_t errlen)
{
    if (p->ndims != 2 || p->dim[1] > p->dim[0] || p->dim[1] > TOPK_MAX_K) {
        snprintf(err, errlen, "topk takes NxK: N elements, the K largest, 1 <= K <= min(N, %d)",
                 TOPK_MAX_K);
        return -1;
    }
    return 0;
}

CUTUNE_OP_NO_FLOPS

static double bytes(const CutuneProblem *p)
{
    return 4.0 * (double)p->dim[0] + 8.0 * (double)p->dim[1];
}

CUTUNE_OP_MEMCPY_YARDSTICK

/* Restore the min-heap property below slot i of h[0..k). */
static void sift_down(float *h, int k, int i)
{
    for (;;) {
        int l = 2 * i + 1, r = l + 1, m = i;
        if (l < k && h[l] < h[m])
            m = l;
        if (r < k && h[r] < h[m])
            m = r;
        if (m == i)
            return;
        float t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

/* The k largest of x[0..n) into out, descending: a min-heap of the best k so far. */
static void reference(const float *x, long long n, int k, float *out)
{
    for (int i = 0; i < k; i++)
        out[i] = x[i];
    for (int i = k / 2 - 1; i >= 0; i--)
        sift_down(out, k, i);
    for (long long i = k; i < n; i++)
        if (x[i] > out[0]) {
            out[0] = x[i];
            sift_down(out, k, 0);
        }
    for (int end = k - 1; end > 0; end--) { /* heap sort: the minimum goes to the back */
        float t = out[0];
        out[0] = out[end];
        out[end] = t;
        sift_down(out, end, 0);
    }
}

static void setup_dims(TopkState *s, const CutuneProblem *p)
{
    s->n = p->dim[0];
    s->k = (int)p->dim[1];
}

static int setup_reference(const CutuneHost *host, TopkState *s)
{
    (void)host;
    reference(s->hx, s->n, s->k, s->ref);
    return 0;
}

CUTUNE_OP_SETUP(TopkState)

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static int check(const CutuneHost *host, void *state, CutuneCheck *out)
{
    TopkState *s = state;
    float val[TOPK_MAX_K];
    int idx[TOPK_MAX_K], sorted[TOPK_MAX_K];
    int rc = host->copy_to_host(host->ctx, val, s->out_val, (size_t)s->k * sizeof(float));
    if (!rc)
        rc = host->copy_to_host(host->ctx, idx, s->out_idx, (size_t)s->k * sizeof(int));
    if (rc)
        return rc;
    memset(out, 0, sizeof *out);
    int bad = 0;
    for (int i = 0; i < s->k; i++) {
        const char *why = NULL;
        if (!(val[i] == s->ref[i])) /* NaN fails */
            why = "value";
        else if (idx[i] < 0 || idx[i] >= s->n)
            why = "index out of range";
        else if (!(s->hx[idx[i]] == val[i]))
            why = "index does not point at the value";
        if (why && bad++ == 0)
            snprintf(out->message, sizeof out->message,
                     "rank %d: got value %.9g at index %d, expected value %.9g (%s)", i,
                     (double)val[i], idx[i], (double)s->ref[i], why);
    }
    memcpy(sorted, idx, (size_t)s->k * sizeof(int));
    qsort(sorted, (size_t)s->k, sizeof(int), cmp_int);
    for (int i = 1; i < s->k; i++)
        if (sorted[i] == sorted[i - 1] && bad++ == 0)
            snprintf(out->message, sizeof out->message, "index %d appears twice", sorted[i]);
    out->passed = bad == 0;
    out->error = bad; /* wrong ranks; the tolerance is none */
    if (bad > 1) {
        size_t len = strlen(out->message);
        snprintf(out->message + len, sizeof out->message - len, "; %d faults in all", bad);
    }
    return 0;
}

const float *topk_device_input(void *state)
{
    return ((TopkState *)state)->x;
}

static int check_launch(const CutuneProblem *p, const CutuneLaunch *l, char *why, size_t len)
{
    (void)p;
    return cutune_op_check_blocks(l, TOPK_MAX_BLOCKS, why, len,
                                  "candidates for " CUTUNE_OP_STR(TOPK_MAX_BLOCKS));
}

CUTUNE_OP_DEFINE(
    topk, .summary = "the k largest of n float32 values with their indices, sorted",
    .dim_names = "N,K", .size_help = "NxK: the K largest of N floats, K <= min(N, 1024)",
    .signature =
        "const float *x, float *out_val, int *out_idx, float *part_val, int *part_idx, unsigned int *counter, long long n, int k",
    .check_launch = check_launch)
