/* Everything one lane does for one size: the yardstick, the warm start of every variant,
 * then the size's share of the budget spent on the variants that can still win; or, when
 * an earlier run tuned every variant of the size, only its best re-timed. */
#include "tune_int.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The warm start may use this part of a size's share; the search gets the rest. */
#define WARM_PART 0.5

static void set_doing(TuneLane *l, const char *fmt, const char *a, const char *b, const char *c)
{
    pthread_mutex_lock(&l->run->mu);
    snprintf(l->doing, sizeof l->doing, fmt, a, b, c);
    pthread_mutex_unlock(&l->run->mu);
}

/* The earlier of two deadlines, 0 meaning none. */
static double earlier(double a, double b)
{
    if (!(a > 0))
        return b;
    if (!(b > 0))
        return a;
    return a < b ? a : b;
}

static int begin_search(TuneLane *l, TuneJob *j, const char *strategy, CutuneError *err)
{
    if (j->search_id)
        return 0;
    CutuneSearchInfo s = {
        .run_id = l->run->run_id,
        .device_id = l->device_id,
        .variant_id = j->variant_id,
        .problem_id = j->problem_id,
        .strategy = strategy,
        .nvalid = j->cl.nconfigs,
    };
    return cutune_db_search_begin(l->db, &s, &j->search_id, err);
}

static int end_search(TuneLane *l, TuneJob *j, const char *status, CutuneError *err)
{
    if (!j->search_id)
        return 0;
    snprintf(j->row->ended, sizeof j->row->ended, "%s", status);
    int rc = cutune_db_search_end(l->db, j->search_id, status, j->row->strategy, j->row->evaluated,
                                  j->spent_s, err);
    CutuneTuneEvent e = {
        .type = CUTUNE_EVENT_SEARCH,
        .op = j->tv->p->op_name,
        .size = j->ts->size,
        .variant = j->tv->p->name,
        .message = status,
        .evaluated = j->row->evaluated,
        .nvalid = j->cl.nconfigs,
        .strategy = j->row->strategy,
        .median_ms = j->best_ms,
    };
    tune_emit(l->run, &e);
    j->search_id = 0;
    return rc;
}

/* The args of a strategy over a job: its warm start first. */
static CutuneStrategyArgs job_args(const TuneRun *r, const TuneJob *j, size_t budget)
{
    size_t n = j->cl.nconfigs;
    return (CutuneStrategyArgs){
        .space = j->tv->sp,
        .configs = &j->cl,
        .seed = r->o->seed,
        .budget = budget && budget < n ? budget : n,
        .parallel = (size_t)r->window,
        .start = j->warm,
        .nstart = j->nwarm,
    };
}

static int run_phase(TuneLane *l, TuneJob *j, const CutuneStrategyOps *ops, size_t budget,
                     double deadline, size_t patience, size_t late_patience, size_t since_gain,
                     const char *phase, TuneEnd *end, CutuneError *err)
{
    const CutuneTuneOptions *o = l->run->o;
    CutuneStrategyArgs a = job_args(l->run, j, budget);
    TuneLimits lim = {.deadline = deadline,
                      .patience = patience,
                      .late_patience = late_patience,
                      .since_gain = since_gain,
                      .phase = phase};
    if (o->budget) {
        if (j->row->evaluated >= o->budget) {
            *end = TUNE_END_EVALS;
            return 0;
        }
        lim.max_evals = o->budget - j->row->evaluated;
    }
    if (o->job_time_s > 0) {
        double left = o->job_time_s - j->spent_s;
        if (left <= 0) {
            *end = TUNE_END_TIME;
            return 0;
        }
        lim.deadline = earlier(lim.deadline, cutune_now() + left);
    }
    return tune_job_run(l, j, ops, &a, &lim, end, err);
}

/* The warm start, and random probes for a variant with little of it (tune_warm_list): the
 * first nlist configs of the list; those measured already cost nothing. */
