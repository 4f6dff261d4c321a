/* Evaluate one config: resources, correctness, then time (timing.c). */
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

/* The kernel of an evaluation, `reps` launches back to back on the default stream. */
typedef struct KernelCalls {
    const CutuneLoadedKernel *k;
    const CutuneLaunch *l;
    void **args;
} KernelCalls;

static int enqueue_kernel(void *user, int reps)
{
    const KernelCalls *c = user;
    dim3 grid = {c->l->grid[0], c->l->grid[1], c->l->grid[2]};
    dim3 block = {c->l->block[0], c->l->block[1], c->l->block[2]};
    cudaError_t e = cudaSuccess;
    for (int i = 0; i < reps && e == cudaSuccess; i++)
        e = cudaLaunchKernel((const void *)c->k->kernel, grid, block, c->args, c->l->shared_bytes, 0);
    return (int)e;
}

int cutune_evaluate(const CutuneEvalInput *in, const CutuneMeasureSettings *s, CutuneEvalResult *out)
{
    double t0 = cutune_now();
    memset(out, 0, sizeof *out);
    const CutuneOp *v = in->op;
    CutuneLaunch l = *in->launch;
    CutuneLoadedKernel k = {0};
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
    if (nargs < 0 || (v->nargs > 0 && nargs != v->nargs)) {
        out->status = CUTUNE_STATUS_LAUNCH_ERROR;
        if (nargs < 0)
            snprintf(out->message, sizeof out->message,
                     "op %s could not build the kernel's arguments", v->name);
        else
            snprintf(out->message, sizeof out->message,
                     "op %s declares %d kernel arguments but passed %d; fix the op", v->name,
                     v->nargs, nargs);
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
        rc = cutune_launch_failed(out, e, "checked launch");
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
    KernelCalls calls = {&k, &l, args};
    rc = cutune_time_calls(enqueue_kernel, &calls, s, in->best_ms, out);

done:
    if (!out->context_lost)
        cutune_kernel_unload(&k);
    out->measure_ms = 1e3 * (cutune_now() - t0);
    return rc;
}
