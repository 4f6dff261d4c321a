/* Evaluating one config: resource checks, a checked launch on a poisoned output, then timing
 * with CUDA events. This is the boundary a worker process will sit behind: everything it
 * needs comes in CutuneEvalInput and everything it learns goes out in CutuneEvalResult. */
#ifndef CUTUNE_MEASURE_H
#define CUTUNE_MEASURE_H

#include "cutune/cutune.h"
#include "cutune/op.h"
#include "cutune/plugin.h"
#include "tensor_maps.h"

typedef struct CutuneMeasureSettings {
    int warmup;           /* launches after the check, before timing */
    int min_samples;      /* never fewer samples than this (unless stopped early) */
    int max_samples;      /* never more */
    double max_seconds;   /* timing cap for one config */
    double target_rse;    /* stop when stddev/sqrt(n)/mean falls under this */
    double early_stop;    /* stop sampling when the fastest sample is this many times slower
                             than the best median so far: it cannot win (0 = never) */
    double race;          /* with early stopping on, stop after two samples when the faster
                             is over this many times the best median so far: it cannot win,
                             and its time is known well enough (0 = never) */
    double min_sample_ms; /* launches are batched so that one sample lasts at least this */
    double long_ms;       /* a warm-up launch at least this long (0: none is) is the last
                             warm-up, and long_min_samples replaces min_samples: after the
                             checked launch and one such launch the clocks are up (on an H100
                             the first launch after 3 s idle took at most 1.8% over its steady
                             time from 5 ms up: bench/clock_ramp.py), and one such launch
                             varies little; at 8192^3 fp32 (13.6 ms) each config near the best
                             took 8 launches where 5 tell as much */
    int long_min_samples;
} CutuneMeasureSettings;

void cutune_measure_defaults(CutuneMeasureSettings *s);

typedef struct CutuneEvalInput {
    const CutuneOp *op; /* the contract: arguments, poisoning, check */
    const CutuneHost *host;
    void *state; /* the op's problem state (from setup) */
    const CutuneProblem *problem;
    const CutuneConfig *config;
    const void *cubin;            /* compiled kernel for this config */
    const char *kernel_name;      /* the kernel in it */
    const CutuneLaunch *launch;   /* its geometry (registry.h: cutune_geometry_eval) */
    const CutuneTensorMaps *maps; /* its TMA tensor maps, from the same evaluation, encoded
                                     after the op's arguments (NULL or n 0: none) */
    const CutuneDeviceInfo *device;
    double best_ms; /* best median so far for this problem (0: none) */
    /* A library variant (cutune/plugin.h, ABI 1.5): its library_prepare, then library_run
     * checked and timed in place of a launch; cubin, kernel_name and launch are unused.
     * NULL: the kernel. */
    const CutuneVariant *library;
} CutuneEvalInput;

/* The status of a config whose library_prepare returned rc (< 0): CUTUNE_ERR_RESOURCES
 * (it cannot run this problem here) and CUTUNE_ERR_NOT_FOUND (the library is missing or
 * too old) skip it; anything else is a launch error. */
static inline CutuneStatus cutune_library_refusal(int rc)
{
    return rc == CUTUNE_ERR_RESOURCES || rc == CUTUNE_ERR_NOT_FOUND
               ? CUTUNE_STATUS_SKIPPED_RESOURCES
               : CUTUNE_STATUS_LAUNCH_ERROR;
}

#define CUTUNE_MAX_SAMPLES 1000

typedef struct CutuneEvalResult {
    CutuneStatus status;
    double median_ms, min_ms, mean_ms, stddev_ms;
    int samples;
    int launches_per_sample;
    int stopped_early;
    double error, tolerance; /* from the check */
    double measure_ms;       /* wall time of the whole evaluation */
    int context_lost;        /* a sticky CUDA error: nothing more can run in this process */
    char message[512];
} CutuneEvalResult;

/* Evaluate. Always fills *out; returns 0, or < 0 when the process can no longer use the GPU
 * (out->context_lost is then set and out->status is crashed). */
int cutune_evaluate(const CutuneEvalInput *in, const CutuneMeasureSettings *s,
                    CutuneEvalResult *out);

/* ---- timing.c ---- */

/* Enqueue `reps` calls on the default stream; returns a cudaError_t (0: cudaSuccess). */
typedef int (*CutuneEnqueueFn)(void *user, int reps);
/* Time the calls: warm-up (one launch where it takes long_ms), a batch of calls long enough
 * to time (min_sample_ms), samples
 * until stable (target_rse), max_samples or max_seconds, or (best_ms > 0) until the
 * fastest is early_stop times slower than best_ms, or after two samples whose faster is race
 * times slower. A warm-up launch over early_stop times best_ms, after another (`hopeless` says
 * whether the launch before the call was: 0 or 1), or one that cutune_hopeless finds hopeless
 * alone, is the only sample. Fills the timing fields of *out
 * and sets status ok; a CUDA failure sets the status and message (cutune_launch_failed) and
 * returns < 0 when the context is lost. */
int cutune_time_calls(CutuneEnqueueFn enqueue, void *user, const CutuneMeasureSettings *s,
                      double best_ms, int hopeless, CutuneEvalResult *out);
/* A launch this many times the best so far ends the timing on its own: clocks that ramp up
 * from idle, the reason to wait for a second slow launch, cannot explain that much. */
#define CUTUNE_HOPELESS_ALONE 20.0
/* Nor can they make a launch this long (ms, beyond the allowance) early_stop times slower:
 * on an H100 the first launch after 3 s idle took at most 1.8% over its steady time from 5 ms
 * up (bench/clock_ramp.py; bench/RESULTS.md, clock ramp on H100, 2026-11-26). */
#define CUTUNE_HOPELESS_LONG_MS 20.0
/* Whether a config whose launch took ms cannot win: 0 when it may, 1 when best_ms > 0, early
 * stopping is on and ms is over early_stop * best_ms + allowance_ms (what a first launch may
 * spend on loading), 2 (hopeless alone) when ms is also over CUTUNE_HOPELESS_ALONE * best_ms
 * + allowance_ms or over allowance_ms + CUTUNE_HOPELESS_LONG_MS. */
int cutune_hopeless(double ms, double best_ms, const CutuneMeasureSettings *s, double allowance_ms);
/* Record the last of `launches` (1 or 2) slow launches, ms, as the whole timing of a config cut
 * short (status ok, 1 sample, stopped_early, and a message that says so, with its ratio to
 * best_ms). */
void cutune_single_sample(CutuneEvalResult *out, double ms, int launches, double best_ms,
                          const CutuneMeasureSettings *s);
/* Classify a CUDA failure `when` into *out: crashed with context_lost (returns < 0) when the
 * error is sticky, launch_error (returns 0) otherwise. */
int cutune_launch_failed(CutuneEvalResult *out, int cuda_error, const char *when);
/* Median, mean, standard deviation and minimum of n samples (sorts them in place). */
void cutune_stats(double *samples, int n, double *median, double *mean, double *stddev,
                  double *min);

#endif
