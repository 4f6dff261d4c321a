/* A tuning run from start to end: the plugins, the worker, the database, the plan, the lanes
 * that work through the sizes, and the summary (see tune_int.h for how the budget is spent). */
#include "compile_ahead.h"
#include "tune_int.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void cutune_tune_defaults(CutuneTuneOptions *o)
{
    memset(o, 0, sizeof *o);
    o->seed = 1;
    o->dtype = o->layout = o->epilogue = -1;
    o->time_limit_s = CUTUNE_DEFAULT_TIME_S;
    o->warm_db = 1;
    o->warm_known = 1;
    cutune_measure_defaults(&o->measure);
    cutune_worker_limits_defaults(&o->worker);
    o->log = stderr;
}

void cutune_tune_summary_free(CutuneTuneSummary *sum)
{
    free(sum->rows);
    free(sum->sizes);
    free(sum->gpus);
    memset(sum, 0, sizeof *sum);
}

/* Which op or variant was meant, when the registry has none: what is known, and the plugin
 * files that were refused (one of them may be it). */
static int not_found(const TuneRun *r, CutuneError *err)
{
    const CutuneTuneOptions *o = r->o;
    char known[512] = "";
    if (o->variant) {
        for (size_t i = 0; i < r->reg.nvariants; i++) {
            const CutuneVariantDef *v = r->reg.variants[i];
            if (strcmp(v->op_name, o->op) != 0)
                continue;
            strncat(known, *known ? ", " : "", sizeof known - strlen(known) - 1);
            strncat(known, v->name, sizeof known - strlen(known) - 1);
        }
    } else {
        cutune_registry_op_names(&r->reg, known, sizeof known);
    }
    /* a file that was refused may be the one meant: say which and why */
    char refused[640] = "";
    for (size_t i = 0; i < r->reg.nrejected; i++) {
        strncat(refused, i ? "; " : ". Refused files: ", sizeof refused - strlen(refused) - 1);
        strncat(refused, r->reg.rejected[i].text, sizeof refused - strlen(refused) - 1);
    }
    if (o->variant)
        return cutune_error(err, CUTUNE_ERR_NOT_FOUND,
                            "op '%s' has no variant '%s'; its variants: %s (see `cutune list`)%s",
                            o->op, o->variant, *known ? known : "none", refused);
    const CutuneOpDef *op = cutune_registry_op(&r->reg, o->op);
    if (op) { /* the op is there, its variants are not */
        char dirs[2048] = "";
        for (size_t i = 0; i < r->reg.nspace_dirs; i++) {
            strncat(dirs, i ? ", " : "", sizeof dirs - strlen(dirs) - 1);
            strncat(dirs, r->reg.space_dirs[i], sizeof dirs - strlen(dirs) - 1);
        }
        return cutune_error(err, CUTUNE_ERR_NOT_FOUND,
                            "op '%s' (%s) has no variant to tune: no variant file on the space "
                            "path (%s) names it; write one with `cutune new variant %s NAME`, or "
                            "add the folder of its files to CUTUNE_SPACE_PATH%s",
                            o->op, op->path, *dirs ? dirs : "no folder", o->op, refused);
    }
    return cutune_error(err, CUTUNE_ERR_NOT_FOUND,
                        "no plugin implements op '%s'; known ops: %s (see `cutune list`)%s", o->op,
                        *known ? known : "none", refused);
}

int cutune_tune_check_options(const CutuneTuneOptions *o, CutuneError *err)
{
    if (o->strategy && !cutune_strategy_find(o->strategy)) {
        char names[256] = "";
        for (size_t i = 0; cutune_strategy_list[i]; i++) {
            strncat(names, i ? ", " : "", sizeof names - strlen(names) - 1);
            strncat(names, cutune_strategy_list[i]->name, sizeof names - strlen(names) - 1);
        }
        return cutune_error(err, CUTUNE_ERR_INVALID, "unknown strategy '%s'; choose one of: %s",
                            o->strategy, names);
    }
    if (o->nwhere && !o->variant)
        return cutune_error(err, CUTUNE_ERR_INVALID,
                            "--where names parameters of one variant: "
                            "add --variant");
    if (o->pending && o->nsizes)
        return cutune_error(err, CUTUNE_ERR_INVALID,
                            "--pending tunes the requested sizes: "
                            "leave out --size");
    for (size_t i = 0; i < o->nsizes; i++) {
        CutuneProblem p;
        CutuneError perr = {0};
        int rc = cutune_problem_parse(o->sizes[i], &p, &perr);
        if (rc)
            return cutune_error(err, rc, "--size: %s", perr.msg);
    }
    return 0;
}

