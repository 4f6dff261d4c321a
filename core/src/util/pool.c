/* Fixed thread pool with a FIFO queue. */
#include "pool.h"

#include "cutune/cutune.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

struct CutunePool {
    pthread_mutex_t lock;
    pthread_cond_t work; /* a job was queued, or stop */
    pthread_cond_t done; /* a job finished */
    CutuneJob *head, *tail;
    int pending; /* submitted, not yet run to their end */
    int stop;
    int nthreads;
    pthread_t threads[];
};

static void *worker(void *arg)
{
    CutunePool *p = arg;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->head && !p->stop)
            pthread_cond_wait(&p->work, &p->lock);
        if (!p->head)
            break; /* stop, and the queue is drained */
        CutuneJob *job = p->head;
        p->head = job->next;
        if (!p->head)
            p->tail = NULL;
        pthread_mutex_unlock(&p->lock);
        job->run(job);
        pthread_mutex_lock(&p->lock);
        void (*release)(CutuneJob *) = job->release;
        job->done = 1;
        p->pending--;
        pthread_cond_broadcast(&p->done);
        if (release) { /* given up by its owner: nobody waits on it */
            pthread_mutex_unlock(&p->lock);
            release(job);
            pthread_mutex_lock(&p->lock);
        }
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

int cutune_pool_create(int nthreads, CutunePool **out)
{
    if (nthreads <= 0) {
        /* the CPUs this process may run on (a Slurm task or a container gets a part of the
         * machine's), else the machine's */
        cpu_set_t set;
        long n = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 0;
        if (n <= 0)
            n = sysconf(_SC_NPROCESSORS_ONLN);
        nthreads = n > 0 ? (int)n : 1;
    }
    CutunePool *p = calloc(1, sizeof *p + (size_t)nthreads * sizeof(pthread_t));
    if (!p)
        return CUTUNE_ERR_NOMEM;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->work, NULL);
    pthread_cond_init(&p->done, NULL);
    for (int i = 0; i < nthreads; i++) {
        if (pthread_create(&p->threads[i], NULL, worker, p) != 0)
            break;
        p->nthreads++;
    }
    if (p->nthreads == 0) {
        cutune_pool_destroy(&p);
        return CUTUNE_ERR_NOMEM;
    }
    *out = p;
    return 0;
}

void cutune_pool_submit(CutunePool *p, CutuneJob *job)
{
    job->next = NULL;
    job->done = 0;
    job->release = NULL;
    pthread_mutex_lock(&p->lock);
    if (p->tail)
        p->tail->next = job;
    else
        p->head = job;
    p->tail = job;
    p->pending++;
    pthread_cond_signal(&p->work);
    pthread_mutex_unlock(&p->lock);
}

void cutune_pool_wait(CutunePool *p, CutuneJob *job)
{
    pthread_mutex_lock(&p->lock);
    while (!job->done)
        pthread_cond_wait(&p->done, &p->lock);
    pthread_mutex_unlock(&p->lock);
}

size_t cutune_pool_wait_any(CutunePool *p, CutuneJob *const *jobs, size_t n)
{
    pthread_mutex_lock(&p->lock);
    for (;;) {
        for (size_t i = 0; i < n; i++)
            if (jobs[i] && jobs[i]->done) {
                pthread_mutex_unlock(&p->lock);
                return i;
            }
        pthread_cond_wait(&p->done, &p->lock);
    }
}

int cutune_pool_cancel(CutunePool *p, CutuneJob *job)
{
    pthread_mutex_lock(&p->lock);
    CutuneJob *prev = NULL, *q = p->head;
    while (q && q != job) {
        prev = q;
        q = q->next;
    }
    if (q) {
        if (prev)
            prev->next = q->next;
        else
            p->head = q->next;
        if (p->tail == q)
            p->tail = prev;
        q->next = NULL;
        p->pending--;
    }
    pthread_mutex_unlock(&p->lock);
    return q != NULL;
}

void cutune_pool_release(CutunePool *p, CutuneJob *job, void (*release)(CutuneJob *job))
{
    pthread_mutex_lock(&p->lock);
    int done = job->done;
    if (!done)
        job->release = release;
    pthread_mutex_unlock(&p->lock);
    if (done)
        release(job);
}

void cutune_pool_destroy(CutunePool **pp)
{
    CutunePool *p = *pp;
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->stop = 1;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->lock);
    for (int i = 0; i < p->nthreads; i++)
        pthread_join(p->threads[i], NULL);
    pthread_cond_destroy(&p->done);
    pthread_cond_destroy(&p->work);
    pthread_mutex_destroy(&p->lock);
    free(p);
    *pp = NULL;
}

int cutune_pool_threads(const CutunePool *p)
{
    return p->nthreads;
}

int cutune_pool_pending(CutunePool *p)
{
    pthread_mutex_lock(&p->lock);
    int n = p->pending;
    pthread_mutex_unlock(&p->lock);
    return n;
}
