/* One (variant, size) job: its configs and what is known of them, and the pipeline that
 * compiles proposals on the CPU while the worker measures on the GPU (see tune_int.h). */
#include "compile.h"
#include "compile_proc.h"
#include "pipeline.h"
#include "strategies/search.h"
#include "tune_int.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CONFIG_TEXT_MAX 512
/* A new best counts as a gain when it is this much faster (0.3%): less is timing noise. */
#define STALL_GAIN 1.003
/* a search ends after this many patiences of refused configs in a row, as after one
 * patience of measured ones without a gain */
#define REFUSED_PATIENCE 4

/* ---- the configs of a job and what the database knows of them ----------------------- */

/* The summary's rows were allocated for every (variant, size) of the plan, so that a row
 * never moves while its job writes to it. */
static CutuneTuneRow *add_row(TuneRun *r, const char *variant, const char *size)
{
    CutuneTuneSummary *s = r->sum;
    CutuneTuneRow *row = NULL;
    pthread_mutex_lock(&r->mu);
    if (s->nrows < r->row_cap) {
        row = &s->rows[s->nrows++];
        memset(row, 0, sizeof *row);
        snprintf(row->variant, sizeof row->variant, "%s", variant);
        snprintf(row->size, sizeof row->size, "%s", size);
    }
    pthread_mutex_unlock(&r->mu);
    return row;
}

/* A known result for config idx (status ok with its time, or a failure). */
static void know(TuneJob *j, size_t idx, CutuneStatus status, double ms)
{
    if (!j->kstatus[idx])
        j->nknown++;
    j->kstatus[idx] = (uint8_t)(1 + status);
    j->kms[idx] = status == CUTUNE_STATUS_OK ? ms : 0;
    if (status == CUTUNE_STATUS_OK && ms > 0 && (!(j->best_ms > 0) || ms < j->best_ms)) {
        j->best_ms = ms;
        j->best_idx = (long)idx;
    }
}

typedef struct KnownCtx {
    TuneJob *j;
    int64_t *values;
} KnownCtx;

static int imported_add(const char *config, const char *status, double median_ms, void *user)
{
    (void)status;
    (void)median_ms;
    KnownCtx *k = user;
    TuneJob *j = k->j;
    if (j->nimported >= j->cl.nconfigs || cutune_config_parse(j->tv->sp, config, k->values, NULL))
        return 0;
    long idx = cutune_config_index_find(&j->ix, k->values);
    if (idx >= 0 && !j->kstatus[idx])
        j->imported[j->nimported++] = (size_t)idx;
    return 0;
}

static int known_add(const char *config, const char *status, double median_ms, void *user)
{
    KnownCtx *k = user;
    int s = cutune_status_parse(status);
    if (s < 0 || cutune_config_parse(k->j->tv->sp, config, k->values, NULL) != 0)
        return 0; /* a config of another space layout: not this one's */
    long idx = cutune_config_index_find(&k->j->ix, k->values);
    if (idx >= 0)
        know(k->j, (size_t)idx, (CutuneStatus)s, median_ms);
    return 0;
}