static int warm_phase(TuneLane *l, TuneJob *j, size_t *list, size_t nlist, double deadline,
                      CutuneError *err)
{
    int rc;
    CutuneStrategyArgs a = job_args(l->run, j, nlist);
    a.start = list;
    a.nstart = nlist;
    snprintf(j->row->strategy, sizeof j->row->strategy, "warm start");
    TuneEnd end;
    TuneLimits lim = {.deadline = deadline, .phase = "warm start"};
    size_t budget = l->run->o->budget; /* what the phases before left of it */
    if (budget && j->row->evaluated >= budget)
        return 0;
    if (budget)
        lim.max_evals = budget - j->row->evaluated;
    rc = begin_search(l, j, "warm start", err);
    if (rc == 0 && nlist > 0)
        rc = tune_job_run(l, j, &tune_list_strategy, &a, &lim, &end, err);
    return rc;
}

/* A tuned key's imported configs (see TuneJob.imported), measured alone. */
static int imported_phase(TuneLane *l, TuneJob *j, double deadline, CutuneError *err)
{
    CutuneStrategyArgs a = job_args(l->run, j, j->nimported);
    a.start = j->imported;
    a.nstart = j->nimported;
    TuneEnd end;
    TuneLimits lim = {.deadline = deadline, .phase = "imported"};
    int rc = begin_search(l, j, "imported", err);
    return rc ? rc : tune_job_run(l, j, &tune_list_strategy, &a, &lim, &end, err);
}

/* The order in which variants show their level: the likely winner first (its times make
 * the others' hopeless configs stop early): by how close each came to the best at the
 * last size, then by the best each has here (the first config of each, see warm_all), then
 * those with a known-good list, then the larger spaces. */
static int likely_first(const void *pa, const void *pb, void *jobs)
{
    const TuneJob *a = (const TuneJob *)jobs + *(const size_t *)pa;
    const TuneJob *b = (const TuneJob *)jobs + *(const size_t *)pb;
    double ra = a->tv->last_rel, rb = b->tv->last_rel;
    if ((ra > 0) != (rb > 0))
        return ra > 0 ? -1 : 1;
    if (ra > 0 && ra != rb)
        return ra < rb ? -1 : 1;
    double ba = a->best_ms, bb = b->best_ms;
    if ((ba > 0) != (bb > 0))
        return ba > 0 ? -1 : 1;
    if (ba > 0 && ba != bb)
        return ba < bb ? -1 : 1;
    int ka = a->tv->known_path[0] != 0, kb = b->tv->known_path[0] != 0;
    if (ka != kb)
        return kb - ka;
    return (a->cl.nconfigs < b->cl.nconfigs) - (a->cl.nconfigs > b->cl.nconfigs);
}

/* Whether a job has a warm start to run: exhaustive, when asked for, is every config in the
 * order of the space file. */
static int warms(const CutuneTuneOptions *o, const TuneJob *j)
{
    return !j->tuned_before && j->cl.nconfigs > 0 &&
           !(o->strategy && strcmp(o->strategy, "exhaustive") == 0);
}

/* The warm start of every variant, the likely winner first (likely_first), each past its
 * first configs only while it may still win (cutune_schedule_warm_on). Where two or more
 * have no level known from a size done before (a lane's first size: with several GPUs, each
 * of the run's costliest sizes), each measures its first config before any measures more:
 * at 8192^3 fp32 on 2 x H200 (2026-11-28), matmul_async's and matmul_warptile's warm starts,
 * measured first, took 10.7 s at 22-100 ms a launch, none of it stopped early, before the
 * 3xTF32 variants' 13.6 ms made such configs hopeless. */
