/* The lanes of a run: one per GPU, each with its worker process and database connection,
 * taking whole sizes from the run's list until none is left (sizes are independent
 * problems, so no lane waits for another). A lane whose GPU fails for good gives its size
 * back to the others and stops; the run goes on with the lanes left. A lane with no size
 * left to take re-times the winner of each size another lane tuned, so that each GPU has
 * the winner recorded as measured on itself. Each lane keeps where its time went (the
 * summary's per-GPU table). */
#include "tune_int.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

int tune_lanes_open(TuneRun *r, const int *devices, size_t n, CutuneError *err)
{
    CutuneWorkerStart *st = calloc(n ? n : 1, sizeof *st);
    if (!st)
        return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++)
        st[i].device = devices[i];
    cutune_worker_start_all(st, n, &r->o->worker);
    int rc = st[0].rc;
    if (rc)
        *err = st[0].err;
    r->nlanes = 0;
    for (size_t i = 0; i < n; i++) {
        if (st[i].rc) {
            if (i > 0 && rc == 0) /* the run needs only the first */
                tune_note(r, "GPU %d left out of the run: %s", devices[i], st[i].err.msg);
            continue;
        }
        TuneLane *l = &r->lanes[r->nlanes++];
        memset(l, 0, sizeof *l);
        l->run = r;
        l->device = devices[i];
        l->worker = st[i].worker;
        l->dev = st[i].dev;
        l->arch = 10 * l->dev.cc_major + l->dev.cc_minor;
        cutune_limits_from_device(&l->dev, &l->limits);
    }
    free(st);
    return rc;
}

int tune_lane_connect(TuneRun *r, TuneLane *l, CutuneError *err)
{
    if (l->db)
        return 0;
    int rc = cutune_db_open(r->sum->db_path, 0, &l->db, err);
    if (rc == 0)
        rc = cutune_db_device(l->db, &l->dev, &l->device_id, err);
    int sm_khz, mem_khz; /* shown beside the device's model (migration 0005) */
    cutune_worker_clocks(l->worker, &sm_khz, &mem_khz);
    if (rc == 0)
        rc = cutune_db_device_clocks(l->db, l->device_id, sm_khz, mem_khz, err);
    return rc;
}

void tune_lane_close(TuneLane *l)
{
    if (l->setup_path[0])
        cutune_worker_teardown(l->worker);
    cutune_worker_stop(&l->worker);
    cutune_db_close(&l->db);
    free(l->retimed);
    l->retimed = NULL;
}

/* The size a lane takes next (r->mu held): the first not taken yet, in the plan's order on
 * one GPU; with several, the one whose evaluations cost the GPU most first, so that the
 * longest sizes do not start last and keep one GPU busy while the others wait (compiles
 * are left out: a config's cubin, and so its compile, is the same at every size). NULL when
 * none is left. */
TuneSize *tune_next_size(TuneRun *r, int unplanned)
{
    TuneSize *ts = NULL;
    double cost = -1;
    for (size_t i = 0; i < r->nsizes; i++) {
        TuneSize *s = &r->sizes[i];
        if (s->state != TUNE_SIZE_WAITING || (unplanned && s->planned))
            continue;
        if (r->nlanes == 1)
            return s;
        double c = s->out->tuned_before ? 0 : cutune_cost_eval_s(&r->cost, s->flops, s->bytes, 0);
        if (c > cost) {
            cost = c;
            ts = s;
        }
    }
    return ts;
}

/* A size another lane has tuned whose winner this lane has not re-timed (r->mu held). */
static TuneSize *pick_retime(TuneRun *r, TuneLane *l)
{
    for (size_t i = 0; r->nlanes > 1 && l->retimed && i < r->nsizes; i++) {
        TuneSize *ts = &r->sizes[i];
        if (ts->state == TUNE_SIZE_DONE && ts->lane != l && !l->retimed[i] && ts->out->variant[0]) {
            l->retimed[i] = 1;
            return ts;
        }
    }
    return NULL;
}

