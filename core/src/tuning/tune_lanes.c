/* The lanes of a run: one per GPU, each with its worker process and database connection,
 * taking sizes from the run's list until none is left. A lane whose GPU fails for good gives
 * its size back to the others and stops; the run goes on with the lanes left. At the end,
 * every lane re-times the winner of each size another lane tuned, so that each GPU has the
 * winner recorded as measured on itself. */
#include "tune_int.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

int tune_lane_open(TuneRun *r, TuneLane *l, int device, CutuneError *err)
{
    memset(l, 0, sizeof *l);
    l->run = r;
    l->device = device;
    int rc = cutune_worker_start(device, &r->o->worker, &l->worker, &l->dev, err);
    if (rc)
        return rc;
    l->arch = 10 * l->dev.cc_major + l->dev.cc_minor;
    cutune_limits_from_device(&l->dev, &l->limits);
    return 0;
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
}

/* The first size no lane has taken; NULL when none is left. */
static TuneSize *take_size(TuneRun *r, TuneLane *l)
{
    TuneSize *ts = NULL;
    pthread_mutex_lock(&r->mu);
    for (size_t i = 0; i < r->nsizes && !ts; i++)
        if (r->sizes[i].state == TUNE_SIZE_WAITING) {
            ts = &r->sizes[i];
            ts->state = TUNE_SIZE_RUNNING;
            ts->lane = l;
        }
    pthread_mutex_unlock(&r->mu);
    return ts;
}

static void *lane_main(void *arg)
{
    TuneLane *l = arg;
    TuneRun *r = l->run;
    for (;;) {
        if (r->o->stop && *r->o->stop)
            break;
        TuneSize *ts = take_size(r, l);
        if (!ts)
            break;
        if ((l->rc = tune_size_run(l, ts, &l->err)) == 0)
            continue;
        if (l->rc != CUTUNE_ERR_INTERRUPTED && r->nlanes > 1) {
            /* this GPU is lost: the size goes back for another lane, which skips what this
             * one recorded */
            pthread_mutex_lock(&r->mu);
            ts->state = TUNE_SIZE_WAITING;
            ts->lane = NULL;
            pthread_mutex_unlock(&r->mu);
            tune_note(r, "GPU %d (%s) stopped: %s; the other GPUs go on with %s", l->device,
                      l->dev.name, l->err.msg, ts->size);
        }
        break;
    }
    return NULL;
}

/* Measure the winner of each size tuned on another lane on this one's GPU, once. */
static int retime_winners(TuneLane *l, CutuneError *err)
{
    TuneRun *r = l->run;
    for (size_t i = 0; i < r->nsizes && !(r->o->stop && *r->o->stop); i++) {
        TuneSize *ts = &r->sizes[i];
        if (ts->state != TUNE_SIZE_DONE || ts->lane == l || !ts->out->variant[0])
            continue;
        TuneVariant *tv = NULL;
        for (size_t k = 0; k < ts->nvariants && !tv; k++)
            if (strcmp(ts->variants[k]->p->name, ts->out->variant) == 0)
                tv = ts->variants[k];
        if (!tv)
            continue;
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
        if (rc)
            return rc;
    }
    return 0;
}

static void *retime_main(void *arg)
{
    TuneLane *l = arg;
    if (l->rc == 0)
        l->rc = retime_winners(l, &l->err);
    return NULL;
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
    each_lane(r, lane_main);
    /* a size a lost GPU gave back after the others had finished: the first lane that works
     * takes it now */
    for (int i = 0; i < r->nlanes; i++)
        if (r->lanes[i].rc == 0) {
            lane_main(&r->lanes[i]);
            break;
        }
    if (r->nlanes > 1)
        each_lane(r, retime_main);
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