static int warm_all(TuneLane *l, TuneJob *jobs, size_t njobs, double deadline, CutuneError *err)
{
    TuneRun *r = l->run;
    const CutuneTuneOptions *o = r->o;
    size_t *order = calloc(njobs ? njobs : 1, sizeof *order), unknown = 0;
    size_t **lists = calloc(njobs ? njobs : 1, sizeof *lists);
    size_t *nlists = calloc(njobs ? njobs : 1, sizeof *nlists);
    int rc = order && lists && nlists ? 0 : cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
    /* each list made once: made again after some of it was measured, it would draw new
     * random probes in place of those */
    for (size_t i = 0; i < njobs && rc == 0; i++)
        if (warms(o, &jobs[i]))
            rc = tune_warm_list(l, &jobs[i], &lists[i], &nlists[i], err);
    /* the jobs whose level no size done before shows, first in order[] */
    pthread_mutex_lock(&r->mu); /* last_rel is written under it by other lanes */
    for (size_t i = 0; rc == 0 && i < njobs; i++)
        if (warms(o, &jobs[i]) && nlists[i] > 0 && !(jobs[i].tv->last_rel > 0))
            order[unknown++] = i;
    pthread_mutex_unlock(&r->mu);
    for (size_t k = 0; unknown > 1 && k < unknown && rc == 0 && !(o->stop && *o->stop); k++) {
        TuneJob *j = &jobs[order[k]];
        set_doing(l, "%s %s: %s", j->tv->p->name, j->ts->size, "warm start");
        rc = warm_phase(l, j, lists[order[k]], 1, deadline, err);
    }
    if (rc == 0) {
        for (size_t i = 0; i < njobs; i++)
            order[i] = i;
        pthread_mutex_lock(&r->mu);
        qsort_r(order, njobs, sizeof *order, likely_first, jobs);
        pthread_mutex_unlock(&r->mu);
    }
    for (size_t k = 0; rc == 0 && k < njobs && !(o->stop && *o->stop); k++) {
        size_t i = order[k];
        TuneJob *j = &jobs[i];
        if (!warms(o, j))
            continue;
        set_doing(l, "%s %s: %s", j->tv->p->name, j->ts->size, "warm start");
        /* its first configs, then more while it may still win (cutune_schedule_warm_on) */
        const size_t upto[3] = {CUTUNE_WARM_EARLY, CUTUNE_WARM_SHOWN, nlists[i]};
        size_t shown = 0;
        for (int s = 0; s < 3 && rc == 0 && shown < nlists[i] && !(o->stop && *o->stop); s++) {
            pthread_mutex_lock(&r->mu);
            int on = shown == 0 || cutune_schedule_warm_on(j->best_ms, j->ts->out->best_ms, shown);
            pthread_mutex_unlock(&r->mu);
            if (!on)
                break;
            shown = upto[s] < nlists[i] ? upto[s] : nlists[i];
            rc = warm_phase(l, j, lists[i], shown, deadline, err);
        }
    }
    for (size_t i = 0; lists && i < njobs; i++)
        free(lists[i]);
    free(lists);
    free(nlists);
    free(order);
    return rc;
}

/* The job of the size's best config (NULL: nothing verified). */
static TuneJob *best_job(TuneJob *jobs, size_t njobs)
{
    TuneJob *j = NULL;
    for (size_t i = 0; i < njobs; i++)
        if (jobs[i].best_ms > 0 && (!j || jobs[i].best_ms < j->best_ms))
            j = &jobs[i];
    return j;
}

/* Measure the size's best config again, once; say so where it came out slower than
 * recorded (note: the best is from an earlier run). */
static int retime_best(TuneLane *l, TuneJob *jobs, size_t njobs, int note, CutuneError *err)
{
    TuneJob *j = best_job(jobs, njobs);
    if (!j)
        return 0;
    size_t idx = (size_t)j->best_idx;
    uint8_t s = j->kstatus[idx];
    double ms = j->kms[idx], before = j->best_ms;
    j->kstatus[idx] = 0; /* unknown for this one measurement */
    j->nknown--;
    CutuneStrategyArgs a = job_args(l->run, j, 1);
    a.start = &idx;
    a.nstart = 1;
    TuneLimits lim = {.phase = "re-time"};
    TuneEnd end;
    snprintf(j->row->strategy, sizeof j->row->strategy, "re-time");
    int rc = tune_job_run(l, j, &tune_list_strategy, &a, &lim, &end, err);
    TuneRun *r = l->run;
    pthread_mutex_lock(&r->mu);
    if (j->kstatus[idx] == 1 + CUTUNE_STATUS_OK)
        j->ts->out->retimed_ms = j->kms[idx];
    else if (!j->kstatus[idx]) { /* not measured (stopped): keep what was known */
        j->kstatus[idx] = s;
        j->kms[idx] = ms;
        j->nknown++;
    }
    pthread_mutex_unlock(&r->mu);
    if (note && j->ts->out->retimed_ms > 0 && before > 0 && j->ts->out->retimed_ms > 1.05 * before)
        tune_note(r,
                  "%s %s: the best config re-timed at %.4g ms, %.0f%% slower than the %.4g "
                  "ms recorded; `--retune` searches again",
                  j->tv->p->name, j->ts->size, j->ts->out->retimed_ms,
                  100 * (j->ts->out->retimed_ms / before - 1), before);
    return rc;
}

