/* Timing with CUDA events on a GPU (exit 77 without one), on calls that take a known
 * time: a memset of 1 GiB. With no best time the calls are sampled until stable; with a best
 * time they cannot come near, two warm-up launches in a row end the timing (one after a
 * checked launch that could not win either), and the last is the only sample. */
#include "check.h"
#include "gpu_test.h"
#include "measure.h"

#include <cuda_runtime.h>
#include <string.h>

typedef struct Memsets {
    void *buf;
    size_t bytes;
    int calls, launches;
} Memsets;

static int enqueue_memset(void *user, int reps)
{
    Memsets *m = user;
    m->calls++;
    cudaError_t e = cudaSuccess;
    for (int i = 0; i < reps && e == cudaSuccess; i++, m->launches++)
        e = cudaMemsetAsync(m->buf, i & 0xff, m->bytes, 0);
    return (int)e;
}

static void sampled(Memsets *m, const CutuneMeasureSettings *s, double best_ms)
{
    CutuneEvalResult r;
    memset(&r, 0, sizeof r);
    m->calls = m->launches = 0;
    CHECK_EQ_INT(cutune_time_calls(enqueue_memset, m, s, best_ms, 0, &r), 0);
    CHECK(r.status == CUTUNE_STATUS_OK && !r.stopped_early);
    CHECK_MSG(r.samples >= s->min_samples, "%d samples", r.samples);
    CHECK(m->launches >= s->warmup + r.samples);
    CHECK(r.median_ms > 0.01 && r.min_ms <= r.median_ms);
}

int main(void)
{
    if (!gpu_present())
        return CHECK_SKIP;
    Memsets m = {NULL, (size_t)1 << 30, 0, 0};
    CHECK(cudaMalloc(&m.buf, m.bytes) == cudaSuccess);
    if (!m.buf)
        return check_result("gpu_timing");
    CutuneMeasureSettings s;
    cutune_measure_defaults(&s);

    sampled(&m, &s, 0);      /* no best yet */
    sampled(&m, &s, 1000.0); /* a best far slower than a memset */

    /* a best a memset cannot come near: two warm-up launches, the last recorded as the only
     * sample; one when the launch before (a checked launch) could not win either */
    for (int before = 0; before <= 1; before++) {
        CutuneEvalResult r;
        memset(&r, 0, sizeof r);
        m.calls = m.launches = 0;
        CHECK_EQ_INT(cutune_time_calls(enqueue_memset, &m, &s, 1e-6, before, &r), 0);
        CHECK(r.status == CUTUNE_STATUS_OK && r.stopped_early);
        CHECK_EQ_INT(r.samples, 1);
        CHECK_EQ_INT(m.launches, 2 - before);
        CHECK(r.median_ms > 3 * 1e-6 && r.median_ms == r.min_ms);
        CHECK_STR_CONTAINS(r.message, "two launches in a row took over 3x the best so far");
    }

    /* early stopping off: the same best is sampled in full */
    s.early_stop = 0;
    sampled(&m, &s, 1e-6);

    CHECK(cudaFree(m.buf) == cudaSuccess);
    return check_result("gpu_timing");
}
