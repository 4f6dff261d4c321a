/* The configs a job has in flight: up to `window` compile jobs, measured in the order their
 * compiles finish (the earliest proposed among those finished), so that one slow compile
 * holds up nothing and a window of the compile threads + 2 keeps every thread busy (a
 * strategy's proposal then waits for fewer results: bench/pipeline_model.py). */
#ifndef CUTUNE_TUNING_PIPELINE_H
#define CUTUNE_TUNING_PIPELINE_H

#include <stddef.h>
#include <stdint.h>

#include "compile.h"
#include "pool.h"

typedef struct TunePipeline {
    CutuneCompileJob *slot;   /* window of them */
    uint8_t *busy;            /* per slot */
    CutuneCompileJob **queue; /* the busy slots, in proposal order */
    CutuneJob **jobs;         /* scratch for cutune_pool_wait_any */
    size_t window, inflight;
} TunePipeline;

/* 0, or CUTUNE_ERR_NOMEM (pipeline_free then frees what was made). */
int pipeline_init(TunePipeline *pl, size_t window);
void pipeline_free(TunePipeline *pl);
/* A free slot, queued last, for the caller to fill and submit (the caller has checked
 * inflight < window). */
CutuneCompileJob *pipeline_slot(TunePipeline *pl);
/* Wait until a queued job has run and take the earliest queued of those that have (the
 * caller has checked inflight > 0). */
CutuneCompileJob *pipeline_take(TunePipeline *pl, CutunePool *pool);
/* Free a slot that pipeline_take gave (cutune_compile_job_clear). */
void pipeline_release(TunePipeline *pl, CutuneCompileJob *c);

#endif
