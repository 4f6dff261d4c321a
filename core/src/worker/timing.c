/* Timing on the GPU with CUDA events, for kernels and for yardsticks alike: warm-up, a
 * batch of calls long enough to time, then samples until the median is stable, the time
 * cap is hit or the calls cannot win. */
#include "measure.h"
#include "host.h"
#include "util.h"

#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cutune_stats(double *v, int n, double *median, double *mean, double *stddev, double *min)
{
    if (n <= 0) {
        *median = *mean = *stddev = *min = 0;
        return;
    }
    qsort(v, (size_t)n, sizeof *v, cutune_cmp_double);
    *median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    *min = v[0];
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += v[i];
    *mean = sum / n;
    double ss = 0;
    for (int i = 0; i < n; i++)
        ss += (v[i] - *mean) * (v[i] - *mean);
    *stddev = n > 1 ? sqrt(ss / (n - 1)) : 0;
}

/* The factor over the best beyond which one launch alone ends the timing: never below the
 * early-stop factor itself. */
static double alone_factor(const CutuneMeasureSettings *s)
{
    return s->early_stop > CUTUNE_HOPELESS_ALONE ? s->early_stop : CUTUNE_HOPELESS_ALONE;
}

int cutune_hopeless(double ms, double best_ms, const CutuneMeasureSettings *s, double allowance_ms)
{
    if (!(best_ms > 0 && s->early_stop > 0 && ms > s->early_stop * best_ms + allowance_ms))
        return 0;
    if (ms > alone_factor(s) * best_ms + allowance_ms ||
        ms > allowance_ms + CUTUNE_HOPELESS_LONG_MS)
        return 2;
    return 1;
}

void cutune_single_sample(CutuneEvalResult *out, double ms, int launches, double best_ms,
                          const CutuneMeasureSettings *s)
{
    out->median_ms = out->min_ms = out->mean_ms = ms;
    out->stddev_ms = 0;
    out->samples = 1;
    out->launches_per_sample = 1;
    out->stopped_early = 1;
    out->status = CUTUNE_STATUS_OK;
    if (launches >= 2)
        snprintf(out->message, sizeof out->message,
                 "timing stopped early: two launches in a row took over %.3gx the best so far, "
                 "the last %.4g ms",
                 s->early_stop, ms);
    else
        snprintf(out->message, sizeof out->message,
                 "timing stopped early: one launch took %.4g ms, %.3gx the best so far (over "
                 "%.3gx, or over %.3gx and %g ms long, is more than clocks ramping up explain)",
                 ms, best_ms > 0 ? ms / best_ms : 0, alone_factor(s), s->early_stop,
                 CUTUNE_HOPELESS_LONG_MS);
}

/* Classify a CUDA failure of a launch: a sticky one kills the context. */
int cutune_launch_failed(CutuneEvalResult *out, int cuda_error, const char *when)
{
    cudaError_t e = (cudaError_t)cuda_error;
    snprintf(out->message, sizeof out->message, "%s: %s: %s", when, cudaGetErrorName(e),
             cudaGetErrorString(e));
    if (cutune_cuda_error_is_sticky(e)) {
        out->status = CUTUNE_STATUS_CRASHED;
        out->context_lost = 1;
        return CUTUNE_ERR_CUDA;
    }
    out->status = CUTUNE_STATUS_LAUNCH_ERROR;
    cudaGetLastError(); /* clear the non-sticky error */
    return 0;
}

/* One timed sample of `reps` calls; its mean time per call in ms. */
static cudaError_t sample(CutuneEnqueueFn enqueue, void *user, int reps, cudaEvent_t start,
                          cudaEvent_t stop, double *ms)
{
    cudaError_t e = cudaEventRecord(start, 0);
    if (e == cudaSuccess)
        e = (cudaError_t)enqueue(user, reps);
    if (e == cudaSuccess)
        e = cudaEventRecord(stop, 0);
    if (e == cudaSuccess)
        e = cudaEventSynchronize(stop);
    float f = 0;
    if (e == cudaSuccess)
        e = cudaEventElapsedTime(&f, start, stop);
    *ms = (double)f / reps;
    return e;
}

