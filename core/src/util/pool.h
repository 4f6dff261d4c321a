/* A small fixed thread pool: the tuner compiles configs on the CPU cores while the GPU
 * measures. Jobs are owned by the caller, who embeds a CutuneJob in its own struct. */
#ifndef CUTUNE_POOL_H
#define CUTUNE_POOL_H

#include <stddef.h>

typedef struct CutuneJob {
    void (*run)(struct CutuneJob *job);
    struct CutuneJob *next;                 /* queue link, owned by the pool */
    int done;                               /* read through cutune_pool_wait */
    int idle;                               /* queued by cutune_pool_submit_idle */
    void (*release)(struct CutuneJob *job); /* set by cutune_pool_release */
} CutuneJob;

typedef struct CutunePool CutunePool;

/* nthreads <= 0 means one per online CPU. */
int cutune_pool_create(int nthreads, CutunePool **out);
/* Queue a job (job->run set by the caller). */
void cutune_pool_submit(CutunePool *pool, CutuneJob *job);
/* Queue a job for idle time: a thread takes it only when no job of cutune_pool_submit is
 * queued, and idle jobs run on half the threads at most (at least one), so that a job
 * submitted later finds a thread at once (idle jobs run in the order queued, and do not
 * count as pending). release(job) is
 * called once it has run (on the pool's thread), or with job->done 0 when it is dropped
 * unrun (cutune_pool_drop_idle, cutune_pool_destroy); the caller touches it no more. The
 * tuner compiles the configs of the sizes ahead this way (core/src/tuning/prefetch.c). */
void cutune_pool_submit_idle(CutunePool *pool, CutuneJob *job, void (*release)(CutuneJob *job));
/* Drop every idle job not yet started (each released unrun); returns how many. */
int cutune_pool_drop_idle(CutunePool *pool);
/* Block until job has run. */
void cutune_pool_wait(CutunePool *pool, CutuneJob *job);
/* Block until one of the n jobs (n > 0, NULL entries skipped, at least one not NULL) has
 * run; returns the index of the first of them that has. */
size_t cutune_pool_wait_any(CutunePool *pool, CutuneJob *const *jobs, size_t n);
/* Take back a job that is still queued: 1 when it was (it will not run, the caller has it
 * back and must not wait on it), 0 when it is running or has run. */
int cutune_pool_cancel(CutunePool *pool, CutuneJob *job);
/* Give a submitted job up: release(job) is called once it has run (on the pool's thread, or
 * at once on this one when it already has), and the caller touches it no more. A job given
 * up this way holds no thread back from the caller: a search that ends leaves its compiles
 * still running to finish on their own (core/src/tuning/pipeline.h). */
void cutune_pool_release(CutunePool *pool, CutuneJob *job, void (*release)(CutuneJob *job));
/* Finish queued jobs (released ones included) but drop the idle ones, join the threads, free;
 * *pool becomes NULL. */
void cutune_pool_destroy(CutunePool **pool);
int cutune_pool_threads(const CutunePool *pool);
/* Jobs submitted and not yet run to their end (queued or running). */
int cutune_pool_pending(CutunePool *pool);

#endif