void tune_wait_changed(TuneRun *r)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += 200 * 1000000L; /* and look at the stop flags */
    until.tv_sec += until.tv_nsec / 1000000000L;
    until.tv_nsec %= 1000000000L;
    pthread_cond_timedwait(&r->changed, &r->mu, &until);
}

static int sizes_open(const TuneRun *r)
{
    for (size_t i = 0; i < r->nsizes; i++)
        if (r->sizes[i].state != TUNE_SIZE_DONE)
            return 1;
    return 0;
}

static int retime_winner(TuneLane *l, TuneSize *ts, CutuneError *err);

/* A lane: it re-times each winner another lane found, then takes the next size while any is
 * left, and waits only for the sizes still running (one given back by a lost GPU is taken
 * then). No lane waits for the others at any point of the run but its end. The re-times go
 * first because they are this lane's own work, which no other lane can take, where a size
 * is anyone's: left for the end, they made a tail of their own on every lane. On 4 x H200
 * (bench/RESULTS.md, multi-GPU, 2026-11-28, febcf10) every size's search was over by 27.1 s
 * and the run ended at 34.6 s: the lanes that tuned the last sizes then re-timed the
 * winners of 8 to 11 sizes each, a setup and a measurement apiece. */
static void *lane_main(void *arg)
{
    TuneLane *l = arg;
    TuneRun *r = l->run;
    pthread_mutex_lock(&r->mu);
    while (!(r->o->stop && *r->o->stop)) {
        TuneSize *ts = pick_retime(r, l);
        int retime = ts != NULL;
        if (!ts)
            ts = tune_next_size(r, 0);
        if (!ts) {
            if (!sizes_open(r))
                break;
            tune_wait_changed(r);
            continue;
        }
        if (!retime) {
            ts->state = TUNE_SIZE_RUNNING;
            ts->lane = l;
        }
        pthread_mutex_unlock(&r->mu);
        double t0 = cutune_now();
        l->rc = retime ? retime_winner(l, ts, &l->err) : tune_size_run(l, ts, &l->err);
        l->t_active += cutune_now() - t0;
        l->nsizes += !retime && l->rc == 0;
        pthread_mutex_lock(&r->mu);
        pthread_cond_broadcast(&r->changed);
        if (l->rc == 0)
            continue;
        if (!retime && l->rc != CUTUNE_ERR_INTERRUPTED && r->nlanes > 1) {
            /* this GPU is lost: the size goes back for another lane, which skips what this
             * one recorded */
            ts->state = TUNE_SIZE_WAITING;
            ts->lane = NULL;
            pthread_mutex_unlock(&r->mu);
            tune_note(r, "GPU %d (%s) stopped: %s; the other GPUs go on with %s", l->device,
                      l->dev.name, l->err.msg, ts->size);
            pthread_mutex_lock(&r->mu);
        }
        break;
    }
    pthread_cond_broadcast(&r->changed);
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

/* Measure the winner of a size tuned on another lane on this one's GPU, once. */
static int retime_winner(TuneLane *l, TuneSize *ts, CutuneError *err)
{
    TuneRun *r = l->run;
    TuneVariant *tv = NULL;
    for (size_t k = 0; k < ts->nvariants && !tv; k++)
        if (strcmp(ts->variants[k]->p->name, ts->out->variant) == 0)
            tv = ts->variants[k];
    if (!tv)
        return 0;
    TuneJob j;
    int rc = tune_job_open(l, ts, tv, &j, err);
    if (rc == 0) {
        int64_t *values = calloc(tv->sp->nparams ? tv->sp->nparams : 1, sizeof *values);
        long idx = values && cutune_config_parse(tv->sp, ts->out->config, values, NULL) == 0
                       ? cutune_config_index_find(&j.ix, values)
                       : -1;
        free(values);
        if (idx >= 0) {
            size_t at = (size_t)idx;
            j.kstatus[at] = 0; /* measured here now, whatever this GPU holds of it */
            snprintf(j.row->strategy, sizeof j.row->strategy, "re-time");
            CutuneStrategyArgs a = {.space = tv->sp,
                                    .configs = &j.cl,
                                    .seed = r->o->seed,
                                    .budget = 1,
                                    .parallel = 1,
                                    .start = &at,
                                    .nstart = 1};
            TuneLimits lim = {.phase = "re-time"};
            TuneEnd end;
            rc = tune_job_run(l, &j, &tune_list_strategy, &a, &lim, &end, err);
        }
    }
    tune_job_close(&j);
    return rc;
}

/* Run fn on every lane at once (one thread each), or inline for a single lane. */
static void each_lane(TuneRun *r, void *(*fn)(void *))
{
    if (r->nlanes == 1) {
        fn(&r->lanes[0]);
        return;
    }
    pthread_t *t = calloc((size_t)r->nlanes, sizeof *t);
    int *started = calloc((size_t)r->nlanes, sizeof *started);
    for (int i = 0; t && started && i < r->nlanes; i++)
        started[i] = pthread_create(&t[i], NULL, fn, &r->lanes[i]) == 0;
    for (int i = 0; i < r->nlanes; i++) {
        if (started && started[i])
            pthread_join(t[i], NULL);
        else
            fn(&r->lanes[i]); /* no thread to be had: in this one */
    }
    free(t);
    free(started);
}

int tune_lanes_run(TuneRun *r, CutuneError *err)
{
    for (int i = 0; i < r->nlanes; i++)
        if (r->nlanes > 1 && !(r->lanes[i].retimed = calloc(r->nsizes ? r->nsizes : 1, 1)))
            return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
    r->lanes_started = cutune_now();
    each_lane(r, lane_main);
    int ok = 0, rc = 0;
    for (int i = 0; i < r->nlanes; i++) {
        TuneLane *l = &r->lanes[i];
        ok += l->rc == 0;
        if (l->rc == CUTUNE_ERR_INTERRUPTED)
            return l->rc;
        if (l->rc && !rc) {
            rc = l->rc;
            *err = l->err;
        }
    }
    r->sum->lanes_failed = (size_t)(r->nlanes - ok);
    return ok ? 0 : rc; /* the run went on as long as one GPU did */
}

void tune_lanes_report(TuneRun *r)
{
    CutuneTuneSummary *sum = r->sum;
    if (r->nlanes <= 0 || !(sum->gpus = calloc((size_t)r->nlanes, sizeof *sum->gpus)))
        return;
    for (int i = 0; i < r->nlanes; i++) {
        const TuneLane *l = &r->lanes[i];
        CutuneTuneGpu *g = &sum->gpus[i];
        g->device = l->device;
        snprintf(g->name, sizeof g->name, "%s", l->dev.name);
        g->measure_s = l->t_measure;
        g->retime_s = l->t_retime;
        g->compile_wait_s = l->t_compile_wait;
        g->compile_s = l->t_compile_cpu + (double)atomic_load(&l->abandoned_us) / 1e6;
        g->setup_s = l->t_setup;
        double other = l->t_active - l->t_measure - l->t_retime - l->t_compile_wait - l->t_setup;
        g->other_s = other > 0 ? other : 0;
        double idle = sum->wall_s - l->t_active;
        g->idle_s = idle > 0 ? idle : 0;
        g->sizes = l->nsizes;
        g->trials = l->trials;
        g->crashed = l->crashed;
        g->lost = l->rc != 0 && l->rc != CUTUNE_ERR_INTERRUPTED;
    }
    sum->ngpus_rows = (size_t)r->nlanes;
    sum->ahead_compiled = (size_t)atomic_load(&r->ahead_compiled);
    sum->ahead_s = (double)atomic_load(&r->ahead_us) / 1e6;
}
