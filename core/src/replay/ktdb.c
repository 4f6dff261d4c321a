/* Kernel Tuner caches into and out of the tuning database (see ktdb.h). */
#include "ktdb.h"
#include "util.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The device's row: one recorded under that UUID or name, else a new one for the name. */
static int import_device(CutuneDb *db, const char *name, int64_t *id, char *uuid, size_t len,
                         CutuneError *err)
{
    CutuneError e = {0};
    int rc = cutune_db_find_device(db, name, uuid, len, &e);
    if (rc == CUTUNE_ERR_NOT_FOUND) {
        CutuneDeviceInfo d;
        memset(&d, 0, sizeof d);
        d.index = -1;
        snprintf(d.name, sizeof d.name, "%s", name);
        snprintf(d.uuid, sizeof d.uuid, "kernel-tuner:%.48s", name);
        snprintf(uuid, len, "%s", d.uuid);
        return cutune_db_device(db, &d, id, err);
    }
    if (rc)
        return cutune_error(err, e.code, "%s", e.msg);
    sqlite3_stmt *st = NULL;
    int s = sqlite3_prepare_v2(cutune_db_sqlite(db), "SELECT id FROM devices WHERE uuid = ?1", -1,
                               &st, NULL);
    if (s == SQLITE_OK)
        s = sqlite3_bind_text(st, 1, uuid, -1, SQLITE_STATIC);
    if (s == SQLITE_OK && (s = sqlite3_step(st)) == SQLITE_ROW) {
        *id = sqlite3_column_int64(st, 0);
        s = SQLITE_DONE;
    }
    rc = s == SQLITE_DONE ? 0 : cutune_db_fail(db, err, s, "reading the device");
    sqlite3_finalize(st);
    return rc;
}

int cutune_kt_import_db(CutuneDb *db, const CutuneKtImport *in, CutuneKtImported *out,
                        CutuneError *err)
{
    const CutuneKtCache *c = in->cache;
    const CutuneVariantDef *v = in->plugin;
    memset(out, 0, sizeof *out);
    int64_t device_id = 0, variant_id = 0, problem_id = 0;
    int rc;
    if ((rc = import_device(db, in->device, &device_id, out->device_uuid, sizeof out->device_uuid,
                            err)) ||
        (rc = cutune_db_variant(db, v->op_name, v->name, v->version, in->plugin->source_hash,
                                &variant_id, err)) ||
        (rc = cutune_db_problem(db, v->op_name, in->size, &problem_id, err)))
        return rc;
    CutuneRunInfo run = {.argv = in->argv,
                         .op = v->op_name,
                         .strategy = "kernel-tuner",
                         .device_id = device_id};
    if ((rc = cutune_db_run_begin(db, &run, &out->run_id, err)))
        return rc;
    int64_t *values = malloc((in->space->nparams + 1) * sizeof *values);
    if (!values)
        rc = cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory importing %s", c->path);
    for (size_t i = 0; rc == 0 && i < c->n; i++) {
        const CutuneKtEntry *e = &c->e[i];
        for (size_t j = 0; j < in->space->nparams; j++)
            values[j] = e->values[in->map[j]];
        char config[2048], message[320];
        cutune_config_format(in->space, values, config, sizeof config);
        snprintf(message, sizeof message,
                 "measured by Kernel Tuner (cache key \"%.200s\"), "
                 "not checked by cutune",
                 e->key);
        int ok = e->status == CUTUNE_STATUS_OK;
        CutuneTrialRecord t = {
            .run_id = out->run_id,
            .device_id = device_id,
            .variant_id = variant_id,
            .problem_id = problem_id,
            .config = config,
            .status = e->status,
            .median_ms = ok ? e->time_ms : 0,
            .min_ms = ok ? e->min_ms : 0,
            .mean_ms = ok ? e->mean_ms : 0,
            .stddev_ms = ok ? e->stddev_ms : 0,
            .samples = ok ? e->samples : 0,
            .gflops = e->gflops,
            .gbps = e->gbps,
            .compile_ms = e->compile_ms,
            .measure_ms = e->measure_ms,
            .message = message,
            .unchecked = 1, /* never a best until a run has checked and timed it */
        };
        if (ok && t.gflops <= 0 && in->problem && cutune_variant_flops(v, in->problem) > 0)
            t.gflops = cutune_variant_flops(v, in->problem) / (e->time_ms * 1e6);
        if (ok && t.gbps <= 0 && in->problem && cutune_variant_bytes(v, in->problem) > 0)
            t.gbps = cutune_variant_bytes(v, in->problem) / (e->time_ms * 1e6);
        int64_t trial_id = 0;
        if ((rc = cutune_db_trial_insert(db, &t, &trial_id, NULL, err)) == 0)
            out->imported++;
    }
    free(values);
    CutuneError e2 = {0};
    int end = cutune_db_run_end(db, out->run_id, rc ? "failed" : "done", &e2);
    return rc ? rc : end ? cutune_error(err, end, "%s", e2.msg) : 0;
}

/* ---- out -------------------------------------------------------------------------------- */

/* A trial the best table may take (db_trials.c): ok, with a positive median. */
#define VERIFIED(t) "(" t ".status = 'ok' AND " t ".checked = 1 AND " t ".median_ms > 0)"