/* The op's yardstick at j's size, into the size's line: 0 when it was timed, else why not
 * (CUTUNE_ERR_NOT_FOUND: no vendor library for this op here, which the summary says). A
 * worker that ended during it (CUTUNE_ERR_IO: a crash, or killed) was replaced with the
 * size set up again (cutune_worker_yardstick), and is asked once more: in a 4-GPU run with a
 * worker killed 30 s in, a size lost its ratio and a re-time that way (bench/RESULTS.md,
 * multi-GPU, 2026-11-28, c19a332). */
static int yardstick(TuneLane *l, TuneJob *j)
{
    TuneRun *r = l->run;
    CutuneError e = {0};
    char name[64];
    double ms = 0;
    int samples = 0, rc = CUTUNE_ERR_IO;
    for (int tries = 0; tries < 2 && rc == CUTUNE_ERR_IO; tries++) {
        if ((rc = tune_lane_setup(l, j, &e)) != 0)
            return rc;
        double t0 = cutune_now();
        rc = cutune_worker_yardstick(l->worker, name, sizeof name, &ms, &samples, &e);
        l->t_measure += cutune_now() - t0;
    }
    if (rc != 0 || !(ms > 0))
        return rc ? rc : CUTUNE_ERR_NOT_FOUND;
    cutune_db_yardstick_add(l->db, r->run_id, l->device_id, j->problem_id, name, ms, samples, NULL);
    pthread_mutex_lock(&r->mu);
    snprintf(j->ts->out->yardstick, sizeof j->ts->out->yardstick, "%s", name);
    j->ts->out->yardstick_ms = ms;
    pthread_mutex_unlock(&r->mu);
    return 0;
}

/* The best and the yardstick timed again back to back once the search is over, PAIRS times
 * in turn, each the faster of its timings: the ratio the size reports
 * (cutune_tune_size_ratio). Timed once at the size's start, the yardstick can find the GPU's
 * clocks low after a wait on compiles (a 10 us yardstick came out 0.0133 and 0.0100 ms in
 * two runs), the best is the fastest of many measurements, and one timing of a 25 us kernel
 * can still be 40% off (2048^3 bf16 on 2 x H200: 0.0344 ms, then 0.0246 on the other GPU).
 * The yardstick's last row is the size's latest, which lookups compare with. */
#define PAIRS 2
static int pair_best(TuneLane *l, TuneJob *jobs, size_t njobs, CutuneError *err)
{
    TuneJob *best = best_job(jobs, njobs);
    if (!best)
        return 0;
    CutuneTuneSize *out = jobs[0].ts->out;
    TuneRun *r = l->run;
    double retimed = 0, yard = 0;
    pthread_mutex_lock(&r->mu);
    double first = out->yardstick_ms; /* the size's start's, kept if none is timed now */
    pthread_mutex_unlock(&r->mu);
    int rc = 0;
    for (int k = 0; k < PAIRS && rc == 0 && !(r->o->stop && *r->o->stop); k++) {
        /* the summary's row stays the search's (its counts, how it was searched); the
         * re-time is a trial of its own, and the size's line reports it */
        CutuneTuneRow search = *best->row;
        pthread_mutex_lock(&r->mu);
        out->retimed_ms = 0;
        pthread_mutex_unlock(&r->mu);
        rc = retime_best(l, jobs, njobs, 0, err);
        pthread_mutex_lock(&r->mu);
        CutuneTuneRow *row = best->row;
        search.best_ms = row->best_ms;
        search.best_gflops = row->best_gflops;
        search.best_gbps = row->best_gbps;
        memcpy(search.best_config, row->best_config, sizeof search.best_config);
        *row = search;
        double ms = out->retimed_ms;
        pthread_mutex_unlock(&r->mu);
        if (rc || !(ms > 0))
            break;
        retimed = retimed > 0 && retimed < ms ? retimed : ms;
        pthread_mutex_lock(&r->mu);
        out->yardstick_ms = 0;
        pthread_mutex_unlock(&r->mu);
        if (yardstick(l, &jobs[0]) != 0)
            break;
        pthread_mutex_lock(&r->mu);
        ms = out->yardstick_ms;
        pthread_mutex_unlock(&r->mu);
        yard = yard > 0 && yard < ms ? yard : ms;
    }
    pthread_mutex_lock(&r->mu);
    out->retimed_ms = retimed;
    out->yardstick_ms = yard > 0 ? yard : first;
    pthread_mutex_unlock(&r->mu);
    return rc;
}