static int job_load(TuneLane *l, TuneSize *ts, TuneVariant *tv, TuneJob *j, int row,
                    CutuneError *err)
{
    TuneRun *r = l->run;
    const CutuneTuneOptions *o = r->o;
    const CutuneVariantDef *v = tv->p;
    memset(j, 0, sizeof *j);
    j->ts = ts;
    j->tv = tv;
    j->best_idx = -1;
    int64_t dims[CUTUNE_MAX_DIMS] = {0};
    for (int i = 0; i < ts->prob.ndims; i++)
        dims[i] = ts->prob.dim[i];
    int rc;
    if ((rc = cutune_db_variant(l->db, v->op_name, v->name, v->version, tv->p->source_hash,
                                &j->variant_id, err)) ||
        (rc = cutune_db_problem(l->db, v->op_name, ts->size, &j->problem_id, err)) ||
        (rc = cutune_space_enumerate(tv->sp, &l->limits, dims, &j->cl, err)) ||
        (rc = cutune_config_list_where(tv->sp, &j->cl, o->where, o->nwhere, err)))
        return rc;
    if (row && !(j->row = add_row(r, v->name, ts->size)))
        return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
    if (cutune_variant_arch(v, l->arch) < 0) { /* an arch-specific target of another device */
        if (row)
            tune_note(r,
                      "%s: compiled for sm_%da, it runs only on devices of compute capability "
                      "%d.%d; %s has %d.%d: skipped",
                      v->name, v->target, v->target / 10, v->target % 10, l->dev.name, l->arch / 10,
                      l->arch % 10);
        j->cl.nconfigs = 0;
    }
    if (j->row)
        j->row->nvalid = j->cl.nconfigs;
    size_t n = j->cl.nconfigs ? j->cl.nconfigs : 1;
    j->kstatus = calloc(n, sizeof *j->kstatus);
    j->kms = calloc(n, sizeof *j->kms);
    if (!j->kstatus || !j->kms)
        return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
    if ((rc = cutune_config_index_build(&j->cl, &j->ix)))
        return cutune_error(err, rc, "out of memory indexing the configs of %s", v->name);
    if (o->retune)
        return 0; /* measure everything again */
    if ((rc = cutune_db_search_tuned(l->db, l->device_id, j->variant_id, j->problem_id,
                                     &j->tuned_before, err)))
        return rc;
    KnownCtx k = {j, calloc(tv->sp->nparams ? tv->sp->nparams : 1, sizeof *k.values)};
    if (!k.values)
        return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
    rc = cutune_db_configs_done(l->db, l->device_id, j->variant_id, j->problem_id, known_add, &k,
                                err);
    if (rc == 0 && !(j->imported = malloc(n * sizeof *j->imported)))
        rc = cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
    if (rc == 0)
        rc = cutune_db_configs_unchecked(l->db, l->device_id, j->variant_id, j->problem_id,
                                         imported_add, &k, err);
    free(k.values);
    if (!j->row)
        return rc;
    j->row->known = j->nknown;
    if (j->best_ms > 0) {
        j->row->best_ms = j->best_ms;
        cutune_config_format(tv->sp, j->cl.values + (size_t)j->best_idx * j->cl.nparams,
                             j->row->best_config, sizeof j->row->best_config);
    }
    return rc;
}

int tune_job_open(TuneLane *l, TuneSize *ts, TuneVariant *tv, TuneJob *j, CutuneError *err)
{
    return job_load(l, ts, tv, j, 1, err);
}

int tune_job_peek(TuneLane *l, TuneSize *ts, TuneVariant *tv, TuneJob *j, CutuneError *err)
{
    return job_load(l, ts, tv, j, 0, err);
}

void tune_job_close(TuneJob *j)
{
    cutune_config_index_free(&j->ix);
    cutune_config_list_free(&j->cl);
    free(j->kstatus);
    free(j->kms);
    free(j->warm);
    free(j->imported);
    memset(j, 0, sizeof *j);
}

int tune_lane_setup(TuneLane *l, const TuneJob *j, CutuneError *err)
{
    /* the op's inputs and reference serve every variant of it at this size */
    const CutuneVariantDef *p = j->tv->p;
    const char *contract = p->op->path;
    if (strcmp(l->setup_path, contract) == 0 && strcmp(l->setup_size, j->ts->size) == 0)
        return 0;
    double t0 = cutune_now();
    if (l->setup_path[0])
        cutune_worker_teardown(l->worker);
    l->setup_path[0] = l->setup_size[0] = '\0';
    int rc = cutune_worker_setup(l->worker, contract, &j->ts->prob, l->run->o->seed, l->arch,
                                 l->run->cache_dir, err);
    l->t_setup += cutune_now() - t0;
    if (rc)
        return cutune_error(err, rc, "%s: setting up problem %s failed: %s", p->name, j->ts->size,
                            err ? err->msg : "");
    snprintf(l->setup_path, sizeof l->setup_path, "%s", contract);
    snprintf(l->setup_size, sizeof l->setup_size, "%s", j->ts->size);
    return 0;
}