/* --pending: the device's requests. */
static int pending_add(const char *op, const char *size, void *user)
{
    TuneRun *r = user;
    char **o = realloc(r->pending_op, (r->npending + 1) * sizeof *o);
    if (o)
        r->pending_op = o;
    char **s = realloc(r->pending_size, (r->npending + 1) * sizeof *s);
    if (s)
        r->pending_size = s;
    if (!o || !s)
        return 1;
    r->pending_op[r->npending] = strdup(op);
    r->pending_size[r->npending] = strdup(size);
    if (!r->pending_op[r->npending] || !r->pending_size[r->npending]) {
        free(r->pending_op[r->npending]);
        free(r->pending_size[r->npending]);
        return 1;
    }
    r->npending++;
    return 0;
}

static void pending_free(TuneRun *r)
{
    for (size_t i = 0; i < r->npending; i++) {
        free(r->pending_op[i]);
        free(r->pending_size[i]);
    }
    free(r->pending_op);
    free(r->pending_size);
}

/* An exhaustive search that cannot end within the time: said before anything runs. At best
 * the compile pool gives about 50 configs a second. */
static int check_feasible(const TuneRun *r, const TuneLane *l, CutuneError *err)
{
    const CutuneTuneOptions *o = r->o;
    if (!o->strategy || strcmp(o->strategy, "exhaustive") != 0 || !(o->time_limit_s > 0))
        return 0;
    size_t total = 0;
    for (size_t i = 0; i < r->nsizes; i++)
        for (size_t k = 0; k < r->sizes[i].nvariants; k++) {
            const TuneVariant *tv = r->sizes[i].variants[k];
            int64_t dims[CUTUNE_MAX_DIMS] = {0};
            for (int d = 0; d < r->sizes[i].prob.ndims; d++)
                dims[d] = r->sizes[i].prob.dim[d];
            CutuneConfigList cl = {0};
            if (cutune_space_enumerate(tv->sp, &l->limits, dims, &cl, NULL) == 0 &&
                cutune_config_list_where(tv->sp, &cl, o->where, o->nwhere, NULL) == 0)
                total += cl.nconfigs;
            cutune_config_list_free(&cl);
        }
    double at_best = (double)total / 50.0;
    if (at_best <= o->time_limit_s)
        return 0;
    return cutune_error(err, CUTUNE_ERR_INVALID,
                        "--strategy exhaustive measures all %zu valid configs, which takes at "
                        "least %.0f s (about 50 configs a second at the very best), more than "
                        "--time %.0f; drop --time to measure them all, give --time %.0f or more, "
                        "or drop --strategy to let the scheduler search within the time",
                        total, at_best, o->time_limit_s, ceil(at_best));
}

/* Whether an earlier run tuned every variant of each size (then only its best is re-timed
 * and it takes no share of the budget). */
static int mark_tuned(TuneRun *r, TuneLane *l, CutuneError *err)
{
    for (size_t i = 0; i < r->nsizes; i++) {
        TuneSize *ts = &r->sizes[i];
        int all = !r->o->retune;
        for (size_t k = 0; k < ts->nvariants && all; k++) {
            const CutuneVariantDef *v = ts->variants[k]->p;
            int64_t vid, pid;
            int tuned = 0, rc;
            if ((rc = cutune_db_variant(l->db, v->op_name, v->name, v->version,
                                        ts->variants[k]->p->source_hash, &vid, err)) ||
                (rc = cutune_db_problem(l->db, v->op_name, ts->size, &pid, err)) ||
                (rc = cutune_db_search_tuned(l->db, l->device_id, vid, pid, &tuned, err)))
                return rc;
            all = tuned;
        }
        ts->out->tuned_before = all;
    }
    return 0;
}