/* exhaustive, named by the user, is every config: the run's --time (checked up front) is
 * its only limit, never a share of it that the cost model estimated */
static int every_config(const CutuneTuneOptions *o)
{
    return o->strategy && strcmp(o->strategy, "exhaustive") == 0;
}

/* The share of the size's time left for each job, by what it may still win (by the
 * scheduler's judgement for its own searches; a strategy the user named runs its course in
 * every variant, and a job its share ended too soon gets more in the next round). */
static void split_time(TuneRun *r, TuneJob *jobs, size_t n, double time, double eval_s, int round,
                       double *share)
{
    double *need = calloc(n ? n : 1, sizeof *need), *promise = calloc(n ? n : 1, sizeof *promise);
    if (!need || !promise) {
        for (size_t i = 0; i < n; i++)
            share[i] = 0;
        free(need);
        free(promise);
        return;
    }
    pthread_mutex_lock(&r->mu);
    double best = jobs[0].ts->out->best_ms;
    pthread_mutex_unlock(&r->mu);
    for (size_t i = 0; i < n; i++) {
        TuneJob *j = &jobs[i];
        size_t left = j->finished || j->tuned_before ? 0 : j->cl.nconfigs - j->nknown;
        need[i] = (double)left * eval_s;
        /* a named strategy: every variant with configs left; else, after the first round,
         * time left over goes only to variants that may still win (a size whose searches
         * have ended gives it back to the run) */
        if (r->o->strategy) {
            promise[i] = left > 0;
            continue;
        }
        promise[i] = cutune_schedule_promise(j->best_ms, best, left);
        if (round > 0 && promise[i] < 1)
            promise[i] = 0;
    }
    cutune_schedule_split(need, promise, n, time, share);
    free(need);
    free(promise);
}

/* One round over the variants that may still win, each with its share of the time left;
 * with judge >= 0 (several GPUs, see tune_size_run), shares of judge, the time one GPU
 * would have left for the size: they set how much each variant measures, whether its space
 * is measured whole and when a search that runs late ends, as on one GPU. */
