/* Fixed thread pool with a FIFO queue, and a second FIFO queue of idle-time jobs that a
 * thread takes only when the first is empty. */
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
    CutuneJob *idle_head, *idle_tail; /* cutune_pool_submit_idle's */
    int pending;                      /* submitted, not yet run to their end */
    int idle_running; /* idle jobs running now: at most half the threads (at least one), so
                         that a job of the first queue finds a thread at once */
    int stop;
    int nthreads;
    pthread_t threads[];
};

static void *worker(void *arg)
{
    CutunePool *p = arg;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->head && !(p->idle_head && 2 * p->idle_running < p->nthreads) && !p->stop)
            pthread_cond_wait(&p->work, &p->lock);
        CutuneJob *job = p->head;
        if (job) {
            p->head = job->next;
            if (!p->head)
                p->tail = NULL;
        } else if (!p->stop && (job = p->idle_head)) { /* within its share (the wait above) */
            p->idle_head = job->next;
            if (!p->idle_head)
                p->idle_tail = NULL;
            p->idle_running++;
        } else {
            break; /* stop, and the queue is drained (the idle queue is dropped) */
        }
        pthread_mutex_unlock(&p->lock);
        job->run(job);
        pthread_mutex_lock(&p->lock);
        void (*release)(CutuneJob *) = job->release;
        job->done = 1;
        p->pending -= !job->idle;
        if (job->idle) {
            p->idle_running--;
            if (p->idle_head)
                pthread_cond_signal(&p->work); /* its share of the threads is free again */
        }
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

/* Queue job at the end of the list head..tail (the idle one when idle), and wake a thread. */
static void enqueue(CutunePool *p, CutuneJob *job, int idle, void (*release)(CutuneJob *job))
{
    job->next = NULL;
    job->done = 0;
    job->idle = idle;
    job->release = release;
    pthread_mutex_lock(&p->lock);
    CutuneJob **head = idle ? &p->idle_head : &p->head, **tail = idle ? &p->idle_tail : &p->tail;
    if (*tail)
        (*tail)->next = job;
    else
        *head = job;
    *tail = job;
    p->pending += !idle;
    pthread_cond_signal(&p->work);
    pthread_mutex_unlock(&p->lock);
}

void cutune_pool_submit(CutunePool *p, CutuneJob *job)
{
    enqueue(p, job, 0, NULL);
}

void cutune_pool_submit_idle(CutunePool *p, CutuneJob *job, void (*release)(CutuneJob *job))
{
    enqueue(p, job, 1, release);
}

int cutune_pool_drop_idle(CutunePool *p)
{
    pthread_mutex_lock(&p->lock);
    CutuneJob *q = p->idle_head;
    p->idle_head = p->idle_tail = NULL;
    pthread_mutex_unlock(&p->lock);
    int n = 0;
    while (q) {
        CutuneJob *next = q->next;
        q->release(q); /* never ran: done stays 0 */
        q = next;
        n++;
    }
    return n;
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
    cutune_pool_drop_idle(p);
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
