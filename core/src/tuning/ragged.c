/* The best config of a size, checked at a ragged size near it (see tune_int.h).
 *
 * A config can be right at the size it was tuned for and wrong elsewhere: one that skips
 * K's last partial tile passes every size whose K is a multiple of its tile. Applications
 * that find no config for their own size get the best of the nearest size, so before a
 * best may answer other sizes it is launched and checked once at dimensions that are
 * multiples of no tile, as the op defines them (cutune_op_ragged), and the verdict is
 * recorded. The lookup ladder's nearest steps take only configs that passed. */
#include "compile.h"
#include "tune_int.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The job whose variant made the size's best, or NULL (a variant not in this run). */
static TuneJob *best_job(TuneJob *jobs, size_t njobs, const CutuneBest *b)
{
    for (size_t i = 0; i < njobs; i++) {
        const CutuneVariantDef *v = jobs[i].tv->p;
        if (strcmp(v->name, b->variant) == 0 && strcmp(v->version, b->variant_version) == 0)
            return &jobs[i];
    }
    return NULL;
}

/* Launch config `values` of job j on the ragged problem q (set up in the worker) and check
 * it. Fills rec's verdict; returns an error only when the run cannot go on. */
static int check_there(TuneLane *l, TuneJob *j, const int64_t *values, const CutuneProblem *q,
                       CutuneRaggedRecord *rec, char *msg, size_t len, CutuneError *err)
{
    TuneRun *r = l->run;
    const CutuneVariantDef *v = j->tv->p;
    const CutuneSpace *sp = j->tv->sp;
    int allowed = cutune_space_allows(sp, &l->limits, values, q->dim, msg, len, err);
    if (allowed < 0)
        return allowed;
    if (!allowed)
        return 0; /* not a config of this space there: it answers its own size alone */
    CutuneLaunch launch;
    CutuneTensorMaps maps;
    int grc = cutune_geometry_eval(j->tv->geo, values, q, &l->limits, &launch, &maps, msg, len);
    if (grc == CUTUNE_ERR_RESOURCES)
        return 0;
    if (grc)
        return cutune_error(err, grc, "%s: launch geometry at %s: %s", v->name, rec->ragged_size,
                            msg);
    CutuneCompileJob c;
    cutune_compile_job_init(&c, v->source, v->kernel_name, sp, values, q,
                            cutune_variant_arch(v, l->arch), r->cache_dir, 0);
    cutune_pool_submit(r->pool, &c.job);
    cutune_pool_wait(r->pool, &c.job);
    if (c.rc) {
        snprintf(msg, len, "compile error: %.600s", c.err.msg);
        cutune_compile_job_clear(&c);
        return 0;
    }
    int rc = 0, fatal = 0;
    double t0 = cutune_now();
    if (l->setup_path[0])
        cutune_worker_teardown(l->worker);
    l->setup_path[0] = l->setup_size[0] = '\0'; /* the next job sets its own size up again */
    CutuneError werr = {0};
    rc = cutune_worker_setup(l->worker, v->op->path, q, r->o->seed, l->arch, r->cache_dir, &werr);
    if (rc == 0) {
        CutuneMeasureSettings once = r->o->measure;
        once.warmup = 0;
        once.min_samples = once.max_samples = 1;
        CutuneConfig cfg = {sp->nparams, j->tv->names, values};
        CutuneEvalResult res;
        memset(&res, 0, sizeof res);
        rc = tune_eval(l, v, &cfg, &c, &launch, &maps, 0, &once, &res, &werr);
        fatal = rc != 0; /* no working worker could be had again: as for a trial */
        rec->passed = rc == 0 && res.status == CUTUNE_STATUS_OK;
        rec->error = res.error;
        if (!rec->passed)
            snprintf(msg, len, "%s%s%.600s", cutune_status_name(res.status),
                     res.message[0] ? ": " : "", res.message);
        cutune_worker_teardown(l->worker);
    } else {
        snprintf(msg, len, "setting up %s failed: %.600s", rec->ragged_size, werr.msg);
    }
    cutune_compile_job_clear(&c);
    l->t_setup += cutune_now() - t0;
    /* a worker lost on the way has been replaced (worker_client.h): a crash is a verdict;
     * no worker to be had again, or a second Ctrl-C, ends the run as it does for a trial */
    return fatal ? cutune_error(err, rc, "%s", werr.msg) : 0;
}

int tune_ragged_check(TuneLane *l, TuneSize *ts, TuneJob *jobs, size_t njobs, CutuneError *err)
{
    TuneRun *r = l->run;
    CutuneBest b;
    CutuneError e = {0};
    int rc = cutune_db_best(l->db, l->dev.uuid, ts->op, ts->size, &b, &e);
    if (rc == CUTUNE_ERR_NOT_FOUND)
        return 0;
    if (rc)
        return cutune_error(err, rc, "%s", e.msg);
    TuneJob *j = best_job(jobs, njobs, &b);
    if (!j)
        return 0;
    CutuneRaggedCheck have;
    if ((rc = cutune_db_ragged_find(l->db, l->device_id, j->variant_id, j->problem_id, b.config,
                                    &have, err)))
        return rc;
    if (have.found)
        return 0;
    const CutuneSpace *sp = j->tv->sp;
    int64_t *values = calloc(sp->nparams ? sp->nparams : 1, sizeof *values);
    if (!values)
        return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
    char ragged[64] = "", msg[768] = "";
    CutuneProblem q;
    CutuneRaggedRecord rec = {
        .run_id = r->run_id,
        .device_id = l->device_id,
        .variant_id = j->variant_id,
        .problem_id = j->problem_id,
        .config = b.config,
        .ragged_size = ragged,
        .message = msg,
    };
    if ((rc = cutune_config_parse(sp, b.config, values, err)))
        goto out;
    if (cutune_op_ragged(j->tv->p->op, &ts->prob, &q, msg, sizeof msg) != 0) {
        snprintf(ragged, sizeof ragged, "%s", ts->size); /* none: it answers its own size */
    } else {
        cutune_problem_format(&q, ragged, sizeof ragged);
        if (strcmp(ragged, ts->size) == 0) {
            rec.passed = 1; /* ragged already: its own trial was that check */
            rec.message = NULL;
        } else {
            pthread_mutex_lock(&r->mu);
            snprintf(l->doing, sizeof l->doing, "%s %s: checking the best at %s", j->tv->p->name,
                     ts->size, ragged);
            pthread_mutex_unlock(&r->mu);
            rc = check_there(l, j, values, &q, &rec, msg, sizeof msg, err);
        }
    }
    if (rc == 0) {
        if (rec.passed)
            rec.message = NULL;
        else
            tune_note(r,
                      "%s %s: its best config %s did not pass at the ragged size %s (%s); it "
                      "answers lookups of %s alone",
                      j->tv->p->name, ts->size, b.config, ragged, msg, ts->size);
        rc = cutune_db_ragged_add(l->db, &rec, err);
    }
out:
    free(values);
    return rc;
}
