/* The tuning loop. */
#include "tune.h"
#include "space_limits.h"
#include "compile.h"
#include "db.h"
#include "device.h"
#include "host.h"
#include "pool.h"
#include "registry.h"
#include "space.h"
#include "strategy.h"
#include "util.h"
#include "worker_client.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CONFIG_TEXT_MAX 512

void cutune_tune_defaults(CutuneTuneOptions *o)
{
    memset(o, 0, sizeof *o);
    o->strategy = NULL; /* chosen per space and budget: see tune.h */
    o->seed = 1;
    cutune_measure_defaults(&o->measure);
    cutune_worker_limits_defaults(&o->worker);
    o->log = stderr;
}

void cutune_tune_summary_free(CutuneTuneSummary *sum)
{
    free(sum->rows);
    memset(sum, 0, sizeof *sum);
}

typedef struct Tuner {
    const CutuneTuneOptions *o;
    CutuneRegistry reg;
    CutuneDb *db;
    CutuneDeviceInfo dev;
    CutuneLimits limits;
    CutunePool *pool;
    char cache_dir[PATH_MAX];
    int64_t run_id, device_id;
    int arch;
    CutuneWorker *worker;           /* the process the kernels run in */
    CutuneTuneSummary *sum;
} Tuner;

typedef struct CompileJob {
    CutuneJob job;
    const char *source, *kernel_name, *cache_dir;
    int arch;
    char **defines;
    size_t ndefines;
    size_t index;
    CutuneKernelBinary bin;
    int rc;
    CutuneError err;
} CompileJob;

static void compile_run(CutuneJob *job)
{
    CompileJob *c = (CompileJob *)job;
    c->rc = cutune_nvrtc_compile(c->source, c->kernel_name, (const char *const *)c->defines,
                                 c->ndefines, c->arch, c->cache_dir, &c->bin, &c->err);
}

static void compile_job_clear(CompileJob *c)
{
    for (size_t i = 0; i < c->ndefines; i++)
        free(c->defines[i]);
    free(c->defines);
    cutune_kernel_binary_free(&c->bin);
    memset(c, 0, sizeof *c);
}

static int compile_job_start(Tuner *t, CompileJob *c, const CutunePlugin *p, const CutuneSpace *sp,
                             const int64_t *values, size_t index)
{
    memset(c, 0, sizeof *c);
    c->job.run = compile_run;
    c->source = p->v->kernel_source;
    c->kernel_name = p->v->kernel_name;
    c->cache_dir = t->cache_dir;
    c->arch = t->arch;
    c->index = index;
    c->defines = calloc(sp->nparams ? sp->nparams : 1, sizeof *c->defines);
    if (!c->defines)
        return CUTUNE_ERR_NOMEM;
    for (size_t i = 0; i < sp->nparams; i++) {
        char buf[CUTUNE_NAME_MAX + 32];
        snprintf(buf, sizeof buf, "%s=%lld", sp->params[i].name, (long long)values[i]);
        if (!(c->defines[i] = strdup(buf)))
            return CUTUNE_ERR_NOMEM;
        c->ndefines++;
    }
    cutune_pool_submit(t->pool, &c->job);
    return 0;
}

/* Configs already in the database for a key (for --resume), sorted for bsearch. */
typedef struct DoneSet {
    char **config;
    char **status;
    double *median;
    size_t n, cap;
} DoneSet;

static int done_add(const char *config, const char *status, double median_ms, void *user)
{
    DoneSet *d = user;
    if (d->n == d->cap) {
        size_t cap = d->cap ? 2 * d->cap : 64;
        char **c = realloc(d->config, cap * sizeof *c);
        if (c)
            d->config = c;
        char **s = realloc(d->status, cap * sizeof *s);
        if (s)
            d->status = s;
        double *m = realloc(d->median, cap * sizeof *m);
        if (m)
            d->median = m;
        if (!c || !s || !m)
            return 1;
        d->cap = cap;
    }
    d->config[d->n] = strdup(config);
    d->status[d->n] = strdup(status);
    d->median[d->n] = median_ms;
    if (!d->config[d->n] || !d->status[d->n]) {
        free(d->config[d->n]);
        free(d->status[d->n]);
        return 1;
    }
    d->n++;
    return 0;
}

