/* The histogram op plugin: problem checks, data sets, reference, check. */
#include "histogram.h"
#include "op_sdk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK (1u << 20)

typedef struct HistogramState {
    long long n;
    int is_float, skewed;
    unsigned char *u8;                      /* device input, when T = 1 */
    float *f32;                             /* device input, when T = 4 */
    unsigned int *bins, *scratch, *counter; /* device */
    unsigned int ref[HISTOGRAM_BINS];
} HistogramState;

/* The kernel's arguments, in the order of its signature. */
static const size_t kernel_arg_fields[] = {
    offsetof(HistogramState, u8),       offsetof(HistogramState, f32),
    offsetof(HistogramState, bins),     offsetof(HistogramState, scratch),
    offsetof(HistogramState, counter),  offsetof(HistogramState, n),
    offsetof(HistogramState, is_float),
};

static CutuneOpBuffers buffers(void *state)
{
    HistogramState *s = state;
    size_t bins = HISTOGRAM_BINS * sizeof(unsigned), esize = s->is_float ? sizeof(float) : 1;
    void **input = s->is_float ? (void **)&s->f32 : (void **)&s->u8;
    return (CutuneOpBuffers){{
        CUTUNE_OP_BUFFER(input, (size_t)s->n * esize), /* setup fills it */
        CUTUNE_OP_RESULT(&s->bins, bins),
        CUTUNE_OP_ZEROS(&s->scratch, bins),
        CUTUNE_OP_ZEROS(&s->counter, sizeof(unsigned)),
    }};
}

static int check_problem(CutuneProblem *p, char *err, size_t errlen)
{
    if (p->ndims == 1) { /* "N" means bytes, uniform */
        p->ndims = 3;
        p->dim[1] = p->dim[2] = 1;
    }
    if (p->ndims != 3 || (p->dim[1] != 1 && p->dim[1] != 4) || (p->dim[2] != 1 && p->dim[2] != 2)) {
        snprintf(err, errlen,
                 "histogram takes NxTxD: N elements, T = 1 (bytes) or 4 (floats), D = 1 "
                 "(uniform) or 2 (skewed), e.g. 268435456x1x1");
        return -1;
    }
    return 0;
}

CUTUNE_OP_NO_FLOPS

static double bytes(const CutuneProblem *p)
{
    return (double)p->dim[0] * (double)p->dim[1] + 4.0 * HISTOGRAM_BINS;
}

CUTUNE_OP_MEMCPY_YARDSTICK

/* The float bin, exactly as the kernels compute it; -1 outside [-1, 1). */
static int float_bin(float x)
{
    if (!(x >= -1.0f && x < 1.0f))
        return -1;
    int b = (int)((x + 1.0f) * 128.0f);
    return b < HISTOGRAM_BINS - 1 ? b : HISTOGRAM_BINS - 1;
}

/* Generate chunk `c` (len elements) of the data set into dst (bytes or floats) and count
 * it into s->ref. val and sel are scratch for len floats each. */
static void make_chunk(const CutuneHost *host, HistogramState *s, uint64_t seed, size_t c,
                       size_t len, float *val, float *sel, void *dst)
{
    host->random_uniform(seed, 2 * c, val, len, 0.0f, 1.0f);
    host->random_uniform(seed, 2 * c + 1, sel, len, 0.0f, 1.0f);
    for (size_t i = 0; i < len; i++) {
        int hot = s->skewed && sel[i] < 0.875f; /* 7 in 8 go to the hot bin */
        if (s->is_float) {
            float x = hot ? 0.5f + val[i] * 0.0078125f : -1.0625f + val[i] * 2.125f;
            ((float *)dst)[i] = x;
            int b = float_bin(x);
            if (b >= 0)
                s->ref[b]++;
        } else {
            int v = hot ? 200 : (int)(val[i] * 256.0f);
            v = v > 255 ? 255 : v;
            ((unsigned char *)dst)[i] = (unsigned char)v;
            s->ref[v]++;
        }
    }
}

static int setup(const CutuneHost *host, const CutuneProblem *p, uint64_t seed, void **state)
{
    HistogramState *s = calloc(1, sizeof *s);
    float *val = malloc(CHUNK * sizeof *val), *sel = malloc(CHUNK * sizeof *sel);
    unsigned char *chunk = malloc(CHUNK * sizeof(float));
    int rc = 0;
    if (!s || !val || !sel || !chunk) {
        rc = host->fail(host->ctx, CUTUNE_ERR_NOMEM, "out of host memory");
        goto done;
    }
    s->n = p->dim[0];
    s->is_float = p->dim[1] == 4;
    s->skewed = p->dim[2] == 2;
    size_t esize = s->is_float ? sizeof(float) : 1, n = (size_t)s->n;
    if ((rc = cutune_op_make_buffers(host, s, buffers, seed)))
        goto done;
    unsigned char *input = s->is_float ? (unsigned char *)s->f32 : s->u8;
    for (size_t c = 0, at = 0; at < n; c++, at += CHUNK) {
        size_t len = n - at < CHUNK ? n - at : CHUNK;
        make_chunk(host, s, seed, c, len, val, sel, chunk);
        if ((rc = host->copy_to_device(host->ctx, input + at * esize, chunk, len * esize)))
            break;
    }
done:
    free(val);
    free(sel);
    free(chunk);
    return cutune_op_setup_end(host, s, buffers, rc, state);
}

static int check(const CutuneHost *host, void *state, CutuneCheck *out)
{
    HistogramState *s = state;
    unsigned got[HISTOGRAM_BINS];
    int rc = host->copy_to_host(host->ctx, got, s->bins, sizeof got);
    if (rc)
        return rc;
    memset(out, 0, sizeof *out);
    int bad = 0, first = -1;
    for (int b = 0; b < HISTOGRAM_BINS; b++)
        if (got[b] != s->ref[b] && bad++ == 0)
            first = b;
    out->passed = bad == 0;
    out->error = bad; /* wrong bins; the tolerance is none */
    if (bad)
        snprintf(out->message, sizeof out->message,
                 "%d of %d bins wrong; first bin %d: got %u, expected %u", bad, HISTOGRAM_BINS,
                 first, got[first], s->ref[first]);
    return 0;
}

const void *histogram_device_input(void *state)
{
    HistogramState *s = state;
    return s->is_float ? (const void *)s->f32 : (const void *)s->u8;
}

const unsigned *histogram_reference(void *state)
{
    return ((HistogramState *)state)->ref;
}

CUTUNE_OP_DEFINE(
    histogram, .summary = "256 bins over n bytes or floats, in one launch", .dim_names = "N,T,D",
    .size_help =
        "NxTxD: N elements, T = 1 (bytes) or 4 (floats), D = 1 (uniform) or 2 (skewed); N means Nx1x1",
    .signature =
        "const unsigned char *u8, const float *f32, unsigned int *bins, unsigned int *scratch, unsigned int *counter, long long n, int is_float")
