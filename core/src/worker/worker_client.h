/* The tuner's side of the worker process: start cutune-worker, ask it for the device, set
 * a problem up in it, have it evaluate configs under a deadline, and replace it when a
 * kernel kills it, hangs it or breaks its CUDA context. The tuner itself never touches
 * the GPU, so nothing a kernel does can take the run down.
 *
 * The worker executable is found as $CUTUNE_WORKER, else cutune-worker beside libcutune
 * (build/core/ in the build tree), else the installed <libexecdir>/cutune-worker. */
#ifndef CUTUNE_WORKER_CLIENT_H
#define CUTUNE_WORKER_CLIENT_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "cutune/cutune.h"
#include "cutune/op.h"
#include "measure.h"
#include "proto.h"

/* How long an evaluation may take before the worker is killed and the config recorded as
 * `timeout`. One launch may take max(factor x best_ms, floor_s); an evaluation makes the
 * checked launch, the warm-up launches and at least two samples, and samples for at most
 * the timing cap, so its limit is
 *     (warmup + 4) x max(factor x best_ms, floor_s) + max_seconds + 1 s
 * (best_ms: the best median so far for the problem; 0 before the first correct config). */
typedef struct CutuneWorkerLimits {
    double timeout_factor;  /* default 10 */
    double timeout_floor_s; /* default 2 */
    double setup_timeout_s; /* problem setup (inputs, reference); default 300 */
    /* Set asynchronously by a signal handler (NULL: never). When it reaches 2 (a second
     * Ctrl-C), a wait for the worker ends at once: the worker is killed, the trial in
     * flight is dropped, and the call returns CUTUNE_ERR_INTERRUPTED. */
    const volatile sig_atomic_t *stop;
} CutuneWorkerLimits; /* a field <= 0 takes its default in cutune_worker_start */

void cutune_worker_limits_defaults(CutuneWorkerLimits *l);
/* The evaluation deadline in seconds for these settings (the formula above). */
double cutune_worker_eval_limit(const CutuneWorkerLimits *l, const CutuneMeasureSettings *s,
                                double best_ms);

typedef struct CutuneWorker CutuneWorker;

/* Where the worker executable is (see above); the message says where it looked. */
int cutune_worker_path(char *buf, size_t len, CutuneError *err);

/* Start a worker for CUDA device `device` and fill *dev from its answer. Errors: the
 * worker's own (CUTUNE_ERR_NO_DEVICE without a GPU), or CUTUNE_ERR_IO when it cannot be
 * started or dies. On success *out owns the worker (free with cutune_worker_stop). */
int cutune_worker_start(int device, const CutuneWorkerLimits *lim, CutuneWorker **out,
                        CutuneDeviceInfo *dev, CutuneError *err);

/* Start a worker for each of n devices at once (each opens its device while the others
 * do): fill each entry's worker and dev, or its rc (as cutune_worker_start's) and err.
 * Workers die with the thread that starts them (PR_SET_PDEATHSIG): call from the thread
 * that will use them. */
typedef struct CutuneWorkerStart {
    int device;
    CutuneWorker *worker;
    CutuneDeviceInfo dev;
    int rc;
    CutuneError err;
} CutuneWorkerStart;
void cutune_worker_start_all(CutuneWorkerStart *s, size_t n, const CutuneWorkerLimits *lim);

/* How many CUDA devices the driver sees, asked of a short-lived worker (the tuner itself
 * never touches CUDA). CUTUNE_ERR_NO_DEVICE without a driver or device. */
int cutune_worker_device_count(const CutuneWorkerLimits *lim, int *count, CutuneError *err);

/* Set up a problem in the worker: it loads the op's contract (contract_path: the op
 * plugin, or a self-contained C variant plugin; registry.h's CutuneOpDef path) and calls its
 * setup with the seed. The arguments are kept so that a replacement worker gets the same
 * problem (same seed: the same inputs). */