/* ---- the list strategy: the warm start ---------------------------------------------- */

static int list_create(const CutuneStrategyArgs *a, void **state)
{
    size_t n = a->start ? a->nstart : 0;
    SearchList *s = search_list_new(n);
    if (!s)
        return CUTUNE_ERR_NOMEM;
    for (size_t k = 0; k < n; k++)
        s->order[k] = a->start[k];
    s->count = n;
    *state = s;
    return 0;
}

SEARCH_LIST_OPS(tune_list_strategy, "warm start", "the given configs, in order", list_create);

/* ---- the pipeline -------------------------------------------------------------------- */

static void compile_job_start(TuneLane *l, const TuneJob *j, CutuneCompileJob *c, size_t index)
{
    cutune_compile_job_init(c, j->tv->p->source, j->tv->p->kernel_name, j->tv->sp,
                            j->cl.values + index * j->cl.nparams, &j->ts->prob,
                            cutune_variant_arch(j->tv->p, l->arch), l->run->cache_dir, index);
    /* each pool thread's NVRTC in a process of its own: in one process NVRTC stops scaling at
     * about 32 threads (compile_proc.h) */
    c->runner = cutune_compile_runner();
    if (!c->source) { /* a library variant's config compiles nothing: it is ready at once, and
                         measured in the order proposed (the warm start's first, first) */
        c->job.done = 1;
        return;
    }
    cutune_pool_submit(l->run->pool, &c->job);
}

int tune_eval(TuneLane *l, const CutuneVariantDef *v, const CutuneConfig *cfg,
              const CutuneCompileJob *c, const CutuneLaunch *launch, const CutuneTensorMaps *maps,
              double best_ms, const CutuneMeasureSettings *s, CutuneEvalResult *res,
              CutuneError *err)
{
    if (cutune_variant_library(v))
        return cutune_worker_eval_library(l->worker, cfg, v->path, best_ms, s, res, err);
    return cutune_worker_eval(l->worker, cfg, c->bin.cubin, c->bin.size, v->kernel_name, launch,
                              maps, best_ms, s, res, err);
}

/* The size's best time so far (any variant), for early stops and deadlines. */
static double size_best(TuneRun *r, const TuneSize *ts)
{
    pthread_mutex_lock(&r->mu);
    double b = ts->out->best_ms;
    pthread_mutex_unlock(&r->mu);
    return b;
}

/* Measure one compiled config and record it as a trial. Returns 0, or an error that ends
 * the run (the database failed, or no worker could be had again). */
