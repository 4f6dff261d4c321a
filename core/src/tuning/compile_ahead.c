/* Compiles ahead of need. A size's warm phase measures its warm start and probes first
 * (tune_warm_list), and before its first fresh config can be measured the GPU waits for its
 * compile: on one H200 the main job's trials had 25 s of gaps in warm phases, of a 126 s run.
 * Meanwhile the compile threads sit idle whenever a size is bound by the GPU (8192x8192x8192
 * in FP32 measures for over 20 s and compiles about 20 configs). With compiles ahead the GPU
 * waited on compiles 56.0 s of the main job's 122.7 s, against 75.3 s of 139.1 s without, one
 * run after the other on one H200 (bench/RESULTS.md, main job on H200, 2026-11-28).
 *
 * So a planner thread, with a database connection of its own, opens the jobs of the sizes
 * next in line (tune_job_peek), takes the configs that their warm phases will measure, and
 * queues their compiles as the pool's idle jobs: they run only on threads that no search
 * needs, into the kernel cache, where the size's own compiles find them (a compile in
 * flight is waited for, not made twice: compile.c). The planner keeps AHEAD sizes more
 * than the lanes planned and not yet taken, in the order the lanes take them, and plans a
 * size that a lane took before the planner came to it (the first: its warm start's compiles
 * go ahead while the lane sets the size up and times the yardstick); the idle
 * queue is dropped at the run's end. A size's warm list can differ from the planned one
 * only by what the database learned in between (the winners of sizes done since, which are
 * in the cache already). CUTUNE_COMPILE_AHEAD=0 in the environment turns it off (to
 * measure what it brings). */
#include "compile_ahead.h"

#include "compile_proc.h"
#include "util.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

enum { AHEAD = 2 };

struct TuneAhead {
    TuneRun *run;
    TuneLane lane; /* the first lane's device and limits, with a database connection of its own */
    pthread_t thread;
    int stop; /* under run->mu */
};

/* A compile ahead in the pool's idle queue: freed once run (or dropped unrun). */
typedef struct AheadJob {
    CutuneCompileJob c; /* first: the pool's handle */
    TuneRun *run;
} AheadJob;

static void ahead_done(CutuneJob *job)
{
    AheadJob *a = (AheadJob *)(void *)job;
    if (job->done && a->c.bin.cubin && !a->c.bin.from_cache) {
        atomic_fetch_add(&a->run->ahead_compiled, 1);
        atomic_fetch_add(&a->run->ahead_us, (long long)(a->c.bin.compile_ms * 1e3));
    }
    cutune_compile_job_clear(&a->c);
    free(a);
}

/* Queue the compiles of what job j's warm phase will measure: none for a job tuned before
 * (its size re-times its best, or its warm phase is left out: tune_size.c), a library
 * variant, or a run measuring every config in the space file's order. */
static void plan_job(TuneAhead *pf, TuneJob *j)
{
    TuneRun *r = pf->run;
    const char *strategy = r->o->strategy;
    size_t *list = NULL, n = 0;
    CutuneError err = {0};
    if (!j->tv->p->source || j->tuned_before || (strategy && !strcmp(strategy, "exhaustive")) ||
        tune_warm_list(&pf->lane, j, &list, &n, &err) != 0)
        return;
    int arch = cutune_variant_arch(j->tv->p, pf->lane.arch);
    for (size_t i = 0; i < n; i++) {
        if (j->kstatus[list[i]] != 0)
            continue; /* measured before: nothing to compile */
        AheadJob *a = calloc(1, sizeof *a);
        if (!a)
            break;
        a->run = r;
        cutune_compile_job_init(&a->c, j->tv->p->source, j->tv->p->kernel_name, j->tv->sp,
                                j->cl.values + list[i] * j->cl.nparams, &j->ts->prob, arch,
                                r->cache_dir, list[i]);
        a->c.runner = cutune_compile_runner();
        a->c.ahead = 1;
        cutune_pool_submit_idle(r->pool, &a->c.job, ahead_done);
    }
    free(list);
}

static void plan_size(TuneAhead *pf, TuneSize *ts)
{
    for (size_t v = 0; v < ts->nvariants; v++) {
        TuneJob j;
        CutuneError err = {0};
        if (tune_job_peek(&pf->lane, ts, ts->variants[v], &j, &err) == 0 && j.cl.nconfigs)
            plan_job(pf, &j);
        tune_job_close(&j);
    }
}

/* Sizes planned and not yet taken by a lane (r->mu held). */
static int planned_waiting(const TuneRun *r)
{
    int n = 0;
    for (size_t i = 0; i < r->nsizes; i++)
        n += r->sizes[i].planned && r->sizes[i].state == TUNE_SIZE_WAITING;
    return n;
}

static void *planner(void *arg)
{
    TuneAhead *pf = arg;
    TuneRun *r = pf->run;
    pthread_mutex_lock(&r->mu);
    while (!pf->stop && !(r->o->stop && *r->o->stop)) {
        TuneSize *ts = NULL; /* a size a lane has just taken (the first ones) */
        for (size_t i = 0; !ts && i < r->nsizes; i++)
            if (r->sizes[i].state == TUNE_SIZE_RUNNING && !r->sizes[i].planned)
                ts = &r->sizes[i];
        if (!ts && !(ts = tune_next_size(r, 1)))
            break; /* every size is planned, or done */
        if (ts->state == TUNE_SIZE_WAITING && planned_waiting(r) >= AHEAD) {
            tune_wait_changed(r);
            continue;
        }
        ts->planned = 1;
        pthread_mutex_unlock(&r->mu);
        plan_size(pf, ts);
        pthread_mutex_lock(&r->mu);
    }
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

TuneAhead *tune_ahead_start(TuneRun *r)
{
    const char *env = getenv("CUTUNE_COMPILE_AHEAD");
    if ((env && strcmp(env, "0") == 0) || r->nlanes < 1 || !r->pool)
        return NULL;
    TuneAhead *pf = calloc(1, sizeof *pf);
    if (!pf)
        return NULL;
    const TuneLane *l0 = &r->lanes[0];
    pf->run = r;
    pf->lane.run = r;
    pf->lane.device = l0->device;
    pf->lane.dev = l0->dev;
    pf->lane.limits = l0->limits;
    pf->lane.arch = l0->arch;
    CutuneError err = {0};
    if (cutune_db_open(r->sum->db_path, 0, &pf->lane.db, &err) != 0 ||
        cutune_db_device(pf->lane.db, &pf->lane.dev, &pf->lane.device_id, &err) != 0 ||
        pthread_create(&pf->thread, NULL, planner, pf) != 0) {
        cutune_db_close(&pf->lane.db); /* no compiles ahead: the run goes on without */
        free(pf);
        return NULL;
    }
    return pf;
}

void tune_ahead_stop(TuneAhead **pp)
{
    TuneAhead *pf = *pp;
    if (!pf)
        return;
    TuneRun *r = pf->run;
    pthread_mutex_lock(&r->mu);
    pf->stop = 1;
    pthread_cond_broadcast(&r->changed);
    pthread_mutex_unlock(&r->mu);
    pthread_join(pf->thread, NULL);
    cutune_pool_drop_idle(r->pool);
    cutune_db_close(&pf->lane.db);
    free(pf);
    *pp = NULL;
}
