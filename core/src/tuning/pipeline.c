/* The configs in flight (see pipeline.h). */
#include "pipeline.h"

#include <stdlib.h>
#include <string.h>

int pipeline_init(TunePipeline *pl, size_t window)
{
    pl->window = window;
    pl->inflight = 0;
    pl->slot = calloc(window, sizeof *pl->slot);
    pl->busy = calloc(window, 1);
    pl->queue = calloc(window, sizeof *pl->queue);
    pl->jobs = calloc(window, sizeof *pl->jobs);
    return pl->slot && pl->busy && pl->queue && pl->jobs ? 0 : CUTUNE_ERR_NOMEM;
}

void pipeline_free(TunePipeline *pl)
{
    free(pl->slot);
    free(pl->busy);
    free(pl->queue);
    free(pl->jobs);
    memset(pl, 0, sizeof *pl);
}

CutuneCompileJob *pipeline_slot(TunePipeline *pl)
{
    size_t k = 0;
    while (pl->busy[k])
        k++;
    pl->busy[k] = 1;
    pl->queue[pl->inflight++] = &pl->slot[k];
    return &pl->slot[k];
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

void pipeline_release(TunePipeline *pl, CutuneCompileJob *c)
{
    cutune_compile_job_clear(c);
    pl->busy[c - pl->slot] = 0;
}