static void done_sort(DoneSet *d)
{
    /* insertion sort of three parallel arrays by config text: sets are small (one space) */
    for (size_t i = 1; i < d->n; i++)
        for (size_t j = i; j > 0 && strcmp(d->config[j - 1], d->config[j]) > 0; j--) {
            char *c = d->config[j]; d->config[j] = d->config[j - 1]; d->config[j - 1] = c;
            char *s = d->status[j]; d->status[j] = d->status[j - 1]; d->status[j - 1] = s;
            double m = d->median[j]; d->median[j] = d->median[j - 1]; d->median[j - 1] = m;
        }
}

static long done_find(const DoneSet *d, const char *config)
{
    size_t lo = 0, hi = d->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(d->config[mid], config);
        if (c == 0)
            return (long)mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

static void done_free(DoneSet *d)
{
    for (size_t i = 0; i < d->n; i++) {
        free(d->config[i]);
        free(d->status[i]);
    }
    free(d->config);
    free(d->status);
    free(d->median);
    memset(d, 0, sizeof *d);
}

static void fmt_duration(double s, char *buf, size_t len)
{
    long v = s > 0 && s < 1e7 ? lround(s) : 0;
    if (v >= 3600)
        snprintf(buf, len, "%ld:%02ld:%02ld", v / 3600, v / 60 % 60, v % 60);
    else
        snprintf(buf, len, "%ld:%02ld", v / 60, v % 60);
}

static void progress(const Tuner *t, const CutuneTuneRow *row, size_t total, double started)
{
    if (!t->o->progress || !t->o->log)
        return;
    double el = cutune_now() - started;
    char eta[32] = "-";
    if (row->evaluated > 0 && total > row->evaluated)
        fmt_duration(el / (double)row->evaluated * (double)(total - row->evaluated), eta, sizeof eta);
    char best[64] = "none yet";
    if (row->best_ms > 0) {
        if (row->best_gflops > 0)
            snprintf(best, sizeof best, "%.4g ms (%.1f GFLOP/s)", row->best_ms, row->best_gflops);
        else if (row->best_gbps > 0)
            snprintf(best, sizeof best, "%.4g ms (%.1f GB/s)", row->best_ms, row->best_gbps);
        else
            snprintf(best, sizeof best, "%.4g ms", row->best_ms);
    }
    fprintf(t->o->log, "\r  %s %s: %zu/%zu configs, best %s, ETA %s\033[K", row->variant, row->size,
            row->evaluated, total, best, eta);
    fflush(t->o->log);
}

static void copy_str(char *dst, size_t len, const char *src)
{
    size_t n = strlen(src);
    n = n < len - 1 ? n : len - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

static CutuneTuneRow *add_row(Tuner *t, const char *variant, const char *size)
{
    CutuneTuneSummary *s = t->sum;
    CutuneTuneRow *rows = realloc(s->rows, (s->nrows + 1) * sizeof *rows);
    if (!rows)
        return NULL;
    s->rows = rows;
    CutuneTuneRow *r = &rows[s->nrows++];
    memset(r, 0, sizeof *r);
    copy_str(r->variant, sizeof r->variant, variant);
    copy_str(r->size, sizeof r->size, size);
    return r;
}

/* Record one finished compile job as a trial: evaluate it on the GPU when it compiled. */
static int finish_job(Tuner *t, const CutunePlugin *p, const CutuneSpace *sp,
                      const CutuneConfigList *cl, CompileJob *c,
                      const CutuneProblem *prob, int64_t variant_id,
                      int64_t problem_id, double *best_ms, CutuneTuneRow *row,
                      const CutuneStrategyOps *ops, void *st, CutuneError *err)
{
    const int64_t *values = cl->values + c->index * cl->nparams;
    char text[CONFIG_TEXT_MAX];
    cutune_config_format(sp, values, text, sizeof text);
    /* the space loader refuses more parameters than this; the count never exceeds names[] */
    const char *names[CUTUNE_MAX_PARAMS];
    size_t nnames = sp->nparams < CUTUNE_MAX_PARAMS ? sp->nparams : CUTUNE_MAX_PARAMS;
    for (size_t i = 0; i < nnames; i++)
        names[i] = sp->params[i].name;
    CutuneConfig cfg = {nnames, names, values};

    CutuneTrialRecord rec = {
        .run_id = t->run_id, .device_id = t->device_id, .variant_id = variant_id,
        .problem_id = problem_id, .config = text, .seed = t->o->seed,
        .compile_ms = c->bin.compile_ms,
    };
    CutuneEvalResult res;
    CutuneError werr = {0};
    int wrc = 0;
    memset(&res, 0, sizeof res);
    if (c->bin.from_cache)
        row->cached++;
    else if (c->rc == 0)
        row->compiled++;
    row->compile_s += c->bin.compile_ms / 1e3;
    if (c->rc != 0) {
        rec.status = CUTUNE_STATUS_COMPILE_ERROR;
        rec.message = c->err.msg;
    } else {
        /* in the worker process: a kernel that faults or hangs is recorded as crashed or
         * timeout there, and the worker is replaced; only a failed replacement stops us */
        wrc = cutune_worker_eval(t->worker, &cfg, c->bin.cubin, c->bin.size, *best_ms,
                                 &t->o->measure, &res, &werr);
        if ((res.status == CUTUNE_STATUS_CRASHED || res.status == CUTUNE_STATUS_TIMEOUT) &&
            t->o->log) {
            fprintf(t->o->log, "%s  %s %s %s: %s: %s%s\n", t->o->progress ? "\r\033[K" : "",
                    p->v->name, row->size, text, cutune_status_name(res.status), res.message,
                    wrc ? "" : "; going on in a fresh worker");
            fflush(t->o->log);
        }
        rec.status = res.status;
        rec.median_ms = res.median_ms;
        rec.min_ms = res.min_ms;
        rec.mean_ms = res.mean_ms;
        rec.stddev_ms = res.stddev_ms;
        rec.samples = res.samples;
        rec.error = res.error;
        rec.measure_ms = res.measure_ms;
        rec.message = res.message[0] ? res.message : NULL;
        row->measure_s += res.measure_ms / 1e3;
        if (res.status == CUTUNE_STATUS_OK && res.median_ms > 0) {
            double f = p->v->flops(prob), b = p->v->bytes(prob);
            rec.gflops = f > 0 ? f / (res.median_ms * 1e6) : 0;
            rec.gbps = b > 0 ? b / (res.median_ms * 1e6) : 0;
        }
    }
    int is_best = 0;
    int rc = cutune_db_trial_insert(t->db, &rec, NULL, &is_best, err);
    if (rc)
        return rc;
    row->evaluated++;
    row->count[rec.status]++;
    if (rec.status == CUTUNE_STATUS_OK && rec.median_ms > 0) {
        if (!(*best_ms > 0) || rec.median_ms < *best_ms)
            *best_ms = rec.median_ms;
        if (!(row->best_ms > 0) || rec.median_ms < row->best_ms) {
            row->best_ms = rec.median_ms;
            row->best_gflops = rec.gflops;
            row->best_gbps = rec.gbps;
            snprintf(row->best_config, sizeof row->best_config, "%s", text);
        }
    }
    ops->feedback(st, c->index, rec.status, rec.status == CUTUNE_STATUS_OK ? rec.median_ms : 0);
    if (wrc)
        return cutune_error(err, wrc,
                            "%s %s config %s: %s (%s); no fresh worker process could be set up "
                            "after it: %s. Every trial so far is saved: run the same command "
                            "with --resume to go on", p->v->name, row->size, text,
                            cutune_status_name(res.status), res.message, werr.msg);
    return 0;
}

/* Tune one variant for one problem size. */
static int tune_problem(Tuner *t, const CutunePlugin *p, const CutuneSpace *sp,
                        const char *size_text, CutuneError *err)
{
    const CutuneTuneOptions *o = t->o;
    CutuneProblem prob;
    char size[64], perr[256] = "";
    int rc = cutune_problem_parse(size_text, &prob, err);
    if (rc)
        return rc;
    if (p->v->check_problem(&prob, perr, sizeof perr) != 0)
        return cutune_error(err, CUTUNE_ERR_INVALID, "%s: problem size '%s' is not valid: %s",
                            p->v->name, size_text, perr);
    cutune_problem_format(&prob, size, sizeof size);
    CutuneTuneRow *row = add_row(t, p->v->name, size);
    if (!row)
        return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");

    int64_t variant_id, problem_id, dims[CUTUNE_MAX_DIMS] = {0};
    for (int i = 0; i < prob.ndims; i++)
        dims[i] = prob.dim[i];
    if ((rc = cutune_db_variant(t->db, p->v->op, p->v->name, p->v->version, p->source_hash,
                                &variant_id, err)) ||
        (rc = cutune_db_problem(t->db, p->v->op, size, &problem_id, err)))
        return rc;

    CutuneConfigList cl = {0};
    if ((size_t)prob.ndims != sp->ndims)
        return cutune_error(err, CUTUNE_ERR_INVALID,
                            "%s: problem '%s' has %d dimensions but the space names %zu", sp->path,
                            size, prob.ndims, sp->ndims);
    if ((rc = cutune_space_enumerate(sp, &t->limits, dims, &cl, err)) ||
        (rc = cutune_config_list_where(sp, &cl, o->where, o->nwhere, err))) {
        cutune_config_list_free(&cl);
        return rc;
    }
    row->nvalid = cl.nconfigs;
    if (cl.nconfigs == 0) {
        if (o->log)
            fprintf(o->log, "  %s %s: no valid config in %s for this device and size; skipped\n",
                    p->v->name, size, sp->path);
        cutune_config_list_free(&cl);
        return 0;
    }

    DoneSet done = {0};
    if (o->resume) {
        if ((rc = cutune_db_configs_done(t->db, t->device_id, variant_id, problem_id, done_add,
                                         &done, err))) {
            cutune_config_list_free(&cl);
            done_free(&done);
            return rc;
        }
        done_sort(&done);
    }

    double best_ms = 0;
    CutuneBest prev;
    if (cutune_db_best(t->db, t->dev.uuid, p->v->op, size, &prev, NULL) == 0)
        best_ms = prev.median_ms;

    int set_up = 0;
    char why[512];
    const char *sname = cutune_strategy_choose(o->strategy, o->budget, o->time_limit_s,
                                               cl.nconfigs, why, sizeof why);
    if (why[0] && o->log)
        fprintf(o->log, "  %s %s: %s\n", p->v->name, size, why);
    snprintf(row->strategy, sizeof row->strategy, "%s", sname);
    const CutuneStrategyOps *ops = cutune_strategy_find(sname);
    void *st = NULL;
    size_t budget = o->budget && o->budget < cl.nconfigs ? o->budget : cl.nconfigs;
    CutuneStrategyArgs sa = {sp, &cl, o->seed, budget};
    size_t window = (size_t)(2 * cutune_pool_threads(t->pool) + 2);
    CompileJob *ring = calloc(window, sizeof *ring);
    size_t head = 0, inflight = 0, proposed = 0;
    double started = cutune_now();
    int strategy_done = 0;

    if (!ring) {
        rc = cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
        goto out;
    }
    if ((rc = ops->create(&sa, &st))) {
        rc = cutune_error(err, rc, "strategy %s could not start", ops->name);
        goto out;
    }
    if ((rc = cutune_worker_setup(t->worker, p->path, &prob, o->seed, t->arch, t->cache_dir,
                                  err))) {
        cutune_error(err, rc, "%s: setting up problem %s failed", p->v->name, size);
        goto out;
    }
    set_up = 1;

    progress(t, row, budget, started);
    for (;;) {
        int stopping = (o->stop && *o->stop) ||
                       (o->time_limit_s > 0 && cutune_now() - started > o->time_limit_s);
        while (!stopping && !strategy_done && inflight < window && proposed < budget) {
            size_t idx;
            int r = ops->next(st, &idx);
            if (r == CUTUNE_NEXT_DONE) {
                strategy_done = 1;
                break;
            }
            if (r == CUTUNE_NEXT_WAIT)
                break;
            if (o->resume && done.n) {
                char text[CONFIG_TEXT_MAX];
                cutune_config_format(sp, cl.values + idx * cl.nparams, text, sizeof text);
                long k = done_find(&done, text);
                if (k >= 0) { /* measured before: tell the strategy, spend nothing */
                    int s = cutune_status_parse(done.status[k]);
                    ops->feedback(st, idx, s < 0 ? CUTUNE_STATUS_CRASHED : (CutuneStatus)s,
                                  done.median[k]);
                    budget = budget > 1 ? budget - 1 : 0;
                    continue;
                }
            }
            CompileJob *c = &ring[(head + inflight) % window];
            if ((rc = compile_job_start(t, c, p, sp, cl.values + idx * cl.nparams, idx))) {
                compile_job_clear(c);
                cutune_error(err, rc, "out of memory");
                goto out;
            }
            inflight++;
            proposed++;
        }
        if (inflight == 0)
            break; /* nothing left, or a strategy waiting on nothing: done */
        CompileJob *c = &ring[head];
        cutune_pool_wait(t->pool, &c->job);
        head = (head + 1) % window;
        inflight--;
        if (stopping) {
            compile_job_clear(c);
            continue;
        }
        rc = finish_job(t, p, sp, &cl, c, &prob, variant_id, problem_id, &best_ms, row, ops, st,
                        err);
        compile_job_clear(c);
        progress(t, row, budget, started);
        if (rc)
            goto out;
    }

out:
    while (inflight > 0) { /* let queued compiles finish before their memory goes */
        CompileJob *c = &ring[head];
        cutune_pool_wait(t->pool, &c->job);
        compile_job_clear(c);
        head = (head + 1) % window;
        inflight--;
    }
    if (o->progress && o->log)
        fprintf(o->log, "\r\033[K");
    row->wall_s = cutune_now() - started;
    if (set_up)
        cutune_worker_teardown(t->worker);
    if (st)
        ops->destroy(st);
    free(ring);
    done_free(&done);
    cutune_config_list_free(&cl);
    return rc;
}

/* Tune a variant for the given sizes (NULL: its space's default problems). */
static int tune_variant(Tuner *t, const CutunePlugin *p, const char *const *sizes, size_t nsizes,
                        CutuneError *err)
{
    char path[PATH_MAX];
    CutuneSpace *sp = NULL;
    int rc = cutune_space_path(p->v->name, path, sizeof path, err);
    if (rc || (rc = cutune_space_load(path, p->v->dim_names, &sp, err)))
        return rc;
    if (!sizes || nsizes == 0) {
        sizes = (const char *const *)sp->problems;
        nsizes = sp->nproblems;
        if (nsizes == 0) {
            cutune_space_free(sp);
            return cutune_error(err, CUTUNE_ERR_INVALID,
                                "%s has no [problems] default sizes; pass --size", path);
        }
    }
    for (size_t i = 0; i < nsizes && rc == 0; i++) {
        if (t->o->stop && *t->o->stop)
            break;
        rc = tune_problem(t, p, sp, sizes[i], err);
    }
    cutune_space_free(sp);
    return rc;
}

/* The plugins of an op (only `variant` when given), in registry order. */
static size_t choose(const Tuner *t, const char *op, const char *variant,
                     const CutunePlugin **chosen, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < t->reg.count && n < max; i++) {
        const CutuneVariant *v = t->reg.plugins[i].v;
        if (strcmp(v->op, op) == 0 && (!variant || strcmp(v->name, variant) == 0))
            chosen[n++] = &t->reg.plugins[i];
    }
    return n;
}

/* The pending requests of the device, as parallel lists. */
typedef struct Pending {
    char **op, **size;
    size_t n;
} Pending;

static int pending_add(const char *op, const char *size, void *user)
{
    Pending *p = user;
    char **o = realloc(p->op, (p->n + 1) * sizeof *o);
    if (o)
        p->op = o;
    char **s = realloc(p->size, (p->n + 1) * sizeof *s);
    if (s)
        p->size = s;
    if (!o || !s)
        return 1;
    p->op[p->n] = strdup(op);
    p->size[p->n] = strdup(size);
    if (!p->op[p->n] || !p->size[p->n]) {
        free(p->op[p->n]);
        free(p->size[p->n]);
        return 1;
    }
    p->n++;
    return 0;
}

static void pending_free(Pending *p)
{
    for (size_t i = 0; i < p->n; i++) {
        free(p->op[i]);
        free(p->size[i]);
    }
    free(p->op);
    free(p->size);
    memset(p, 0, sizeof *p);
}

/* `cutune run --pending`: tune exactly the keys applications asked for on this device
 * (the requests table), op by op, and mark each done once every variant has run on it. */
static int tune_pending(Tuner *t, CutuneError *err)
{
    const CutuneTuneOptions *o = t->o;
    Pending pend = {0};
    int rc = cutune_db_requests_pending(t->db, t->dev.uuid, o->op, pending_add, &pend, err);
    if (rc == 0 && pend.n == 0 && o->log)
        fprintf(o->log, "no pending requests for %s (%s)%s%s\n", t->dev.name, t->dev.uuid,
                o->op ? " and op " : "", o->op ? o->op : "");
    for (size_t first = 0, end; rc == 0 && first < pend.n; first = end) {
        for (end = first; end < pend.n && strcmp(pend.op[end], pend.op[first]) == 0; end++)
            ;
        const char *op = pend.op[first];
        const CutunePlugin *chosen[256];
        size_t nchosen = choose(t, op, o->variant, chosen, 256);
        if (nchosen == 0) {
            if (o->log)
                fprintf(o->log, "%zu pending request(s) for op %s: no plugin%s%s implements it; "
                                "left pending\n",
                        end - first, op, o->variant ? " named " : "", o->variant ? o->variant : "");
            continue;
        }
        /* keep the sizes the op accepts; a size it refuses stays pending, with a note */
        const char **sizes = calloc(end - first, sizeof *sizes);
        size_t nsizes = 0;
        if (!sizes) {
            rc = cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
            break;
        }
        for (size_t i = first; i < end; i++) {
            CutuneProblem p;
            char why[256] = "";
            if (cutune_problem_parse(pend.size[i], &p, NULL) == 0 &&
                chosen[0]->v->check_problem(&p, why, sizeof why) == 0)
                sizes[nsizes++] = pend.size[i];
            else if (o->log)
                fprintf(o->log, "pending %s %s: not a valid size for %s (%s); left pending\n", op,
                        pend.size[i], chosen[0]->v->name, why);
        }
        for (size_t v = 0; v < nchosen && rc == 0 && nsizes > 0; v++) {
            if (o->stop && *o->stop)
                break;
            rc = tune_variant(t, chosen[v], sizes, nsizes, err);
        }
        for (size_t i = 0; i < nsizes && rc == 0 && !(o->stop && *o->stop); i++)
            rc = cutune_db_request_done(t->db, t->dev.uuid, op, sizes[i], t->run_id, err);
        free(sizes);
    }
    pending_free(&pend);
    return rc;
}

/* Check every space and size of the run before the database is touched, so that a mistake
 * in them fails at once and leaves no trace: the space loads, each size is valid for the
 * plugin and the space, its constraints evaluate for every point, and something is left to
 * tune. Returns 0 or an error naming the file, line and problem. */
static int preflight(const Tuner *t, const CutunePlugin *const *chosen, size_t nchosen,
                     CutuneError *err)
{
    size_t nvalid = 0;
    int rc = 0;
    for (size_t i = 0; i < nchosen && rc == 0; i++) {
        const CutuneVariant *v = chosen[i]->v;
        char path[PATH_MAX];
        CutuneSpace *sp = NULL;
        if ((rc = cutune_space_path(v->name, path, sizeof path, err)) ||
            (rc = cutune_space_load(path, v->dim_names, &sp, err)))
            break;
        const char *const *sizes = t->o->sizes;
        size_t nsizes = t->o->nsizes;
        if (!sizes || nsizes == 0) {
            sizes = (const char *const *)sp->problems;
            nsizes = sp->nproblems;
        }
        for (size_t k = 0; k < nsizes && rc == 0; k++) {
            CutuneProblem prob;
            char perr[256] = "";
            int64_t dims[CUTUNE_MAX_DIMS] = {0};
            CutuneConfigList cl = {0};
            if ((rc = cutune_problem_parse(sizes[k], &prob, err)))
                break;
            if (v->check_problem(&prob, perr, sizeof perr) != 0) {
                rc = cutune_error(err, CUTUNE_ERR_INVALID, "%s: problem size '%s' is not valid: %s",
                                  v->name, sizes[k], perr);
                break;
            }
            if ((size_t)prob.ndims != sp->ndims) {
                rc = cutune_error(err, CUTUNE_ERR_INVALID,
                                  "%s: problem '%s' has %d dimensions but the space names %zu",
                                  sp->path, sizes[k], prob.ndims, sp->ndims);
                break;
            }
            for (int d = 0; d < prob.ndims; d++)
                dims[d] = prob.dim[d];
            if ((rc = cutune_space_enumerate(sp, &t->limits, dims, &cl, err)) ||
                (rc = cutune_config_list_where(sp, &cl, t->o->where, t->o->nwhere, err))) {
                cutune_config_list_free(&cl);
                break;
            }
            nvalid += cl.nconfigs;
            cutune_config_list_free(&cl);
        }
        cutune_space_free(sp);
    }
    if (rc == 0 && nvalid == 0)
        rc = cutune_error(err, CUTUNE_ERR_INVALID,
                          "nothing to tune: no config of %s%s satisfies its space's constraints "
                          "for this device and the sizes asked for; check the [constraints] of "
                          "its tuning space (`cutune list %s` shows the valid counts)%s",
                          t->o->variant ? "variant " : "op ",
                          t->o->variant ? t->o->variant : t->o->op, t->o->op,
                          t->o->nwhere ? ", and --where keeps only the configs it names" : "");
    return rc;
}

int cutune_tune(const CutuneTuneOptions *o, CutuneTuneSummary *sum, CutuneError *err)
{
    Tuner t;
    memset(&t, 0, sizeof t);
    memset(sum, 0, sizeof *sum);
    t.o = o;
    t.sum = sum;
    int rc;
    const char *strategy = o->strategy ? o->strategy
                           : o->budget || o->time_limit_s > 0 ? "auto" : "exhaustive";
    if (o->strategy && !cutune_strategy_find(strategy)) {
        char names[256] = "";
        for (size_t i = 0; cutune_strategy_list[i]; i++) {
            strncat(names, i ? ", " : "", sizeof names - strlen(names) - 1);
            strncat(names, cutune_strategy_list[i]->name, sizeof names - strlen(names) - 1);
        }
        return cutune_error(err, CUTUNE_ERR_INVALID, "unknown strategy '%s'; choose one of: %s",
                            strategy, names);
    }
    CutuneTuneOptions oo = *o;
    t.o = &oo;

    if ((rc = cutune_registry_load(&t.reg, err)))
        return rc;
    const CutunePlugin *chosen[256];
    size_t nchosen = o->op ? choose(&t, o->op, o->variant, chosen, 256) : 0;
    if (nchosen == 0 && !(o->pending && !o->op)) {
        char known[512] = "";
        for (size_t i = 0; i < t.reg.count; i++) {
            const CutuneVariant *v = t.reg.plugins[i].v;
            if (o->variant ? strcmp(v->op, o->op) != 0 : strstr(known, v->op) != NULL)
                continue;
            strncat(known, *known ? ", " : "", sizeof known - strlen(known) - 1);
            strncat(known, o->variant ? v->name : v->op, sizeof known - strlen(known) - 1);
        }
        /* a plugin that was refused may be the one meant: say which and why */
        char refused[640] = "";
        for (size_t i = 0; i < t.reg.nrejected; i++) {
            strncat(refused, i ? "; " : ". Refused plugin files: ", sizeof refused - strlen(refused) - 1);
            strncat(refused, t.reg.rejected[i].reason, sizeof refused - strlen(refused) - 1);
        }
        rc = o->variant
                 ? cutune_error(err, CUTUNE_ERR_NOT_FOUND,
                                "op '%s' has no variant '%s'; its variants: %s (see `cutune list`)%s",
                                o->op, o->variant, *known ? known : "none", refused)
                 : cutune_error(err, CUTUNE_ERR_NOT_FOUND,
                                "no plugin implements op '%s'; known ops: %s (see `cutune list`)%s",
                                o->op, *known ? known : "none", refused);
        goto out;
    }

    /* the GPU is used only in the worker process; it describes the device */
    if ((rc = cutune_worker_start(o->device, &o->worker, &t.worker, &t.dev, err)))
        goto out;
    snprintf(sum->device_name, sizeof sum->device_name, "%s", t.dev.name);
    t.arch = 10 * t.dev.cc_major + t.dev.cc_minor;
    cutune_limits_from_device(&t.dev, &t.limits);
    if (!o->pending && (rc = preflight(&t, chosen, nchosen, err)))
        goto out; /* --pending checks each requested size itself and leaves bad ones pending */
    if ((rc = cutune_cache_dir(t.cache_dir, sizeof t.cache_dir, err)))
        goto out;
    if (o->db_path)
        snprintf(sum->db_path, sizeof sum->db_path, "%s", o->db_path);
    else if ((rc = cutune_db_default_path(sum->db_path, sizeof sum->db_path, err)))
        goto out;
    if ((rc = cutune_db_open(sum->db_path, 0, &t.db, err)) ||
        (rc = cutune_db_device(t.db, &t.dev, &t.device_id, err)))
        goto out;
    CutuneRunInfo ri = {
        .argv = o->argv_text ? o->argv_text : "", .op = o->op, .strategy = strategy,
        .budget = (int64_t)o->budget, .time_limit_s = o->time_limit_s, .seed = o->seed,
        .device_id = t.device_id,
    };
    if ((rc = cutune_db_run_begin(t.db, &ri, &t.run_id, err)))
        goto out;
    sum->run_id = t.run_id;
    if ((rc = cutune_pool_create(o->compile_threads, &t.pool))) {
        cutune_error(err, rc, "cannot start compile threads");
        goto end_run;
    }
    if (o->pending)
        rc = tune_pending(&t, err);
    for (size_t i = 0; i < nchosen && rc == 0 && !o->pending; i++) {
        if (o->stop && *o->stop)
            break;
        rc = tune_variant(&t, chosen[i], o->sizes, o->nsizes, err);
    }
end_run:
    sum->interrupted = o->stop && *o->stop;
    cutune_db_run_end(t.db, t.run_id, rc ? "failed" : sum->interrupted ? "interrupted" : "done",
                      NULL);
out:
    cutune_pool_destroy(&t.pool);
    cutune_worker_stop(&t.worker);
    cutune_db_close(&t.db);
    cutune_registry_free(&t.reg);
    return rc;
}
