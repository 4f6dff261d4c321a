/* Timing with CUDA events on a GPU (exit 77 without one), on calls that take a known
 * time: a memset of 1 GiB (or 200 of them, a long launch). With no best time the calls are
 * sampled until stable; with a best time they cannot come near, two warm-up launches in a row
 * end the timing (one after a checked launch that could not win either), or one alone when it
 * is over 20x that best or over 20 ms long, and the last is the only sample. Calls over 1.1x
 * the best, but under 3x, stop after two samples; calls near the best are sampled in full,
 * after one warm-up launch and from 3 samples where a launch takes 5 ms or more. */
#include "check.h"
#include "gpu_test.h"
#include "measure.h"

#include <cuda_runtime.h>
#include <string.h>

typedef struct Memsets {
    void *buf;
    size_t bytes;
    int per_launch; /* memsets a launch */
    int calls, launches;
} Memsets;

static int enqueue_memset(void *user, int reps)
{
    Memsets *m = user;
    m->calls++;
    cudaError_t e = cudaSuccess;
    for (int i = 0; i < reps && e == cudaSuccess; i++, m->launches++)
        for (int k = 0; k < m->per_launch && e == cudaSuccess; k++)
            e = cudaMemsetAsync(m->buf, (i + k) & 0xff, m->bytes, 0);
    return (int)e;
}

static double sampled(Memsets *m, const CutuneMeasureSettings *s, double best_ms)
{
    CutuneEvalResult r;
    memset(&r, 0, sizeof r);
    m->calls = m->launches = 0;
    CHECK_EQ_INT(cutune_time_calls(enqueue_memset, m, s, best_ms, 0, &r), 0);
    CHECK(r.status == CUTUNE_STATUS_OK && !r.stopped_early);
    /* a launch of long_ms or more: one warm-up launch, and long_min_samples at least */
    int lng = s->long_ms > 0 && r.median_ms >= s->long_ms;
    int least = lng && s->long_min_samples < s->min_samples ? s->long_min_samples : s->min_samples;
    CHECK_MSG(r.samples >= least, "%d samples", r.samples);
    if (lng)
        CHECK_MSG(m->launches == 1 + r.samples, "%d launches for %d samples", m->launches,
                  r.samples);
    else
        CHECK(m->launches >= s->warmup + r.samples);
    CHECK(r.median_ms > 0.01 && r.min_ms <= r.median_ms);
    return r.median_ms;
}

/* With a best the memset cannot come near, timed after a checked launch that could (before
 * 0) or could not (1) win either: the launches made, and the message. */
static void cut_short(Memsets *m, const CutuneMeasureSettings *s, double best_ms, int before,
                      int launches, const char *message)
{
    CutuneEvalResult r;
    memset(&r, 0, sizeof r);
    m->calls = m->launches = 0;
    CHECK_EQ_INT(cutune_time_calls(enqueue_memset, m, s, best_ms, before, &r), 0);
    CHECK(r.status == CUTUNE_STATUS_OK && r.stopped_early);
    CHECK_EQ_INT(r.samples, 1);
    CHECK_MSG(m->launches == launches, "best %g ms, before %d: %d launches, %d expected", best_ms,
              before, m->launches, launches);
    CHECK(r.median_ms > 3 * best_ms && r.median_ms == r.min_ms);
    CHECK_STR_CONTAINS(r.message, message);
}

int main(void)
{
    if (!gpu_present())
        return CHECK_SKIP;
    Memsets m = {NULL, (size_t)1 << 30, 1, 0, 0};
    CHECK(cudaMalloc(&m.buf, m.bytes) == cudaSuccess);
    if (!m.buf)
        return check_result("gpu_timing");
    CutuneMeasureSettings s;
    cutune_measure_defaults(&s);

    double ms = sampled(&m, &s, 0); /* no best yet */
    sampled(&m, &s, 1000.0);        /* a best far slower than a memset */

    /* a best the memset takes 8x: two slow launches in a row, the last recorded as the only
     * sample; one when the launch before (a checked launch) was slow too */
    const char *two = "two launches in a row took over 3x the best so far";
    cut_short(&m, &s, ms / 8, 0, 2, two);
    cut_short(&m, &s, ms / 8, 1, 1, two);
    /* a best the memset takes over 20x: one launch ends it, whatever came before */
    const char *one = "one launch took";
    cut_short(&m, &s, 1e-6, 0, 1, one);
    cut_short(&m, &s, 1e-6, 1, 1, one);

    /* a best the memset takes 1.5x: two samples, then it stops; one it takes 1.02x: in full */
    CutuneEvalResult r;
    memset(&r, 0, sizeof r);
    CHECK_EQ_INT(cutune_time_calls(enqueue_memset, &m, &s, ms / 1.5, 0, &r), 0);
    CHECK(r.status == CUTUNE_STATUS_OK && r.stopped_early);
    CHECK_EQ_INT(r.samples, 2);
    CHECK(r.median_ms > 1.1 * ms / 1.5);
    CHECK_STR_CONTAINS(r.message, "timing stopped early after 2 samples");
    sampled(&m, &s, ms / 1.02);

    /* a launch of 200 memsets (over 20 ms): at 8x the best it ends the timing alone */
    m.per_launch = 200;
    double long_ms = sampled(&m, &s, 0);
    CHECK_MSG(long_ms > 20.0, "200 memsets of 1 GiB took %g ms", long_ms);
    cut_short(&m, &s, long_ms / 8, 0, 1, one);
    cut_short(&m, &s, long_ms / 8, 1, 1, one);
    m.per_launch = 1;

    /* early stopping off: the same best is sampled in full */
    s.early_stop = 0;
    sampled(&m, &s, 1e-6);

    CHECK(cudaFree(m.buf) == cudaSuccess);
    return check_result("gpu_timing");
}