/* Open the lane's database and record the run in it. */
static int begin_run(TuneRun *r, TuneLane *l, CutuneError *err)
{
    const CutuneTuneOptions *o = r->o;
    int rc;
    if ((rc = tune_lane_connect(r, l, err)))
        return rc;
    CutuneRunInfo ri = {
        .argv = o->argv_text ? o->argv_text : "",
        .op = o->op,
        .strategy = o->strategy ? o->strategy : "auto",
        .budget = (int64_t)o->budget,
        .time_limit_s = o->time_limit_s,
        .seed = o->seed,
        .device_id = l->device_id,
    };
    if ((rc = cutune_db_run_begin(l->db, &ri, &r->run_id, err)))
        return rc;
    r->sum->run_id = r->run_id;
    return 0;
}

/* The lanes beyond the first: a database connection each. A GPU whose connection cannot be
 * opened is left out with a note; the run needs only one. */
static void connect_more_lanes(TuneRun *r)
{
    int kept = 1;
    for (int i = 1; i < r->nlanes; i++) {
        TuneLane *l = &r->lanes[i];
        CutuneError e = {0};
        if (tune_lane_connect(r, l, &e) != 0) {
            tune_note(r, "GPU %d left out of the run: %s", l->device, e.msg);
            tune_lane_close(l);
            continue;
        }
        if (strcmp(l->dev.name, r->lanes[0].dev.name) != 0)
            tune_note(r,
                      "GPU %d is a %s and GPU %d a %s: the sizes are checked against the "
                      "first; a config too large for another is recorded skipped_resources "
                      "there",
                      r->lanes[0].device, r->lanes[0].dev.name, l->device, l->dev.name);
        if (kept != i)
            r->lanes[kept] = *l;
        kept++;
    }
    r->nlanes = kept;
    char *p = r->sum->device_name;
    size_t len = sizeof r->sum->device_name;
    int k = r->nlanes > 1 ? snprintf(p, len, "%d GPUs:", r->nlanes) : 0;
    for (int i = 0; i < r->nlanes && k >= 0 && (size_t)k < len; i++)
        k += r->nlanes > 1 ? snprintf(p + k, len - (size_t)k, " %s (%d)", r->lanes[i].dev.name,
                                      r->lanes[i].device)
                           : snprintf(p + k, len - (size_t)k, "%s", r->lanes[i].dev.name);
    r->sum->ngpus = r->nlanes;
}

