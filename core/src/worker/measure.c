/* Evaluate one config: resources, correctness, then time (timing.c). */
#include "measure.h"
#include "device.h"
#include "host.h"
#include "tensor_map.h"
#include "util.h"

#include <cuda_runtime.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a first launch may spend beyond the kernel: loading its module, launch latency. */
#define CHECKED_LAUNCH_ALLOWANCE_MS 10.0

void cutune_measure_defaults(CutuneMeasureSettings *s)
{
    *s = (CutuneMeasureSettings){
        .warmup = 2,
        .min_samples = 5,
        .max_samples = 100,
        .max_seconds = 1.0,
        .target_rse = 0.005,
        .early_stop = 3.0,
        .race = 1.1,
        .min_sample_ms = 0.5,
        .long_ms = 5.0,
        .long_min_samples = 3,
    };
}

/* Set out->status and its message; returns 0, so that a step can `return refuse(...)`. */
static int refuse(CutuneEvalResult *out, CutuneStatus status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static int refuse(CutuneEvalResult *out, CutuneStatus status, const char *fmt, ...)
{
    out->status = status;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->message, sizeof out->message, fmt, ap);
    va_end(ap);
    return 0;
}

/* Resource checks that need the compiled kernel. Returns 1 when the config was skipped. */
static int check_resources(const CutuneEvalInput *in, const CutuneLoadedKernel *k,
                           const CutuneLaunch *l, CutuneEvalResult *out)
{
    long long threads = (long long)l->block[0] * l->block[1] * l->block[2];
    if (threads > in->device->max_threads_per_block)
        return refuse(out, CUTUNE_STATUS_SKIPPED_RESOURCES,
                      "block of %lld threads exceeds the device's %lld", threads,
                      (long long)in->device->max_threads_per_block),
               1;
    struct cudaFuncAttributes attr;
    if (cudaFuncGetAttributes(&attr, (const void *)k->kernel) != cudaSuccess) {
        cudaGetLastError();
        return 0; /* no attributes: let the launch tell */
    }
    if (threads > attr.maxThreadsPerBlock) {
        refuse(out, CUTUNE_STATUS_SKIPPED_RESOURCES,
               "block of %lld threads, but at %d registers a thread at most %d threads fit",
               threads, attr.numRegs, attr.maxThreadsPerBlock);
        return 1;
    }
    long long shared = (long long)attr.sharedSizeBytes + (long long)l->shared_bytes;
    if (shared > in->device->max_shared_per_block)
        return refuse(out, CUTUNE_STATUS_SKIPPED_RESOURCES,
                      "needs %lld bytes of shared memory, the device allows %lld a block", shared,
                      (long long)in->device->max_shared_per_block),
               1;
    if (l->shared_bytes > 48 * 1024 &&
        cudaFuncSetAttribute((const void *)k->kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             (int)l->shared_bytes) != cudaSuccess) {
        cudaGetLastError();
        return refuse(out, CUTUNE_STATUS_SKIPPED_RESOURCES,
                      "could not raise dynamic shared memory to %lld bytes (limit %lld)",
                      (long long)l->shared_bytes, (long long)in->device->max_shared_per_block),
               1;
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
        e = cudaLaunchKernel((const void *)c->k->kernel, grid, block, c->args, c->l->shared_bytes,
                             0);
    return (int)e;
}

/* The kernel's arguments from the op (*nargs of them). 1 when they are ready, 0 when the
 * config failed. */
static int build_args(const CutuneEvalInput *in, void **args, int *nargs, CutuneEvalResult *out)
{
    const CutuneOp *v = in->op;
    *nargs = v->kernel_args(in->state, in->config, args, CUTUNE_MAX_KERNEL_ARGS);
    if (*nargs < 0)
        return refuse(out, CUTUNE_STATUS_LAUNCH_ERROR,
                      "op %s could not build the kernel's arguments", v->name);
    if (v->nargs > 0 && *nargs != v->nargs)
        return refuse(out, CUTUNE_STATUS_LAUNCH_ERROR,
                      "op %s declares %d kernel arguments but passed %d; fix the op", v->name,
                      v->nargs, *nargs);
    return 1;
}

/* The config's TMA tensor maps after the op's arguments, encoded on the op's buffers. 1 when
 * they are ready (or there are none), 0 when the config failed (a launch error that says
 * why: the driver refusing a map). */
static int add_tensor_maps(const CutuneEvalInput *in, void **args, int nargs, CUtensorMap *maps,
                           CutuneEvalResult *out)
{
    char why[400];
    if (!in->maps || in->maps->n == 0 ||
        cutune_tensor_maps_encode(in->maps, args, nargs, maps, why, sizeof why) == 0)
        return 1;
    return refuse(out, CUTUNE_STATUS_LAUNCH_ERROR, "the config's TMA tensor maps: %s", why);
}

/* A library variant's call, `reps` times back to back on the default stream: a cudaError_t,
 * as timing.c expects; *failed is set when the library itself refused a call. */
typedef struct LibraryCalls {
    const CutuneVariant *v;
    void *handle;
    void **args;
    int failed;
} LibraryCalls;

static int enqueue_library(void *user, int reps)
{
    LibraryCalls *c = user;
    for (int i = 0; i < reps; i++)
        if (c->v->library_run(c->handle, (void *const *)c->args, NULL) != 0) {
            cudaError_t e = cudaPeekAtLastError();
            c->failed = 1;
            return (int)(e != cudaSuccess ? e : cudaErrorUnknown);
        }
    return (int)cudaSuccess;
}

/* Correct first: poison the output, launch once, check. Returns 0 (out->status says whether
 * the result was correct) or a negative CUTUNE_ERR_* when the device can no longer be
 * trusted. */
static int run_checked(const CutuneEvalInput *in, CutuneEnqueueFn enqueue, void *calls,
                       CutuneEvalResult *out, double *launch_ms)
{
    const CutuneOp *v = in->op;
    if (v->poison_output(in->host, in->state) != 0) {
        refuse(out, CUTUNE_STATUS_CRASHED, "poisoning the output failed");
        return CUTUNE_ERR_CUDA;
    }
    cudaError_t e = cudaDeviceSynchronize(); /* the poisoning is not the launch's time */
    double t = cutune_now();
    if (e == cudaSuccess)
        e = (cudaError_t)enqueue(calls, 1);
    if (e == cudaSuccess)
        e = cudaDeviceSynchronize();
    *launch_ms = 1e3 * (cutune_now() - t);
    if (e != cudaSuccess)
        return cutune_launch_failed(out, e, "checked launch");
    CutuneCheck chk = {0};
    if (v->check(in->host, in->state, &chk) != 0) {
        refuse(out, CUTUNE_STATUS_CRASHED, "the check could not run");
        return CUTUNE_ERR_CUDA;
    }
    out->error = chk.error;
    out->tolerance = chk.tolerance;
    if (!chk.passed)
        refuse(out, CUTUNE_STATUS_WRONG_RESULT, "%s", chk.message);
    return 0;
}

/* Check, then time only a correct config: warm up, size the batch, sample until stable,
 * capped, or hopeless, which its checked launch may already show (timed on the host, loading
 * included, hence the allowance), and one warm-up launch then confirm; a checked launch
 * hopeless on its own is the only sample. */
static int check_and_time(const CutuneEvalInput *in, const CutuneMeasureSettings *s,
                          CutuneEnqueueFn enqueue, void *calls, CutuneEvalResult *out)
{
    double checked_ms = 0;
    int rc = run_checked(in, enqueue, calls, out, &checked_ms);
    if (rc || out->status != CUTUNE_STATUS_OK)
        return rc;
    int hopeless = cutune_hopeless(checked_ms, in->best_ms, s, CHECKED_LAUNCH_ALLOWANCE_MS);
    if (hopeless == 2)
        cutune_single_sample(out, checked_ms, 1, in->best_ms, s);
    else
        rc = cutune_time_calls(enqueue, calls, s, in->best_ms, hopeless, out);
    return rc;
}

static int evaluate_kernel(const CutuneEvalInput *in, const CutuneMeasureSettings *s,
                           CutuneEvalResult *out)
{
    CutuneLaunch l = *in->launch;
    CutuneLoadedKernel k = {0};
    CutuneError err = {0};
    void *args[CUTUNE_MAX_KERNEL_ARGS];
    CUtensorMap maps[CUTUNE_MAX_TENSOR_MAPS];
    KernelCalls calls = {&k, &l, args};
    int rc = 0, nargs = 0;
    if (cutune_kernel_load(in->cubin, in->kernel_name, &k, &err) != 0)
        refuse(out, CUTUNE_STATUS_LAUNCH_ERROR, "%.500s", err.msg);
    else if (!check_resources(in, &k, &l, out) && build_args(in, args, &nargs, out) &&
             add_tensor_maps(in, args, nargs, maps, out))
        rc = check_and_time(in, s, enqueue_kernel, &calls, out);
    if (!out->context_lost)
        cutune_kernel_unload(&k);
    return rc;
}

/* A library variant: prepare the config with the op's arguments (a refusal is the trial's
 * verdict), call it once (what loading a kernel is to a kernel), then check and time its
 * calls as a kernel's launches; what prepare says of a config it took (the library's
 * algorithm, say) is the message of a trial that has none. */
static int evaluate_library(const CutuneEvalInput *in, const CutuneMeasureSettings *s,
                            CutuneEvalResult *out)
{
    void *args[CUTUNE_MAX_KERNEL_ARGS];
    int nargs = 0;
    if (!build_args(in, args, &nargs, out))
        return 0;
    char why[sizeof out->message] = "";
    void *handle = NULL;
    const CutuneHostCtx *hc = in->host->ctx;
    if (hc->err) /* what the plugin says through host->fail from here on is this config's */
        cutune_error_clear(hc->err);
    int prc = in->library->library_prepare(in->host, (void *const *)args, in->problem, in->config,
                                           &handle, why, sizeof why);
    cudaError_t e = cudaPeekAtLastError();
    if (prc != 0 && cutune_cuda_error_is_sticky(e))
        return cutune_launch_failed(out, e, "library_prepare");
    if (prc != 0) {
        cudaGetLastError(); /* a refusal leaves nothing pending for the next config */
        return refuse(out, cutune_library_refusal(prc), "%s", why[0] ? why : cutune_strerror(prc));
    }
    LibraryCalls calls = {in->library, handle, args, 0};
    /* one call first, as a kernel's module is loaded before its checked launch: a library
     * loads its kernels on their first use (CUDA's lazy loading), which is no launch's time */
    int rc = 0;
    e = (cudaError_t)enqueue_library(&calls, 1);
    if (e == cudaSuccess)
        e = cudaDeviceSynchronize();
    if (e != cudaSuccess)
        rc = cutune_launch_failed(out, e, "first call");
    else
        rc = check_and_time(in, s, enqueue_library, &calls, out);
    if (calls.failed && out->status == CUTUNE_STATUS_LAUNCH_ERROR && hc->err && hc->err->msg[0])
        refuse(out, CUTUNE_STATUS_LAUNCH_ERROR, "library_run: %.480s", hc->err->msg);
    else if (out->status == CUTUNE_STATUS_OK && !out->message[0])
        snprintf(out->message, sizeof out->message, "%s", why);
    if (!out->context_lost)
        in->library->library_release(handle);
    return rc;
}

int cutune_evaluate(const CutuneEvalInput *in, const CutuneMeasureSettings *s,
                    CutuneEvalResult *out)
{
    double t0 = cutune_now();
    memset(out, 0, sizeof *out);
    int rc = in->library ? evaluate_library(in, s, out) : evaluate_kernel(in, s, out);
    out->measure_ms = 1e3 * (cutune_now() - t0);
    return rc;
}