int cutune_time_calls(CutuneEnqueueFn enqueue, void *user, const CutuneMeasureSettings *s,
                      double best_ms, int hopeless, CutuneEvalResult *out)
{
    cudaEvent_t start = NULL, stop = NULL;
    double *samples = NULL, *sorted = NULL;
    int rc = 0;
    cudaError_t e;
    if (cudaEventCreate(&start) != cudaSuccess || cudaEventCreate(&stop) != cudaSuccess) {
        rc = cutune_launch_failed(out, cudaGetLastError(), "cudaEventCreate");
        goto done;
    }
    double one = 0;
    for (int i = 0; i < (s->warmup > 0 ? s->warmup : 1); i++) {
        if ((e = sample(enqueue, user, 1, start, stop, &one)) != cudaSuccess) {
            rc = cutune_launch_failed(out, e, "warm-up launch");
            goto done;
        }
        /* two launches in a row that cannot win end it (one alone may have met the GPU at
         * its idle clocks), or one far beyond what idle clocks explain */
        int h = cutune_hopeless(one, best_ms, s, 0);
        hopeless = h ? hopeless + 1 : 0;
        if (hopeless >= 2 || h == 2) {
            cutune_single_sample(out, one, h == 2 ? 1 : 2, best_ms, s);
            goto done;
        }
        if (!h && s->long_ms > 0 && one >= s->long_ms)
            break; /* the clocks are up (long_ms); a hopeless one waits to be confirmed */
    }
    int min_samples = s->min_samples;
    if (s->long_ms > 0 && one >= s->long_ms && s->long_min_samples < min_samples)
        min_samples = s->long_min_samples;
    int reps = one > 0 ? (int)ceil(s->min_sample_ms / one) : 1;
    reps = reps < 1 ? 1 : reps > 1000 ? 1000 : reps;
    out->launches_per_sample = reps;
    int cap = s->max_samples < CUTUNE_MAX_SAMPLES ? s->max_samples : CUTUNE_MAX_SAMPLES;
    samples = malloc((size_t)(cap > 1 ? cap : 1) * sizeof *samples);
    sorted = malloc((size_t)(cap > 1 ? cap : 1) * sizeof *sorted);
    if (!samples || !sorted) {
        out->status = CUTUNE_STATUS_LAUNCH_ERROR;
        snprintf(out->message, sizeof out->message, "out of host memory");
        goto done;
    }
    double t_timing = cutune_now(), fastest = INFINITY;
    /* the factor over the best beyond which two samples end the timing */
    double cut = s->early_stop > 0 && s->race > 0 && s->race < s->early_stop ? s->race
                                                                             : s->early_stop;
    int n = 0;
    while (n < cap) {
        double ms;
        if ((e = sample(enqueue, user, reps, start, stop, &ms)) != cudaSuccess) {
            rc = cutune_launch_failed(out, e, "timed launch");
            goto done;
        }
        samples[n++] = ms;
        fastest = ms < fastest ? ms : fastest;
        if (best_ms > 0 && cut > 0 && n >= 2 && fastest > cut * best_ms) {
            out->stopped_early = 1;
            break;
        }
        if (cutune_now() - t_timing > s->max_seconds && n >= 2)
            break;
        if (n >= min_samples) {
            double sum = 0, ss = 0;
            for (int i = 0; i < n; i++)
                sum += samples[i];
            double mean = sum / n;
            for (int i = 0; i < n; i++)
                ss += (samples[i] - mean) * (samples[i] - mean);
            double sd = sqrt(ss / (n - 1));
            if (sd / sqrt((double)n) / mean < s->target_rse)
                break;
        }
    }
    memcpy(sorted, samples, (size_t)n * sizeof *sorted);
    cutune_stats(sorted, n, &out->median_ms, &out->mean_ms, &out->stddev_ms, &out->min_ms);
    out->samples = n;
    out->status = CUTUNE_STATUS_OK;
    if (out->stopped_early)
        snprintf(out->message, sizeof out->message,
                 "timing stopped early after %d samples: the faster was %.3gx the best so far "
                 "(over %.3gx cannot win)",
                 n, fastest / best_ms, cut);
done:
    if (start)
        cudaEventDestroy(start);
    if (stop)
        cudaEventDestroy(stop);
    free(samples);
    free(sorted);
    return rc;
}