int cutune_worker_setup(CutuneWorker *w, const char *contract_path, const CutuneProblem *p,
                        uint64_t seed, int arch, const char *cache_dir, CutuneError *err);

/* Evaluate one config: the kernel `kernel_name` of the cubin, launched with `launch`, given
 * the TMA tensor maps `maps` after the op's arguments (NULL or n 0: none).
 * Returns 0 with *out filled; out->status is `crashed` when the worker
 * died or lost its CUDA context (the message says how: the signal, or the CUDA error) and
 * `timeout` when it passed the deadline and was killed. In both cases a fresh worker has
 * already been started and set up. Returns < 0 (err set, *out still filled) when no
 * working worker could be had again: the run cannot go on. */
int cutune_worker_eval(CutuneWorker *w, const CutuneConfig *cfg, const void *cubin,
                       size_t cubin_size, const char *kernel_name, const CutuneLaunch *launch,
                       const CutuneTensorMaps *maps, double best_ms, const CutuneMeasureSettings *s,
                       CutuneEvalResult *out, CutuneError *err);

/* Evaluate one config of a library variant (cutune/plugin.h, ABI 1.5): the worker loads the
 * C plugin at plugin_path, calls its library_prepare with the op's kernel arguments of the
 * problem set up, then checks and times library_run as a kernel's launch is (poisoned
 * output, the op's check, warm-up, samples). A prepare that refuses the config records it
 * skipped_resources (or launch_error) with the plugin's message. Returns and *out as
 * cutune_worker_eval. */
int cutune_worker_eval_library(CutuneWorker *w, const CutuneConfig *cfg, const char *plugin_path,
                               double best_ms, const CutuneMeasureSettings *s,
                               CutuneEvalResult *out, CutuneError *err);

/* Time the op's vendor yardstick (cuBLAS SGEMM for matmul, cudaMemcpy device-to-device of
 * the op's bytes for the memory-bound ops; cutune/op.h) on the inputs of the problem set up
 * by cutune_worker_setup, with CUDA events as kernels are timed (warm-up, samples, median;
 * the default measure settings). A yardstick that computes the op is first checked like a
 * kernel. Returns 0 with its name (e.g. "cuBLAS SGEMM"), median and sample count, or
 * CUTUNE_ERR_NOT_FOUND when the op has none or its library is missing (err says which).
 * Any other failure (it is wrong, it faults, it hangs) returns another code with err set;
 * a worker it broke has been replaced and set up again, so the run goes on. */
int cutune_worker_yardstick(CutuneWorker *w, char *name, size_t name_len, double *median_ms,
                            int *samples, CutuneError *err);

/* Free the problem in the worker (the worker keeps running for the next one). */
void cutune_worker_teardown(CutuneWorker *w);

/* Number of workers started so far (1 + replacements), for reports and tests. */
int cutune_worker_starts(const CutuneWorker *w);
/* The device's peak SM and memory clocks in kHz as its worker read them (0: unknown). */
void cutune_worker_clocks(const CutuneWorker *w, int *sm_khz, int *mem_khz);

/* End the worker (it exits when its socket closes; killed if it does not within a
 * second) and free *w. NULL-safe. */
void cutune_worker_stop(CutuneWorker **w);

/* A worker that opens no device (nothing is opened before HELLO), for requests that need
 * none: a compile process (compile_proc.h). Free with cutune_worker_stop. */
int cutune_worker_spawn_idle(CutuneWorker **out, CutuneError *err);
/* The worker's message buffer: fill it with a request's payload; after
 * cutune_worker_request it holds the answer's, to read. */
CutuneBuf *cutune_worker_buffer(CutuneWorker *w);
/* Send the buffer as a `type` request and receive the answer, which must be `want`, within
 * `limit` seconds. On failure (an ERROR answer: its code and message; no answer; a dead
 * worker) the worker process is reaped and err says why, naming `what`. */
int cutune_worker_request(CutuneWorker *w, uint32_t type, uint32_t want, double limit,
                          const char *what, CutuneError *err);

#endif