static int measure_and_record(TuneLane *l, TuneJob *j, CutuneCompileJob *c, const char *phase,
                              CutuneStatus *status_out, double *ms_out, CutuneError *err)
{
    TuneRun *r = l->run;
    const CutuneTuneOptions *o = r->o;
    const CutuneSpace *sp = j->tv->sp;
    const CutuneVariantDef *v = j->tv->p;
    const int64_t *values = j->cl.values + c->index * j->cl.nparams;
    char text[CONFIG_TEXT_MAX];
    cutune_config_format(sp, values, text, sizeof text);
    CutuneConfig cfg = {sp->nparams, j->tv->names, values};
    CutuneTrialRecord rec = {
        .run_id = r->run_id,
        .device_id = l->device_id,
        .variant_id = j->variant_id,
        .problem_id = j->problem_id,
        .config = text,
        .seed = o->seed,
        .compile_ms = c->bin.compile_ms,
    };
    CutuneEvalResult res;
    CutuneError werr = {0};
    int wrc = 0;
    memset(&res, 0, sizeof res);
    CutuneTuneRow *row = j->row;
    if (c->bin.from_cache)
        row->cached++;
    else if (c->rc == 0 && c->bin.cubin) /* a library variant compiles nothing */
        row->compiled++;
    row->compile_s += c->bin.compile_ms / 1e3;
    CutuneLaunch launch;
    CutuneTensorMaps maps;
    char why[512] = "";
    int grc = c->rc == 0 ? cutune_geometry_eval(j->tv->geo, values, &j->ts->prob, &l->limits,
                                                &launch, &maps, why, sizeof why)
                         : 0;
    if (c->rc != 0) {
        rec.status = CUTUNE_STATUS_COMPILE_ERROR;
        rec.message = c->err.msg;
    } else if (grc == CUTUNE_ERR_RESOURCES) { /* no launch of it can run on this device */
        rec.status = CUTUNE_STATUS_SKIPPED_RESOURCES;
        rec.message = why;
    } else if (grc) {
        return cutune_error(err, grc, "%s %s config %s: %s", v->name, j->ts->size, text,
                            why[0] ? why : cutune_strerror(grc));
    } else {
        /* a re-time is timed whole: it is the best (or a winner elsewhere), and its first
         * samples, slower on a GPU that waited, must not stop it as a hopeless config */
        double best = strcmp(phase, "re-time") ? size_best(r, j->ts) : 0, t0 = cutune_now();
        wrc = tune_eval(l, v, &cfg, c, &launch, &maps, best, &o->measure, &res, &werr);
        if (strcmp(phase, "re-time") == 0)
            l->t_retime += cutune_now() - t0;
        else
            l->t_measure += cutune_now() - t0;
        if (wrc == CUTUNE_ERR_INTERRUPTED) /* a second Ctrl-C: nothing was measured */
            return cutune_error(err, wrc, "%s", werr.msg);
        if (res.status == CUTUNE_STATUS_CRASHED || res.status == CUTUNE_STATUS_TIMEOUT)
            tune_note(r, "%s %s %s: %s: %s%s", v->name, j->ts->size, text,
                      cutune_status_name(res.status), res.message,
                      wrc ? "" : "; going on in a fresh worker");
        rec.status = res.status;
        rec.median_ms = res.median_ms;
        rec.min_ms = res.min_ms;
        rec.mean_ms = res.mean_ms;
        rec.stddev_ms = res.stddev_ms;
        rec.samples = res.samples;
        rec.error = res.error;
        rec.measure_ms = res.measure_ms;
        rec.cut_short = res.stopped_early;
        rec.message = res.message[0] ? res.message : NULL;
        row->measure_s += res.measure_ms / 1e3;
        if (res.status == CUTUNE_STATUS_OK && res.median_ms > 0) {
            rec.gflops = j->ts->flops > 0 ? j->ts->flops / (res.median_ms * 1e6) : 0;
            rec.gbps = j->ts->bytes > 0 ? j->ts->bytes / (res.median_ms * 1e6) : 0;
        }
    }
    int64_t trial_id = 0;
    int rc = cutune_db_trial_insert(l->db, &rec, &trial_id, NULL, err);
    if (rc)
        return rc;
    row->evaluated++;
    row->count[rec.status]++;
    l->trials++;
    l->crashed += rec.status == CUTUNE_STATUS_CRASHED;
    know(j, c->index, rec.status, rec.median_ms);
    pthread_mutex_lock(&r->mu);
    cutune_cost_observe(&r->cost, rec.compile_ms, rec.measure_ms,
                        rec.status == CUTUNE_STATUS_OK ? rec.median_ms : 0, j->ts->flops,
                        j->ts->bytes);
    if (rec.status == CUTUNE_STATUS_OK && rec.median_ms > 0) {
        if (!(row->best_ms > 0) || rec.median_ms < row->best_ms) {
            row->best_ms = rec.median_ms;
            row->best_gflops = rec.gflops;
            row->best_gbps = rec.gbps;
            snprintf(row->best_config, sizeof row->best_config, "%s", text);
        }
        CutuneTuneSize *out = j->ts->out;
        if (!(out->best_ms > 0) || rec.median_ms < out->best_ms) {
            out->best_ms = rec.median_ms;
            out->gflops = rec.gflops;
            out->gbps = rec.gbps;
            snprintf(out->variant, sizeof out->variant, "%s", v->name);
            snprintf(out->config, sizeof out->config, "%s", text);
        }
    }
    pthread_mutex_unlock(&r->mu);
    *status_out = rec.status;
    *ms_out = rec.median_ms;
    CutuneTuneEvent e = {
        .type = CUTUNE_EVENT_TRIAL,
        .op = v->op_name,
        .size = j->ts->size,
        .variant = v->name,
        .phase = phase,
        .config = text,
        .status = cutune_status_name(rec.status),
        .message = rec.message,
        .median_ms = rec.median_ms,
        .gflops = rec.gflops,
        .gbps = rec.gbps,
        .cut_short = rec.cut_short,
        .compile_ms = rec.compile_ms, /* 0 from the kernel cache (compile.h) */
        .measure_ms = rec.measure_ms,
        .trial_id = trial_id,
        .device = l->device,
    };
    tune_emit(r, &e);
    tune_progress(r);
    if (wrc)
        return cutune_error(err, wrc,
                            "%s %s config %s: %s (%s); no fresh worker process could be set up "
                            "after it: %s. Every trial so far is saved: run the same command "
                            "again to go on",
                            v->name, j->ts->size, text, cutune_status_name(res.status), res.message,
                            werr.msg);
    return 0;
}