static int search_round(TuneLane *l, TuneJob *jobs, size_t n, double size_deadline, double judge,
                        double eval_s, int round, size_t *measured, CutuneError *err)
{
    TuneRun *r = l->run;
    const CutuneTuneOptions *o = r->o;
    double *share = calloc(n ? n : 1, sizeof *share);
    size_t *order = calloc(n ? n : 1, sizeof *order);
    int rc = 0;
    if (!share || !order) {
        rc = cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
        goto out;
    }
    double time = size_deadline <= 0 ? INFINITY : judge >= 0 ? judge : size_deadline - cutune_now();
    if (size_deadline > 0)
        split_time(r, jobs, n, time, eval_s, round, share);
    for (size_t i = 0; i < n; i++) {
        TuneJob *j = &jobs[i];
        int open = !j->finished && !j->tuned_before && j->nknown < j->cl.nconfigs;
        share[i] = !open ? 0 : size_deadline > 0 ? share[i] : INFINITY;
        order[i] = i;
    }
    /* the smallest needs first: what they leave goes to the larger searches */
    for (size_t a = 1; a < n; a++)
        for (size_t b = a; b > 0; b--) {
            const TuneJob *x = &jobs[order[b - 1]], *y = &jobs[order[b]];
            if (x->cl.nconfigs - x->nknown <= y->cl.nconfigs - y->nknown)
                break;
            size_t t = order[b];
            order[b] = order[b - 1];
            order[b - 1] = t;
        }
    for (size_t k = 0; k < n && rc == 0 && !(o->stop && *o->stop); k++) {
        TuneJob *j = &jobs[order[k]];
        if (!(share[order[k]] > 0))
            continue;
        if (size_deadline > 0 && cutune_now() >= size_deadline)
            break;
        size_t left = j->cl.nconfigs - j->nknown;
        double need = (double)left * eval_s;
        pthread_mutex_lock(&r->mu);
        double size_best = j->ts->out->best_ms;
        pthread_mutex_unlock(&r->mu);
        double promise = cutune_schedule_promise(j->best_ms, size_best, left);
        /* a leader's space whose rest fits its part is measured whole, in the default
         * search's order (the likely winners first, not the space file's), then the file's
         * order for whatever the search left; a larger one, or a trailing variant's, is
         * searched */
        int whole = !o->strategy &&
                    (size_deadline <= 0 ||
                     cutune_schedule_whole(need, share[order[k]], j->best_ms, size_best));
        const char *sname = o->strategy ? o->strategy : cutune_strategy_default_search;
        const CutuneStrategyOps *ops = cutune_strategy_find(sname);
        snprintf(j->row->strategy, sizeof j->row->strategy, "%s%s", sname, whole ? ", all" : "");
        set_doing(l, "%s %s: %s", j->tv->p->name, j->ts->size, j->row->strategy);
        size_t plan = whole ? j->cl.nconfigs
                            : j->nknown + (isfinite(share[order[k]]) && eval_s > 0
                                               ? (size_t)(share[order[k]] / eval_s) + 1
                                               : left);
        /* several GPUs too: a job that runs past its share ends as on one GPU (the late
         * patience below), or the searches would only stop at the size's wall-time deadline */
        double deadline = isfinite(share[order[k]]) && !every_config(o)
                              ? cutune_now() + share[order[k]]
                              : 0;
        size_t before = j->row->evaluated;
        TuneEnd end = TUNE_END_DONE;
        /* a search the scheduler chose ends once it stops finding better configs, and gives
         * its time back; one the user named, or one over the whole space, runs its course */
        size_t patience = cutune_schedule_patience((size_t)r->window, promise);
        /* a whole space that turns out slower to measure than the cost model said takes up
         * the same patience once it cannot finish in its time */
        size_t late = o->strategy ? 0 : patience;
        if (o->strategy)
            patience = 0;
        else if (whole) /* a whole space ends on a long plateau too */
            patience = cutune_schedule_whole_patience(patience, j->cl.nconfigs);
        rc = begin_search(l, j, j->row->strategy, err);
        if (rc == 0)
            rc = run_phase(l, j, ops, plan, earlier(deadline, size_deadline), patience, late,
                           round > 0 ? j->since_gain : 0, "search", &end, err);
        /* the rest of a whole space, in the file's order, and a search that a later round
         * goes on with, count the measurements without a gain that the search made (without
         * that, on 4 H200s, matmul_3xtf32 at 8192^3 found its best in its 11th config and
         * measured 525 more, round after round, until its share ran out: bench/RESULTS.md,
         * multi-GPU, 2026-11-27) */
        if (rc == 0 && whole && end == TUNE_END_DONE && j->nknown < j->cl.nconfigs)
            rc = run_phase(l, j, &cutune_strategy_exhaustive, j->cl.nconfigs,
                           earlier(deadline, size_deadline), patience, late, j->since_gain,
                           "search", &end, err);
        *measured += j->row->evaluated - before;
        if (rc == 0 && (end == TUNE_END_DONE || end == TUNE_END_EVALS || end == TUNE_END_STALLED))
            j->finished = 1;
    }
out:
    free(share);
    free(order);
    return rc;
}

