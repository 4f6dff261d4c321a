/* The configs a job has in flight: up to `window` compile jobs, measured in the order their
 * compiles finish (the earliest proposed among those finished), so that one slow compile
 * holds up nothing and a window of the compile threads + 2 keeps every thread busy (a
 * strategy's proposal then waits for fewer results: bench/pipeline_model.py).
 *
 * A search that ends with configs in flight does not wait for them (pipeline_abandon): the
 * queued ones are taken back, the running ones finish on their own (into the kernel cache)
 * while the GPU goes on. Waiting cost a whole compile each time a search stopped on its
 * plateau: 2-4 s a size of the main job, over a sixth of its wall time on 2 H200s
 * (bench/RESULTS.md, multi-GPU, 2026-11-27). */
#ifndef CUTUNE_TUNING_PIPELINE_H
#define CUTUNE_TUNING_PIPELINE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "compile.h"
#include "pool.h"

typedef struct TunePipeline {
    CutuneCompileJob **queue; /* in flight, in proposal order (each allocated alone) */
    CutuneJob **jobs;         /* scratch for cutune_pool_wait_any */
    size_t window, inflight;
    /* NVRTC milliseconds of abandoned compiles, added as they finish (NULL: not counted) */
    _Atomic long long *abandoned_us;
} TunePipeline;

/* 0, or CUTUNE_ERR_NOMEM (pipeline_free then frees what was made). */
int pipeline_init(TunePipeline *pl, size_t window);
/* Free the pipeline (nothing in flight: take, release or abandon every job first). */
void pipeline_free(TunePipeline *pl);
/* A new job, queued last, for the caller to fill and submit (the caller has checked
 * inflight < window); NULL when out of memory. */
CutuneCompileJob *pipeline_slot(TunePipeline *pl);
/* Wait until a queued job has run and take the earliest queued of those that have (the
 * caller has checked inflight > 0). */
CutuneCompileJob *pipeline_take(TunePipeline *pl, CutunePool *pool);
/* Free a job that pipeline_take gave (cutune_compile_job_clear). */
void pipeline_release(CutuneCompileJob *c);
/* Give up every job in flight at once: those still queued are taken back and freed, those
 * compiling are freed by the pool once done (their NVRTC time added to *abandoned_us). */
void pipeline_abandon(TunePipeline *pl, CutunePool *pool);

#endif