typedef struct Rows {
    CutuneKtOut *o;
    int64_t *values;
    char **created;
    size_t n, cap;
} Rows;

static void rows_free(Rows *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->created[i]);
    free(r->o);
    free(r->values);
    free(r->created);
}

static int rows_grow(Rows *r, size_t nparams)
{
    if (r->n < r->cap)
        return 0;
    size_t cap = r->cap ? 2 * r->cap : 64;
    CutuneKtOut *o = realloc(r->o, cap * sizeof *o);
    if (o)
        r->o = o;
    int64_t *v = realloc(r->values, cap * (nparams + 1) * sizeof *v);
    if (v)
        r->values = v;
    char **c = realloc(r->created, cap * sizeof *c);
    if (c)
        r->created = c;
    if (!o || !v || !c)
        return CUTUNE_ERR_NOMEM;
    r->cap = cap;
    return 0;
}

int cutune_kt_export_db(CutuneDb *db, const CutuneKtExport *in, FILE *f, size_t *written,
                        size_t *left_out, CutuneError *err)
{
    const CutuneVariantDef *v = in->plugin;
    const size_t np = in->space->nparams;
    Rows r = {0};
    *written = *left_out = 0;
    sqlite3_stmt *st = NULL;
    /* One trial of each config of the installed version: the one the best table would take
     * (db_trials.c: the fastest verified median, the earliest of equal ones), so that the
     * cache's optimum is `cutune query`'s; a config never verified, its newest trial. */
    int s = sqlite3_prepare_v2(
        cutune_db_sqlite(db),
        "SELECT t.config, t.status, t.median_ms, t.compile_ms, t.measure_ms, t.gflops,"
        " t.created_at, d.name FROM trials t JOIN variants v ON v.id = t.variant_id"
        " JOIN problems p ON p.id = t.problem_id JOIN devices d ON d.id = t.device_id"
        " WHERE v.name = ?1 AND v.version = ?2 AND p.op = ?3 AND p.size = ?4 AND d.uuid = ?5"
        " AND t.id = (SELECT t2.id FROM trials t2 WHERE t2.variant_id = t.variant_id"
        " AND t2.problem_id = t.problem_id AND t2.device_id = t.device_id"
        " AND t2.config = t.config ORDER BY " VERIFIED(
            "t2") " DESC,"
                  " iif(" VERIFIED("t2") ", t2.median_ms, NULL), iif(" VERIFIED(
                      "t2") ", t2.id, -t2.id)"
                            " LIMIT 1) ORDER BY t.id",
        -1, &st, NULL);
    const char *binds[] = {v->name, v->version, v->op_name, in->size, in->device_uuid};
    for (int i = 0; s == SQLITE_OK && i < 5; i++)
        s = sqlite3_bind_text(st, i + 1, binds[i], -1, SQLITE_STATIC);
    char device[256] = "";
    int rc = 0;
    while (s == SQLITE_OK && (s = sqlite3_step(st)) == SQLITE_ROW) {
        s = SQLITE_OK;
        const char *config = (const char *)sqlite3_column_text(st, 0);
        int status = cutune_status_parse((const char *)sqlite3_column_text(st, 1));
        if (!config || status < 0)
            continue;
        if ((rc = rows_grow(&r, np))) {
            rc = cutune_error(err, rc, "out of memory exporting");
            goto out;
        }
        int64_t *values = r.values + r.n * (np + 1);
        if (cutune_config_parse(in->space, config, values, NULL) != 0) {
            (*left_out)++; /* not a config of the installed space */
            continue;
        }
        const char *when = (const char *)sqlite3_column_text(st, 6);
        r.created[r.n] = when ? strdup(when) : NULL;
        CutuneKtOut *o = &r.o[r.n];
        memset(o, 0, sizeof *o);
        o->status = (CutuneStatus)status;
        o->median_ms = sqlite3_column_double(st, 2);
        o->compile_ms = sqlite3_column_double(st, 3);
        o->measure_ms = sqlite3_column_double(st, 4);
        o->gflops = sqlite3_column_double(st, 5);
        snprintf(device, sizeof device, "%s", (const char *)sqlite3_column_text(st, 7));
        r.n++;
    }
    if (s != SQLITE_DONE) {
        rc = cutune_db_fail(db, err, s, "reading the trials to export");
        goto out;
    }
    if (r.n == 0) {
        rc = cutune_error(err, CUTUNE_ERR_NOT_FOUND,
                          "%s holds no trial of %s version %s at %s on device %s%s; `cutune "
                          "show` lists what it holds",
                          cutune_db_path(db), v->name, v->version, in->size, in->device_uuid,
                          *left_out ? " that the installed space can read" : "");
        goto out;
    }
    for (size_t i = 0; i < r.n; i++) {
        r.o[i].values = r.values + i * (np + 1);
        r.o[i].created_at = r.created[i];
    }
    CutuneProblem prob;
    if ((rc = cutune_problem_parse(in->size, &prob, err)) ||
        (rc = cutune_kt_write(f, device, v->kernel_name ? v->kernel_name : v->name, &prob,
                              in->space, r.o, r.n, err)))
        goto out;
    *written = r.n;
out:
    sqlite3_finalize(st);
    rows_free(&r);
    return rc;
}