int tune_size_run(TuneLane *l, TuneSize *ts, CutuneError *err)
{
    TuneRun *r = l->run;
    const CutuneTuneOptions *o = r->o;
    double start = cutune_now();
    TuneJob *jobs = calloc(ts->nvariants ? ts->nvariants : 1, sizeof *jobs);
    size_t njobs = 0;
    int rc = 0;
    if (!jobs)
        return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");

    /* the size's share of the time left */
    pthread_mutex_lock(&r->mu);
    double cost_rest = 0;
    size_t sizes_left = 0;
    /* several GPUs: every size as the judge below sees it */
    CutuneJudgedSize *js = r->nlanes > 1 ? calloc(r->nsizes, sizeof *js) : NULL;
    for (size_t i = 0; i < r->nsizes; i++) {
        TuneSize *s = &r->sizes[i];
        int open = s->state == TUNE_SIZE_WAITING || s == ts;
        if (!open && !js)
            continue;
        double cost = s->out->tuned_before ? 0
                                           : cutune_cost_eval_s(&r->cost, s->flops, s->bytes, 0.5);
        if (open) {
            s->est_eval_s = cost;
            cost_rest += cost;
            sizes_left += !s->out->tuned_before;
        }
        if (js)
            js[i] = (CutuneJudgedSize){
                .cost = cost,
                .taken = s->state == TUNE_SIZE_DONE ? s->work_s : s->judged_s,
                .open = s->state == TUNE_SIZE_WAITING ||
                        (s->state == TUNE_SIZE_RUNNING && !(s->judged_s > 0)),
            };
    }
    ts->state = TUNE_SIZE_RUNNING;
    /* the cost model as the size begins, for its size line */
    double eval_s = ts->est_eval_s, compile_s = r->cost.compile_s;
    double share = cutune_schedule_size_share(r->deadline > 0 ? r->deadline - start : 0, r->nlanes,
                                              eval_s, cost_rest, sizes_left);
    /* Several GPUs: the size's work is judged as one GPU would judge it, in the seconds one GPU
     * would have left: the budget less the wall time of the sizes done and what the others running
     * were given; those running without a share yet (the GPUs take their first sizes at once) share
     * it with this one (cutune_schedule_judge). (Counted in the cost model's seconds of
     * evaluations, the budget was far larger than one GPU's: the model leaves out the waits for
     * compiles, and on 2 H200s the main job measured 5,011 configs where one GPU measured 2,260, in
     * about the same time: bench/RESULTS.md, multi-GPU, 2026-11-27.) So the total work, and with it
     * where each search stops, does not grow with the GPUs, and they end the run sooner; the
     * wall-time share above, which grows with the GPUs, is only the size's deadline (GPUs that
     * share the compile threads take longer over the same work). A share scaled by the GPUs
     * measured whole spaces that one GPU searches: 4 GPUs made 1,642 measurements of the job 1 GPU
     * did in 1,148 (issue 28). Once that budget is spent (one GPU would have stopped), the sizes
     * left share the wall time left, as before. */
    double judge_s = -1;
    if (js && share > 0)
        judge_s = cutune_schedule_judge(js, r->nsizes, (size_t)(ts - r->sizes),
                                        r->deadline - r->lanes_started);
    free(js);
    ts->judged_s = judge_s > 0 ? judge_s : 0;
    pthread_mutex_unlock(&r->mu);
    double size_deadline = share > 0 && !every_config(o) ? earlier(start + share, r->deadline)
                                                         : r->deadline;

    for (size_t i = 0; i < ts->nvariants && rc == 0; i++) {
        if ((rc = tune_job_open(l, ts, ts->variants[i], &jobs[njobs], err)) == 0)
            njobs++;
        else
            tune_job_close(&jobs[njobs]);
    }
    int all_tuned = rc == 0;
    for (size_t i = 0; i < njobs && rc == 0; i++) {
        TuneJob *j = &jobs[i];
        all_tuned &= j->tuned_before || j->cl.nconfigs == 0;
        if (j->best_ms > 0) {
            pthread_mutex_lock(&r->mu);
            CutuneTuneSize *out = ts->out;
            if (!(out->best_ms > 0) || j->best_ms < out->best_ms) {
                out->best_ms = j->best_ms;
                out->gflops = ts->flops > 0 ? ts->flops / (j->best_ms * 1e6) : 0;
                out->gbps = ts->bytes > 0 ? ts->bytes / (j->best_ms * 1e6) : 0;
                snprintf(out->variant, sizeof out->variant, "%s", j->tv->p->name);
                snprintf(out->config, sizeof out->config, "%s", j->row->best_config);
            }
            pthread_mutex_unlock(&r->mu);
        }
        if (j->cl.nconfigs == 0)
            tune_note(r, "%s %s: no valid config in %s for this device and size; skipped",
                      j->tv->p->name, ts->size, j->tv->sp->path);
        if (j->tuned_before)
            snprintf(j->row->strategy, sizeof j->row->strategy, "tuned before");
    }
    if (rc == 0 && njobs > 0 && jobs[0].cl.nconfigs > 0)
        (void)yardstick(l, &jobs[0]); /* a size without one goes on: its line says so */

    if (rc == 0 && all_tuned) {
        ts->out->tuned_before = 1;
        for (size_t i = 0; i < njobs && rc == 0 && !(o->stop && *o->stop); i++)
            if (jobs[i].nimported) { /* imported since: checked and timed, nothing else */
                set_doing(l, "%s %s: %s", jobs[i].tv->p->name, ts->size, "checking imported");
                rc = imported_phase(l, &jobs[i], size_deadline, err);
            }
        set_doing(l, "%s%s%s: re-timing the best", ts->size, "", "");
        if (rc == 0)
            rc = retime_best(l, jobs, njobs, 1, err);
    } else if (rc == 0) {
        /* every variant shows its level first; the warm start may use part of the share */
        double warm_deadline = size_deadline > 0 ? start + WARM_PART * (size_deadline - start) : 0;
        rc = warm_all(l, jobs, njobs, earlier(warm_deadline, size_deadline), err);
        /* then the share goes where it pays, round after round while time is left */
        for (int round = 0; rc == 0 && round < 8 && !(o->stop && *o->stop); round++) {
            if (size_deadline > 0 && cutune_now() >= size_deadline)
                break;
            size_t measured = 0;
            pthread_mutex_lock(&r->mu);
            double e = cutune_cost_eval_s(&r->cost, ts->flops, ts->bytes, 0.5);
            pthread_mutex_unlock(&r->mu);
            e = e > 0 ? e : eval_s;
            double judge = -1;
            if (judge_s >= 0 && size_deadline > 0 &&
                (judge = judge_s - (cutune_now() - start)) <= 0)
                break;
            rc = search_round(l, jobs, njobs, size_deadline, judge, e, round, &measured, err);
            if (measured == 0)
                break;
        }
        if (rc == 0 && !(o->stop && *o->stop) && ts->out->yardstick_ms > 0) {
            set_doing(l, "%s%s%s: re-timing the best beside the yardstick", ts->size, "", "");
            rc = pair_best(l, jobs, njobs, err);
        }
    }

    int stopped = o->stop && *o->stop;
    /* before the size's best may answer lookups of other sizes */
    if (rc == 0 && !stopped)
        rc = tune_ragged_check(l, ts, jobs, njobs, err);
    pthread_mutex_lock(&r->mu);
    ts->work_s = cutune_now() - start;
    for (size_t i = 0; i < njobs; i++)
        if (jobs[i].best_ms > 0 && ts->out->best_ms > 0)
            jobs[i].tv->last_rel = jobs[i].best_ms / ts->out->best_ms;
    pthread_mutex_unlock(&r->mu);
    for (size_t i = 0; i < njobs; i++) {
        TuneJob *j = &jobs[i];
        const char *status = rc == CUTUNE_ERR_INTERRUPTED                 ? "interrupted"
                             : rc                                         ? "failed"
                             : stopped && !j->finished                    ? "interrupted"
                             : j->finished || j->nknown >= j->cl.nconfigs ? "done"
                                                                          : "spent";
        CutuneError e2 = {0};
        int erc = end_search(l, j, status, &e2);
        if (erc && rc == 0) {
            rc = erc;
            *err = e2;
        }
        tune_job_close(j);
    }
    free(jobs);
    pthread_mutex_lock(&r->mu);
    ts->state = TUNE_SIZE_DONE;
    ts->out->done_s = cutune_now() - r->started;
    CutuneTuneEvent e = {
        .type = CUTUNE_EVENT_SIZE,
        .op = ts->op,
        .size = ts->size,
        .variant = ts->out->variant,
        .config = ts->out->config,
        .median_ms = ts->out->best_ms,
        .gflops = ts->out->gflops,
        .gbps = ts->out->gbps,
        .yardstick = ts->out->yardstick,
        .yardstick_ms = ts->out->yardstick_ms,
        .vs_yardstick = cutune_tune_size_ratio(ts->out),
        .est_eval_s = eval_s,
        .est_compile_s = compile_s,
    };
    pthread_mutex_unlock(&r->mu);
    tune_emit(r, &e);
    tune_progress(r);
    return rc;
}