/* The next compiled config of the pipeline, the lane's wait for it counted. */
static CutuneCompileJob *take_compiled(TuneLane *l, TunePipeline *pl)
{
    double t0 = cutune_now();
    CutuneCompileJob *c = pipeline_take(pl, l->run->pool);
    l->t_compile_wait += cutune_now() - t0;
    l->t_compile_cpu += c->bin.compile_ms / 1e3;
    return c;
}

/* The compiles this lane may have in flight: its part of the run's compile threads, shared
 * by the lanes searching now (cutune_schedule_lane_window). */
static size_t lane_window(TuneRun *r)
{
    pthread_mutex_lock(&r->mu);
    int n = r->searching;
    pthread_mutex_unlock(&r->mu);
    return cutune_schedule_lane_window(r->window, n);
}

int tune_job_run(TuneLane *l, TuneJob *j, const CutuneStrategyOps *ops, const CutuneStrategyArgs *a,
                 const TuneLimits *lim, TuneEnd *end, CutuneError *err)
{
    TuneRun *r = l->run;
    const CutuneTuneOptions *o = r->o;
    TunePipeline pl = {0};
    size_t proposed = 0, since_gain = lim->since_gain, measured = 0, patience = lim->patience;
    size_t refused = 0; /* configs skipped for resources since the last gain */
    void *st = NULL;
    int rc = 0, strategy_done = 0, stopped = 0, timed_out = 0, stalled = 0, counted = 0;
    double best_seen = j->best_ms;
    double t0 = cutune_now();
    *end = TUNE_END_DONE;
    if (pipeline_init(&pl, (size_t)(r->window > 0 ? r->window : 1))) {
        pipeline_free(&pl);
        return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
    }
    pl.abandoned_us = &l->abandoned_us;
    if ((rc = ops->create(a, &st))) {
        rc = cutune_error(err, rc, "strategy %s could not start", ops->name);
        goto out;
    }
    if ((rc = tune_lane_setup(l, j, err)))
        goto out;
    pthread_mutex_lock(&r->mu);
    r->searching++;
    pthread_mutex_unlock(&r->mu);
    counted = 1;
    for (;;) {
        stopped = stopped || (o->stop && *o->stop);
        timed_out = timed_out || (lim->deadline > 0 && cutune_now() > lim->deadline);
        int stopping = stopped || timed_out || stalled;
        size_t fair = r->nlanes > 1 ? lane_window(r) : pl.window;
        /* never more in flight than the measurements the patience has left: a config past
         * them would compile for a search that stalls before it is measured (at a window of
         * 66 on 64 cores, a search's end left up to 66 compiles of about a second each; on
         * 4 x H200, 233213d, the run's compiles that no trial took came to half of NVRTC's
         * 2,191 CPU seconds on one GPU). A gain makes room again. */
        while (!stopping && !strategy_done &&
               cutune_schedule_may_propose(pl.inflight, fair, pl.window,
                                           fair < pl.window ? cutune_pool_pending(r->pool) : 0,
                                           r->window - 2) &&
               (lim->max_evals == 0 || proposed < lim->max_evals) &&
               (patience == 0 || since_gain + pl.inflight < patience)) {
            size_t idx;
            if (!cutune_strategy_next(ops, st, &idx, &strategy_done))
                break;
            if (idx >= j->cl.nconfigs) {
                rc = cutune_error(err, CUTUNE_ERR_INVALID,
                                  "strategy %s proposed config %zu of "
                                  "%zu",
                                  ops->name, idx, j->cl.nconfigs);
                goto out;
            }
            if (j->kstatus[idx]) { /* measured before: tell the strategy, spend nothing */
                ops->feedback(st, idx, (CutuneStatus)(j->kstatus[idx] - 1), j->kms[idx]);
                continue;
            }
            CutuneCompileJob *slot = pipeline_slot(&pl);
            if (!slot) {
                rc = cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
                goto out;
            }
            compile_job_start(l, j, slot, idx);
            proposed++;
        }
        if (pl.inflight == 0)
            break; /* nothing left, or a strategy waiting on nothing */
        if (stopping)
            break; /* what is in flight compiles on into the cache, unmeasured (below) */
        CutuneCompileJob *c = take_compiled(l, &pl);
        CutuneStatus s;
        double ms;
        size_t idx = c->index;
        rc = measure_and_record(l, j, c, lim->phase, &s, &ms, err);
        pipeline_release(c);
        if (rc)
            goto out;
        ops->feedback(st, idx, s, ms);
        if (s == CUTUNE_STATUS_OK && ms > 0 && (!(best_seen > 0) || ms < best_seen / STALL_GAIN)) {
            best_seen = ms;
            since_gain = 0;
            refused = 0;
        } else if (s == CUTUNE_STATUS_SKIPPED_RESOURCES) {
            /* a config refused before it ran (the GPU's limits, a library's own check) is
             * no measurement and says nothing of where the fast ones are: counted as one,
             * matmul_cublaslt, where cuBLASLt refuses about half the settings proposed,
             * stalled after 58-75 trials (the small transformer's shapes on H200,
             * 2026-11-29). A search that meets only refusals still ends (REFUSED_PATIENCE). */
            refused++;
        } else {
            since_gain++;
        }
        measured++;
        if (cutune_schedule_takes_late(patience, lim->late_patience) && lim->deadline > 0) {
            double now = cutune_now();
            if (cutune_schedule_late(measured, now - t0, j->cl.nconfigs - j->nknown,
                                     lim->deadline - now, pl.window)) {
                patience = lim->late_patience;
                tune_note(r,
                          "%s %s: the whole space will not be measured in its time at %.1f "
                          "configs/s; searching on until %zu measurements bring no gain",
                          j->tv->p->name, j->ts->size, (double)measured / (now - t0), patience);
            }
        }
        if (patience && (since_gain >= patience || refused >= REFUSED_PATIENCE * patience))
            stalled = 1;
    }
    if (stopped)
        *end = TUNE_END_STOPPED;
    else if (stalled)
        *end = TUNE_END_STALLED;
    else if (timed_out)
        *end = TUNE_END_TIME;
    else if (!strategy_done && lim->max_evals && proposed >= lim->max_evals)
        *end = TUNE_END_EVALS;
out:
    pipeline_abandon(&pl, r->pool); /* the lane goes on at once (pipeline.h) */
    if (counted) {
        pthread_mutex_lock(&r->mu);
        r->searching--;
        pthread_mutex_unlock(&r->mu);
    }
    j->since_gain = since_gain;
    double spent = cutune_now() - t0;
    j->spent_s += spent;
    j->row->wall_s += spent;
    if (st)
        ops->destroy(st);
    pipeline_free(&pl);
    return rc;
}
