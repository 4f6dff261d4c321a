/* Trials, the best configs they make, and the queries over them (see db.h). */
#include "db_int.h"
#include "util.h"

#include <math.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

/* ---- trials and the best ---------------------------------------------------------------- */

/* One attempt: the whole transaction. Returns a SQLite code; the message goes to e. */
static int trial_once(CutuneDb *db, const CutuneTrialRecord *t, int64_t *id, int *is_best,
                      CutuneError *e)
{
    int ok = t->status == CUTUNE_STATUS_OK;
    int checked = !t->unchecked;
    sqlite3_stmt *ins = NULL, *best = NULL;
    const char *what = "starting a transaction";
    int rc = sqlite3_exec(db->h, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    if (rc != SQLITE_OK)
        goto fail;
    what = "inserting a trial";
    rc = sqlite3_prepare_v2(
        db->h,
        "INSERT INTO trials (run_id, device_id, variant_id, problem_id, config, status,"
        " median_ms, min_ms, mean_ms, stddev_ms, samples, gflops, gbps, error, compile_ms,"
        " measure_ms, message, seed, cut_short, checked)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        -1, &ins, NULL);
    if (rc != SQLITE_OK)
        goto fail;
    rc = db_bind(ins,
                 "Iiiittddddi"
                 "DDdddtiii",
                 t->run_id, t->device_id, t->variant_id, t->problem_id, t->config,
                 cutune_status_name(t->status), t->median_ms, t->min_ms, t->mean_ms, t->stddev_ms,
                 (int64_t)t->samples, t->gflops, t->gbps, t->error, t->compile_ms, t->measure_ms,
                 t->message, (int64_t)t->seed, (int64_t)(ok && t->cut_short ? 1 : 0),
                 (int64_t)checked);
    /* The timings of a failed trial mean nothing: NULL (read back as 0). */
    for (int i = 7; i <= 13 && !ok && rc == SQLITE_OK; i++)
        rc = sqlite3_bind_null(ins, i);
    if (rc != SQLITE_OK || (rc = sqlite3_step(ins)) != SQLITE_DONE)
        goto fail;
    *id = sqlite3_last_insert_rowid(db->h);
    *is_best = 0;
    if (ok && checked && t->median_ms > 0 && isfinite(t->median_ms)) {
        what = "updating the best config";
        /* A best of this variant at another version is superseded (the installed plugin
         * may not run its config): the best becomes the fastest trial that is not of this
         * variant at another version (this one, at the least). Then the usual race, and
         * whether this trial is the best now. */
        static const struct {
            const char *sql, *fmt; /* the binds: ?1 device, ?2 problem, ?3 trial, ?4 its
                                      time, ?5 its variant (up to the last one used) */
        } steps[] = {
            {"UPDATE best SET updated_at = datetime('now'), trial_id = ("
             "  SELECT t.id FROM trials t JOIN variants v ON v.id = t.variant_id"
             "  WHERE t.device_id = ?1 AND t.problem_id = ?2 AND t.status = 'ok'"
             "  AND t.checked = 1 AND t.median_ms > 0 AND (v.name != (SELECT name FROM variants WHERE id = ?5)"
             "  OR v.version = (SELECT version FROM variants WHERE id = ?5))"
             "  ORDER BY t.median_ms, t.id LIMIT 1)"
             " WHERE device_id = ?1 AND problem_id = ?2 AND ("
             "  SELECT v.name = n.name AND v.version != n.version"
             "  FROM trials t JOIN variants v ON v.id = t.variant_id, variants n"
             "  WHERE t.id = best.trial_id AND n.id = ?5)",
             "iiidi"},
            {"INSERT INTO best (device_id, problem_id, trial_id) VALUES (?1, ?2, ?3)"
             " ON CONFLICT (device_id, problem_id) DO UPDATE SET trial_id = excluded.trial_id,"
             " updated_at = datetime('now')"
             " WHERE ?4 < (SELECT median_ms FROM trials WHERE id = best.trial_id)",
             "iiid"},
            {"SELECT trial_id = ?3 FROM best WHERE device_id = ?1 AND problem_id = ?2", "iii"},
        };
        rc = SQLITE_OK;
        for (size_t i = 0; i < sizeof steps / sizeof *steps && rc == SQLITE_OK; i++) {
            sqlite3_finalize(best);
            best = NULL;
            if ((rc = sqlite3_prepare_v2(db->h, steps[i].sql, -1, &best, NULL)) != SQLITE_OK ||
                (rc = db_bind(best, steps[i].fmt, t->device_id, t->problem_id, *id, t->median_ms,
                              t->variant_id)) != SQLITE_OK)
                break;
            rc = sqlite3_step(best);
            if (rc == SQLITE_ROW)
                *is_best = sqlite3_column_int(best, 0);
            if (rc == SQLITE_ROW || rc == SQLITE_DONE)
                rc = SQLITE_OK;
        }
        if (rc != SQLITE_OK)
            goto fail;
    }
    what = "committing a trial";
    if ((rc = sqlite3_exec(db->h, "COMMIT", NULL, NULL, NULL)) != SQLITE_OK)
        goto fail;
    sqlite3_finalize(ins);
    sqlite3_finalize(best);
    return SQLITE_OK;
fail:
    cutune_db_fail(db, e, rc, what);
    sqlite3_finalize(ins);
    sqlite3_finalize(best);
    db_rollback(db);
    return rc;
}

int cutune_db_trial_insert(CutuneDb *db, const CutuneTrialRecord *t, int64_t *trial_id,
                           int *is_best, CutuneError *err)
{
    if (!db || !t || !t->config || (int)t->status < 0 || t->status >= CUTUNE_STATUS_COUNT)
        return cutune_error(err, CUTUNE_ERR_INVALID,
                            "cutune_db_trial_insert: no config or "
                            "an unknown status");
    for (int attempt = 0;; attempt++) {
        CutuneError e = {0};
        int64_t id = 0;
        int best = 0;
        int rc = trial_once(db, t, &id, &best, &e);
        if (rc == SQLITE_OK) {
            if (trial_id)
                *trial_id = id;
            if (is_best)
                *is_best = best;
            return 0;
        }
        if ((rc & 0xff) == SQLITE_BUSY && attempt < DB_BUSY_RETRIES) {
            sqlite3_sleep(50 << attempt);
            continue;
        }
        return cutune_error(err, e.code, "%s", e.msg);
    }
}

/* Columns read by read_best, in this order. */
#define BEST_COLUMNS \
    "t.id, d.uuid, d.name, p.op, p.size, v.name, v.version, t.config, t.median_ms, " \
    "t.min_ms, t.gflops, t.gbps, t.error, t.samples"

/* Step a prepared best-config query and copy its row (updated_at in column 14). */
static int read_best(CutuneDb *db, sqlite3_stmt *st, const char *what, CutuneBest *out,
                     CutuneError *err)
{
    int code = 0, rc = sqlite3_step(st);
    if (rc == SQLITE_DONE)
        return cutune_error(err, CUTUNE_ERR_NOT_FOUND,
                            "database %s has no verified config for %s; tune it on that device "
                            "first",
                            db->path, what);
    if (rc != SQLITE_ROW)
        return cutune_db_fail(db, err, rc, "reading the best config");
    memset(out, 0, sizeof *out);
    out->trial_id = sqlite3_column_int64(st, 0);
    if (db_col_copy(out->device_uuid, sizeof out->device_uuid, st, 1) ||
        db_col_copy(out->device_name, sizeof out->device_name, st, 2) ||
        db_col_copy(out->op, sizeof out->op, st, 3) ||
        db_col_copy(out->size, sizeof out->size, st, 4) ||
        db_col_copy(out->variant, sizeof out->variant, st, 5) ||
        db_col_copy(out->variant_version, sizeof out->variant_version, st, 6) ||
        db_col_copy(out->config, sizeof out->config, st, 7) ||
        db_col_copy(out->updated_at, sizeof out->updated_at, st, 14))
        code = cutune_error(err, CUTUNE_ERR_RANGE,
                            "database %s: the best config for %s (trial %lld) has a field too "
                            "long for CutuneBest",
                            db->path, what, (long long)out->trial_id);
    out->median_ms = sqlite3_column_double(st, 8);
    out->min_ms = sqlite3_column_double(st, 9);
    out->gflops = sqlite3_column_double(st, 10);
    out->gbps = sqlite3_column_double(st, 11);
    out->error = sqlite3_column_double(st, 12);
    out->samples = sqlite3_column_int(st, 13);
    return code;
}

static int no_best_why(CutuneDb *db, const char *device_uuid, const char *op, const char *size,
                       const char *what, CutuneError *err);

int cutune_db_best(CutuneDb *db, const char *device_uuid, const char *op, const char *size,
                   CutuneBest *out, CutuneError *err)
{
    if (!db || !device_uuid || !op || !size || !out)
        return cutune_error(err, CUTUNE_ERR_INVALID, "cutune_db_best: missing argument");
    sqlite3_stmt *st = NULL;
    char what[256];
    snprintf(what, sizeof what, "%s %s on device %s", op, size, device_uuid);
    int code, rc = sqlite3_prepare_v2(
                  db->h,
                  "SELECT " BEST_COLUMNS ", b.updated_at"
                  " FROM best b JOIN devices d ON d.id = b.device_id"
                  " JOIN problems p ON p.id = b.problem_id JOIN trials t ON t.id = b.trial_id"
                  " JOIN variants v ON v.id = t.variant_id"
                  " WHERE d.uuid = ? AND p.op = ? AND p.size = ?",
                  -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = db_bind(st, "ttt", device_uuid, op, size);
    code = rc == SQLITE_OK ? read_best(db, st, what, out, err)
                           : cutune_db_fail(db, err, rc, "reading the best config");
    sqlite3_finalize(st);
    if (code == CUTUNE_ERR_NOT_FOUND)
        code = no_best_why(db, device_uuid, op, size, what, err);
    return code;
}

int cutune_db_best_model(CutuneDb *db, const CutuneDbModel *m, const char *exclude_uuid,
                         const char *op, const char *size, CutuneBest *out, CutuneError *err)
{
    if (!db || !m || !op || !size || !out)
        return cutune_error(err, CUTUNE_ERR_INVALID, "cutune_db_best_model: missing argument");
    if (m->sm_count <= 0 || m->total_mem <= 0) /* a model of its own: no other GPU */
        return cutune_error(err, CUTUNE_ERR_NOT_FOUND,
                            "database %s: device %s has no recorded SM count or memory, so no "
                            "other GPU is known to be its model",
                            db->path, m->uuid);
    sqlite3_stmt *st = NULL;
    char what[400];
    snprintf(what, sizeof what, "%s %s on another GPU of model %s (cc %d.%d, %d SMs)", op, size,
             m->name, m->cc_major, m->cc_minor, m->sm_count);
    int rc = db_prepare(db, &st,
                        "SELECT " BEST_COLUMNS ", b.updated_at"
                        " FROM best b JOIN devices d ON d.id = b.device_id"
                        " JOIN problems p ON p.id = b.problem_id JOIN trials t ON t.id = b.trial_id"
                        " JOIN variants v ON v.id = t.variant_id"
                        " WHERE d.name = ?1 AND d.cc_major = ?2 AND d.cc_minor = ?3"
                        " AND d.sm_count = ?4 AND d.total_mem = ?5 AND d.uuid <> ?6"
                        " AND p.op = ?7 AND p.size = ?8 ORDER BY t.median_ms, t.id LIMIT 1",
                        "tiiiittt", m->name, (int64_t)m->cc_major, (int64_t)m->cc_minor,
                        (int64_t)m->sm_count, m->total_mem, exclude_uuid ? exclude_uuid : "", op,
                        size);
    int code = rc == SQLITE_OK ? read_best(db, st, what, out, err)
                               : cutune_db_fail(db, err, rc, "reading a model's best config");
    sqlite3_finalize(st);
    return code;
}

/* CUTUNE_ERR_NOT_FOUND for a key without a best, saying so when it holds trials that were
 * imported and never checked (they are not an answer until a run has checked them). */
static int no_best_why(CutuneDb *db, const char *device_uuid, const char *op, const char *size,
                       const char *what, CutuneError *err)
{
    sqlite3_stmt *st = NULL;
    int64_t n = 0;
    int rc = db_prepare(db, &st,
                        "SELECT count(*) FROM trials t JOIN devices d ON d.id = t.device_id"
                        " JOIN problems p ON p.id = t.problem_id WHERE d.uuid = ?1 AND p.op = ?2"
                        " AND p.size = ?3 AND t.checked = 0 AND t.status = 'ok'",
                        "ttt", device_uuid, op, size);
    if (rc == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (n == 0)
        return CUTUNE_ERR_NOT_FOUND; /* read_best's message stands */
    if (err)
        err->msg[0] = '\0'; /* this one says more */
    return cutune_error(err, CUTUNE_ERR_NOT_FOUND,
                        "database %s has no verified config for %s: its %lld timed trials were "
                        "imported from another tool and never checked by cutune on that device; "
                        "`cutune run %s --size %s` there checks and times them first",
                        db->path, what, (long long)n, op, size);
}

/* The fastest verified trial of a variant (at `version`, or any when NULL) on the devices
 * whose `device_column` (uuid or name) is `device`. */
static int best_of_variant(CutuneDb *db, const char *device_column, const char *device,
                           const char *op, const char *size, const char *variant,
                           const char *version, CutuneBest *out, CutuneError *err)
{
    if (!db || !device || !op || !size || !variant || !out)
        return cutune_error(err, CUTUNE_ERR_INVALID, "cutune_db_best_of_variant: missing argument");
    sqlite3_stmt *st = NULL;
    char what[400], sql[640];
    snprintf(what, sizeof what, "%s %s variant %s%s%s on device %s", op, size, variant,
             version ? " version " : "", version ? version : "", device);
    snprintf(sql, sizeof sql,
             "SELECT " BEST_COLUMNS ", t.created_at"
             " FROM trials t JOIN devices d ON d.id = t.device_id"
             " JOIN problems p ON p.id = t.problem_id JOIN variants v ON v.id = t.variant_id"
             " WHERE d.%s = ?1 AND p.op = ?2 AND p.size = ?3 AND v.name = ?4"
             " AND (?5 IS NULL OR v.version = ?5) AND t.status = 'ok' AND t.checked = 1"
             " AND t.median_ms > 0 ORDER BY t.median_ms, t.id LIMIT 1",
             device_column);
    int code, rc = sqlite3_prepare_v2(db->h, sql, -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = db_bind(st, "ttttt", device, op, size, variant, version);
    code = rc == SQLITE_OK ? read_best(db, st, what, out, err)
                           : cutune_db_fail(db, err, rc, "reading the best config of a variant");
    sqlite3_finalize(st);
    return code;
}

int cutune_db_best_of_variant(CutuneDb *db, const char *device_uuid, const char *op,
                              const char *size, const char *variant, const char *version,
                              CutuneBest *out, CutuneError *err)
{
    return best_of_variant(db, "uuid", device_uuid, op, size, variant, version, out, err);
}

int cutune_db_best_of_variant_model(CutuneDb *db, const char *device_name, const char *op,
                                    const char *size, const char *variant, const char *version,
                                    CutuneBest *out, CutuneError *err)
{
    return best_of_variant(db, "name", device_name, op, size, variant, version, out, err);
}

int cutune_db_find_device(CutuneDb *db, const char *pattern, char *uuid, size_t uuid_len,
                          CutuneError *err)
{
    if (!db || !pattern || !uuid || uuid_len == 0)
        return cutune_error(err, CUTUNE_ERR_INVALID, "cutune_db_find_device: missing argument");
    sqlite3_stmt *st = NULL;
    char list[640] = "";
    size_t used = 0;
    int n = 0, code = 0;
    int rc = sqlite3_prepare_v2(db->h,
                                "SELECT uuid, name, uuid = ?1 AS exact FROM devices"
                                " WHERE uuid = ?1 OR instr(lower(name), lower(?1)) > 0"
                                " ORDER BY exact DESC, id",
                                -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = db_bind(st, "t", pattern);
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        rc = SQLITE_OK;
        if (n == 0 && db_col_copy(uuid, uuid_len, st, 0) != 0) {
            code = cutune_error(err, CUTUNE_ERR_RANGE, "device UUID %s is too long",
                                db_col_text(st, 0));
            goto out;
        }
        if (n == 0 && sqlite3_column_int(st, 2)) /* an exact UUID wins */
            goto out;
        if (used < sizeof list) {
            int w = snprintf(list + used, sizeof list - used, "%s%s (%s)", n ? ", " : "",
                             db_col_text(st, 1), db_col_text(st, 0));
            used += w > 0 ? (size_t)w : 0;
        }
        n++;
    }
    if (rc != SQLITE_DONE)
        code = cutune_db_fail(db, err, rc, "looking up the device");
    else if (n == 0)
        code = cutune_error(err, CUTUNE_ERR_NOT_FOUND,
                            "database %s has no device with UUID or name matching '%s'; list "
                            "them with: sqlite3 %s 'SELECT name, uuid FROM devices'",
                            db->path, pattern, db->path);
    else if (n > 1)
        code = cutune_error(err, CUTUNE_ERR_INVALID,
                            "'%s' matches %d devices in %s: %s%s; give the UUID or more of "
                            "the name",
                            pattern, n, db->path, list, used >= sizeof list ? "..." : "");
out:
    if (code != 0 || n > 1)
        uuid[0] = '\0';
    sqlite3_finalize(st);
    return code;
}

/* A row callback of the public API with its user pointer, for db_each_row. */
typedef struct RowCallback {
    void (*fn)(void); /* cast back to its own type by the row function */
    void *user;
} RowCallback;

static int trial_row(sqlite3_stmt *st, void *user)
{
    const RowCallback *cb = user;
    CutuneTrialRow r = {
        .id = sqlite3_column_int64(st, 0),
        .run_id = sqlite3_column_int64(st, 1),
        .variant = db_col_text(st, 2),
        .variant_version = db_col_text(st, 3),
        .op = db_col_text(st, 4),
        .size = db_col_text(st, 5),
        .config = db_col_text(st, 6),
        .status = db_col_text(st, 7),
        .message = sqlite3_column_type(st, 8) == SQLITE_NULL ? NULL : db_col_text(st, 8),
        .median_ms = sqlite3_column_double(st, 9),
        .min_ms = sqlite3_column_double(st, 10),
        .mean_ms = sqlite3_column_double(st, 11),
        .stddev_ms = sqlite3_column_double(st, 12),
        .gflops = sqlite3_column_double(st, 13),
        .gbps = sqlite3_column_double(st, 14),
        .error = sqlite3_column_double(st, 15),
        .compile_ms = sqlite3_column_double(st, 16),
        .measure_ms = sqlite3_column_double(st, 17),
        .samples = sqlite3_column_int(st, 18),
        .seed = (uint64_t)sqlite3_column_int64(st, 19),
        .created_at = db_col_text(st, 20),
    };
    return ((int (*)(const CutuneTrialRow *, void *))cb->fn)(&r, cb->user);
}

int cutune_db_trials_foreach(CutuneDb *db, int64_t run_id,
                             int (*fn)(const CutuneTrialRow *row, void *user), void *user,
                             CutuneError *err)
{
    if (!db || !fn)
        return cutune_error(err, CUTUNE_ERR_INVALID, "cutune_db_trials_foreach: no callback");
    RowCallback cb = {(void (*)(void))fn, user};
    return db_each_row_of(
        db,
        "SELECT t.id, t.run_id, v.name, v.version, p.op, p.size, t.config, t.status, t.message,"
        " t.median_ms, t.min_ms, t.mean_ms, t.stddev_ms, t.gflops, t.gbps, t.error,"
        " t.compile_ms, t.measure_ms, t.samples, t.seed, t.created_at"
        " FROM trials t JOIN variants v ON v.id = t.variant_id"
        " JOIN problems p ON p.id = t.problem_id WHERE t.run_id = ? ORDER BY t.id",
        trial_row, &cb, "reading the trials", err, "i", run_id);
}

static int config_row(sqlite3_stmt *st, void *user)
{
    const RowCallback *cb = user;
    return ((CutuneConfigRowFn *)cb->fn)(db_col_text(st, 0), db_col_text(st, 1),
                                         sqlite3_column_double(st, 2), cb->user);
}

/* The (config, status, median_ms) rows of sql, whose parameters are the device, variant and
 * problem ids, each passed to fn. `name` is the public function's, for a missing callback;
 * `what` says what is being read, for a failure. */
static int configs_of(CutuneDb *db, const char *name, const char *sql, const char *what,
                      int64_t device_id, int64_t variant_id, int64_t problem_id,
                      CutuneConfigRowFn *fn, void *user, CutuneError *err)
{
    if (!db || !fn)
        return cutune_error(err, CUTUNE_ERR_INVALID, "%s: no callback", name);
    RowCallback cb = {(void (*)(void))fn, user};
    return db_each_row_of(db, sql, config_row, &cb, what, err, "iii", device_id, variant_id,
                          problem_id);
}

int cutune_db_configs_done(CutuneDb *db, int64_t device_id, int64_t variant_id, int64_t problem_id,
                           CutuneConfigRowFn *fn, void *user, CutuneError *err)
{
    return configs_of(
        db, "cutune_db_configs_done",
        "SELECT config, status, median_ms FROM trials WHERE id IN"
        " (SELECT max(id) FROM trials WHERE device_id = ? AND variant_id = ? AND problem_id = ?"
        " AND checked = 1 GROUP BY config) ORDER BY id",
        "reading the configs already measured", device_id, variant_id, problem_id, fn, user, err);
}

int cutune_db_configs_unchecked(CutuneDb *db, int64_t device_id, int64_t variant_id,
                                int64_t problem_id, CutuneConfigRowFn *fn, void *user,
                                CutuneError *err)
{
    return configs_of(
        db, "cutune_db_configs_unchecked",
        "SELECT config, status, min(median_ms) AS ms FROM trials t"
        " WHERE device_id = ?1 AND variant_id = ?2 AND problem_id = ?3 AND checked = 0"
        " AND status = 'ok' AND median_ms > 0 AND NOT EXISTS (SELECT 1 FROM trials c"
        "  WHERE c.device_id = ?1 AND c.variant_id = ?2 AND c.problem_id = ?3"
        "  AND c.checked = 1 AND c.config = t.config)"
        " GROUP BY config ORDER BY ms, config",
        "reading the imported configs not checked yet", device_id, variant_id, problem_id, fn, user,
        err);
}
