/* The configs in flight (see pipeline.h). */
#include "pipeline.h"

#include <stdlib.h>
#include <string.h>

/* A job in flight, with where its NVRTC time goes should it be abandoned (pipeline_abandon):
 * every job is allocated as one, so that the pool can free it. */
typedef struct Abandoned {
    CutuneCompileJob c; /* first: a job's address is its Abandoned's */
    _Atomic long long *cpu_us;
} Abandoned;

int pipeline_init(TunePipeline *pl, size_t window)
{
    memset(pl, 0, sizeof *pl);
    pl->window = window;
    pl->queue = calloc(window, sizeof *pl->queue);
    pl->jobs = calloc(window, sizeof *pl->jobs);
    return pl->queue && pl->jobs ? 0 : CUTUNE_ERR_NOMEM;
}

void pipeline_free(TunePipeline *pl)
{
    free(pl->queue);
    free(pl->jobs);
    memset(pl, 0, sizeof *pl);
}

CutuneCompileJob *pipeline_slot(TunePipeline *pl)
{
    Abandoned *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    pl->queue[pl->inflight++] = &a->c;
    return &a->c;
}

CutuneCompileJob *pipeline_take(TunePipeline *pl, CutunePool *pool)
{
    for (size_t k = 0; k < pl->inflight; k++)
        pl->jobs[k] = &pl->queue[k]->job;
    size_t k = cutune_pool_wait_any(pool, pl->jobs, pl->inflight);
    CutuneCompileJob *c = pl->queue[k];
    memmove(&pl->queue[k], &pl->queue[k + 1], (pl->inflight - k - 1) * sizeof *pl->queue);
    pl->inflight--;
    return c;
}

void pipeline_release(CutuneCompileJob *c)
{
    cutune_compile_job_clear(c);
    free((Abandoned *)(void *)c);
}

/* An abandoned job that has run: its NVRTC time counted, then freed. */
static void abandoned_done(CutuneJob *job)
{
    Abandoned *a = (Abandoned *)(void *)job;
    if (a->cpu_us)
        atomic_fetch_add(a->cpu_us, (long long)(a->c.bin.compile_ms * 1e3));
    cutune_compile_job_clear(&a->c);
    free(a);
}

void pipeline_abandon(TunePipeline *pl, CutunePool *pool)
{
    for (size_t k = 0; k < pl->inflight; k++) {
        CutuneCompileJob *c = pl->queue[k];
        pl->queue[k] = NULL;
        if (cutune_pool_cancel(pool, &c->job)) {
            pipeline_release(c);
            continue;
        }
        /* compiling, or done: the pool frees it */
        ((Abandoned *)(void *)c)->cpu_us = pl->abandoned_us;
        cutune_pool_release(pool, &c->job, abandoned_done);
    }
    pl->inflight = 0;
}
