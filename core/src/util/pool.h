/* A small fixed thread pool: the tuner compiles configs on the CPU cores while the GPU
 * measures. Jobs are owned by the caller, who embeds a CutuneJob in its own struct. */
#ifndef CUTUNE_POOL_H
#define CUTUNE_POOL_H

#include <stddef.h>

typedef struct CutuneJob {
    void (*run)(struct CutuneJob *job);
    struct CutuneJob *next; /* queue link, owned by the pool */
    int done;               /* read through cutune_pool_wait */
} CutuneJob;

typedef struct CutunePool CutunePool;

/* nthreads <= 0 means one per online CPU. */
int cutune_pool_create(int nthreads, CutunePool **out);
/* Queue a job (job->run set by the caller). */
void cutune_pool_submit(CutunePool *pool, CutuneJob *job);
/* Block until job has run. */
void cutune_pool_wait(CutunePool *pool, CutuneJob *job);
/* Block until one of the n jobs (n > 0, NULL entries skipped, at least one not NULL) has
 * run; returns the index of the first of them that has. */
size_t cutune_pool_wait_any(CutunePool *pool, CutuneJob *const *jobs, size_t n);
/* Finish queued jobs, join the threads, free; *pool becomes NULL. */
void cutune_pool_destroy(CutunePool **pool);
int cutune_pool_threads(const CutunePool *pool);
/* Jobs submitted and not yet run to their end (queued or running). */
int cutune_pool_pending(CutunePool *pool);

#endif