int cutune_tune(const CutuneTuneOptions *o, CutuneTuneSummary *sum, CutuneError *err)
{
    TuneRun r;
    memset(&r, 0, sizeof r);
    memset(sum, 0, sizeof *sum);
    r.o = o;
    r.sum = sum;
    r.started = cutune_now();
    pthread_mutex_init(&r.mu, NULL);
    pthread_cond_init(&r.changed, NULL);
    const int *devices = o->ndevices ? o->devices : &o->device;
    size_t ndevices = o->ndevices ? o->ndevices : 1;
    r.lanes = calloc(ndevices, sizeof *r.lanes);
    TuneLane *lane0 = r.lanes;
    int rc = cutune_tune_check_options(o, err), began = 0;
    if (!r.lanes)
        rc = cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
    if (rc)
        goto out;
    if ((rc = cutune_registry_load(&r.reg, err)))
        goto out;
    if (o->op) {
        const CutuneVariantDef *any;
        if (cutune_registry_variants_of(&r.reg, o->op, o->variant, &any, 1) == 0) {
            rc = not_found(&r, err);
            goto out;
        }
        /* a refused file of this op is left out, and said before anything runs; it is an
         * error when it may be the variant named, or when nothing else is left */
        if ((rc = cutune_registry_vet_op(&r.reg, o->op, o->variant, o->log, &sum->variants_refused,
                                         err)))
            goto out;
    }

    /* the GPUs are used only in the worker processes, which describe them; all of them
     * open their devices at once */
    if ((rc = tune_lanes_open(&r, devices, ndevices, err)))
        goto out;
    snprintf(sum->device_name, sizeof sum->device_name, "%s", lane0->dev.name);
    sum->ngpus = r.nlanes;
    if ((rc = cutune_cache_dir(r.cache_dir, sizeof r.cache_dir, err)))
        goto out;
    if (o->db_path)
        snprintf(sum->db_path, sizeof sum->db_path, "%s", o->db_path);
    else if ((rc = cutune_db_default_path(sum->db_path, sizeof sum->db_path, err)))
        goto out;

    if (o->pending) {
        /* the requests are claimed by this run, in one transaction: a --pending run beside
         * it leaves them alone */
        if ((rc = begin_run(&r, lane0, err)))
            goto out;
        began = 1;
        if ((rc = cutune_db_requests_claim(lane0->db, lane0->dev.uuid, o->op, r.run_id, pending_add,
                                           &r, err)))
            goto out;
        if (r.npending == 0 && o->log)
            fprintf(o->log, "no pending requests for %s (%s)%s%s\n", lane0->dev.name,
                    lane0->dev.uuid, o->op ? " and op " : "", o->op ? o->op : "");
    }
    /* everything is checked before a database is written, but for --pending's claim */
    if ((rc = tune_plan_build(&r, &lane0->limits, err)) || (rc = check_feasible(&r, lane0, err)))
        goto out;
    for (size_t i = 0; i < r.nsizes; i++) /* a row per job, and per re-timed winner */
        r.row_cap += r.sizes[i].nvariants + ndevices - 1;
    if (!(sum->sizes = calloc(r.nsizes ? r.nsizes : 1, sizeof *sum->sizes)) ||
        !(sum->rows = calloc(r.row_cap ? r.row_cap : 1, sizeof *sum->rows))) {
        rc = cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
        goto out;
    }
    sum->nsizes = r.nsizes;
    for (size_t i = 0; i < r.nsizes; i++) {
        r.sizes[i].out = &sum->sizes[i];
        snprintf(sum->sizes[i].op, sizeof sum->sizes[i].op, "%s", r.sizes[i].op);
        snprintf(sum->sizes[i].size, sizeof sum->sizes[i].size, "%s", r.sizes[i].size);
    }

    if (!began) {
        if ((rc = begin_run(&r, lane0, err)))
            goto out;
        began = 1;
    }
    if ((rc = mark_tuned(&r, lane0, err)))
        goto out;
    connect_more_lanes(&r);
    if (o->time_limit_s > 0) {
        r.deadline = r.started + o->time_limit_s;
        sum->budget_s = o->time_limit_s;
    }
    if ((rc = cutune_pool_create(o->compile_threads, &r.pool))) {
        cutune_error(err, rc, "cannot start compile threads");
        goto out;
    }
    r.window = cutune_pool_threads(r.pool) + 2;
    sum->compile_threads = cutune_pool_threads(r.pool);
    cutune_cost_init(&r.cost, cutune_pool_threads(r.pool));

    TuneAhead *ahead = tune_ahead_start(&r);
    int lrc = tune_lanes_run(&r, err);
    tune_ahead_stop(&ahead);
    tune_progress_clear(&r);
    if (lrc && lrc != CUTUNE_ERR_INTERRUPTED)
        rc = lrc;
    sum->interrupted = (o->stop && *o->stop) || lrc == CUTUNE_ERR_INTERRUPTED;
    /* requests are done once every size of them was tuned in full */
    for (size_t i = 0; o->pending && rc == 0 && !sum->interrupted && i < r.nsizes; i++)
        if (r.sizes[i].state == TUNE_SIZE_DONE)
            rc = cutune_db_request_done(lane0->db, lane0->dev.uuid, r.sizes[i].op, r.sizes[i].size,
                                        r.run_id, err);

out:
    if (began)
        cutune_db_run_end(lane0->db, r.run_id,
                          rc                 ? "failed"
                          : sum->interrupted ? "interrupted"
                                             : "done",
                          NULL);
    sum->wall_s = cutune_now() - r.started;
    sum->start_s = r.lanes_started > 0 ? r.lanes_started - r.started : 0;
    cutune_pool_destroy(&r.pool); /* first: compiles abandoned in flight count (pipeline.h) */
    tune_lanes_report(&r);
    for (int i = 0; r.lanes && i < (r.nlanes > 0 ? r.nlanes : 1); i++)
        tune_lane_close(&r.lanes[i]);
    free(r.lanes);
    tune_plan_free(&r);
    pending_free(&r);
    cutune_registry_free(&r.reg);
    pthread_cond_destroy(&r.changed);
    pthread_mutex_destroy(&r.mu);
    return rc;
}
