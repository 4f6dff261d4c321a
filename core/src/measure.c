/* Evaluate one config: resources, correctness, then time. */
#include "measure.h"
#include "device.h"
#include "host.h"
#include "util.h"

#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cutune_measure_defaults(CutuneMeasureSettings *s)
{
    *s = (CutuneMeasureSettings){
        .warmup = 2,
        .min_samples = 5,
        .max_samples = 100,
        .max_seconds = 1.0,
        .target_rse = 0.005,
        .early_stop = 3.0,
        .min_sample_ms = 0.5,
    };
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void cutune_stats(double *v, int n, double *median, double *mean, double *stddev, double *min)
{
    if (n <= 0) {
        *median = *mean = *stddev = *min = 0;
        return;
    }
    qsort(v, (size_t)n, sizeof *v, cmp_double);
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

/* Classify a CUDA failure of a launch: a sticky one kills the context. */
static int launch_failed(CutuneEvalResult *out, cudaError_t e, const char *when)
{
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

static int skip(CutuneEvalResult *out, const char *fmt, long long a, long long b)
{
    out->status = CUTUNE_STATUS_SKIPPED_RESOURCES;
    snprintf(out->message, sizeof out->message, fmt, a, b);
    return 0;
}

/* Resource checks that need the compiled kernel. Returns 1 when the config was skipped. */
static int check_resources(const CutuneEvalInput *in, const CutuneLoadedKernel *k,
                           const CutuneLaunch *l, CutuneEvalResult *out)
{
    long long threads = (long long)l->block[0] * l->block[1] * l->block[2];
    if (threads > in->device->max_threads_per_block)
        return skip(out, "block of %lld threads exceeds the device's %lld", threads,
                    in->device->max_threads_per_block), 1;
    struct cudaFuncAttributes attr;
    if (cudaFuncGetAttributes(&attr, (const void *)k->kernel) != cudaSuccess) {
        cudaGetLastError();
        return 0; /* no attributes: let the launch tell */
    }
    if (threads > attr.maxThreadsPerBlock) {
        skip(out, "block of %lld threads, but at %lld registers a thread at most ", threads,
             attr.numRegs);
        size_t n = strlen(out->message);
        snprintf(out->message + n, sizeof out->message - n, "%d threads fit", attr.maxThreadsPerBlock);
        return 1;
    }
    long long shared = (long long)attr.sharedSizeBytes + (long long)l->shared_bytes;
    if (shared > in->device->max_shared_per_block)
        return skip(out, "needs %lld bytes of shared memory, the device allows %lld a block",
                    shared, in->device->max_shared_per_block), 1;
    if (l->shared_bytes > 48 * 1024 &&
        cudaFuncSetAttribute((const void *)k->kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             (int)l->shared_bytes) != cudaSuccess) {
        cudaGetLastError();
        return skip(out, "could not raise dynamic shared memory to %lld bytes (limit %lld)",
                    (long long)l->shared_bytes, in->device->max_shared_per_block), 1;
    }
    return 0;
}

/* One timed sample of `reps` back-to-back launches; its mean time per launch in ms. */
static cudaError_t sample(const CutuneLoadedKernel *k, const CutuneLaunch *l, void **args, int reps,
                          cudaEvent_t start, cudaEvent_t stop, double *ms)
{
    dim3 grid = {l->grid[0], l->grid[1], l->grid[2]};
    dim3 block = {l->block[0], l->block[1], l->block[2]};
    cudaError_t e = cudaEventRecord(start, 0);
    for (int i = 0; i < reps && e == cudaSuccess; i++)
        e = cudaLaunchKernel((const void *)k->kernel, grid, block, args, l->shared_bytes, 0);
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

int cutune_evaluate(const CutuneEvalInput *in, const CutuneMeasureSettings *s, CutuneEvalResult *out)
{
    double t0 = cutune_now();
    memset(out, 0, sizeof *out);
    const CutuneOp *v = in->op;
    CutuneLaunch l = *in->launch;
    CutuneLoadedKernel k = {0};
    cudaEvent_t start = NULL, stop = NULL;
    double *samples = NULL;
    int rc = 0;
    CutuneError err = {0};
    void *args[CUTUNE_MAX_KERNEL_ARGS];

    if (cutune_kernel_load(in->cubin, in->kernel_name, &k, &err) != 0) {
        out->status = CUTUNE_STATUS_LAUNCH_ERROR;
        snprintf(out->message, sizeof out->message, "%.500s", err.msg);
        goto done;
    }
    if (check_resources(in, &k, &l, out))
        goto done;
    int nargs = v->kernel_args(in->state, in->config, args, CUTUNE_MAX_KERNEL_ARGS);
    if (nargs < 0) {
        out->status = CUTUNE_STATUS_LAUNCH_ERROR;
        snprintf(out->message, sizeof out->message, "the op could not build kernel arguments");
        goto done;
    }

    /* Correct first: poison, launch once, check. Only a correct config is timed. */
    if (v->poison_output(in->host, in->state) != 0) {
        rc = CUTUNE_ERR_CUDA;
        out->status = CUTUNE_STATUS_CRASHED;
        snprintf(out->message, sizeof out->message, "poisoning the output failed");
        goto done;
    }
    cudaError_t e = cudaLaunchKernel((const void *)k.kernel,
                                     (dim3){l.grid[0], l.grid[1], l.grid[2]},
                                     (dim3){l.block[0], l.block[1], l.block[2]}, args,
                                     l.shared_bytes, 0);
    if (e == cudaSuccess)
        e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
        rc = launch_failed(out, e, "checked launch");
        goto done;
    }
    CutuneCheck chk = {0};
    if (v->check(in->host, in->state, &chk) != 0) {
        out->status = CUTUNE_STATUS_CRASHED;
        snprintf(out->message, sizeof out->message, "the check could not run");
        rc = CUTUNE_ERR_CUDA;
        goto done;
    }
    out->error = chk.error;
    out->tolerance = chk.tolerance;
    if (!chk.passed) {
        out->status = CUTUNE_STATUS_WRONG_RESULT;
        snprintf(out->message, sizeof out->message, "%s", chk.message);
        goto done;
    }

    /* Time: warm up, size the batch, sample until stable, capped, or hopeless. */
    if (cudaEventCreate(&start) != cudaSuccess || cudaEventCreate(&stop) != cudaSuccess) {
        rc = launch_failed(out, cudaGetLastError(), "cudaEventCreate");
        goto done;
    }
    double one = 0;
    for (int i = 0; i < (s->warmup > 0 ? s->warmup : 1); i++)
        if ((e = sample(&k, &l, args, 1, start, stop, &one)) != cudaSuccess) {
            rc = launch_failed(out, e, "warm-up launch");
            goto done;
        }
    int reps = one > 0 ? (int)ceil(s->min_sample_ms / one) : 1;
    reps = reps < 1 ? 1 : reps > 1000 ? 1000 : reps;
    out->launches_per_sample = reps;
    int cap = s->max_samples < CUTUNE_MAX_SAMPLES ? s->max_samples : CUTUNE_MAX_SAMPLES;
    samples = malloc((size_t)(cap > 1 ? cap : 1) * sizeof *samples);
    double *sorted = malloc((size_t)(cap > 1 ? cap : 1) * sizeof *sorted);
    if (!samples || !sorted) {
        free(sorted);
        out->status = CUTUNE_STATUS_LAUNCH_ERROR;
        snprintf(out->message, sizeof out->message, "out of host memory");
        goto done;
    }
    double t_timing = cutune_now(), fastest = INFINITY;
    int n = 0;
    while (n < cap) {
        double ms;
        if ((e = sample(&k, &l, args, reps, start, stop, &ms)) != cudaSuccess) {
            free(sorted);
            rc = launch_failed(out, e, "timed launch");
            goto done;
        }
        samples[n++] = ms;
        fastest = ms < fastest ? ms : fastest;
        if (in->best_ms > 0 && s->early_stop > 0 && n >= 2 && fastest > s->early_stop * in->best_ms) {
            out->stopped_early = 1;
            break;
        }
        if (cutune_now() - t_timing > s->max_seconds && n >= 2)
            break;
        if (n >= s->min_samples) {
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
    free(sorted);
    out->samples = n;
    out->status = CUTUNE_STATUS_OK;
    if (out->stopped_early)
        snprintf(out->message, sizeof out->message,
                 "timing stopped early: its fastest sample was over %.3gx the best so far",
                 s->early_stop);

done:
    if (start)
        cudaEventDestroy(start);
    if (stop)
        cudaEventDestroy(stop);
    free(samples);
    if (!out->context_lost)
        cutune_kernel_unload(&k);
    out->measure_ms = 1e3 * (cutune_now() - t0);
    return rc;
}
