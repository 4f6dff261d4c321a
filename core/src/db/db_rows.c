/* The rows a trial refers to: devices, variants, problems and runs (see db.h). */
#include "db_int.h"
#include "util.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

/* ---- rows ------------------------------------------------------------------------------ */

/* Run one statement that returns the id wanted in its first column (0 rows: NOT_FOUND);
 * with text_out, a copy of its second column too (NULL when out of memory). */
static int step_id(CutuneDb *db, sqlite3_stmt *st, int64_t *id, const char **text_out,
                   const char *what, CutuneError *err)
{
    int rc = sqlite3_step(st);
    if (rc == SQLITE_DONE)
        return cutune_error(err, CUTUNE_ERR_NOT_FOUND, "database %s: %s: no row", db->path, what);
    if (rc != SQLITE_ROW)
        return cutune_db_fail(db, err, rc, what);
    *id = sqlite3_column_int64(st, 0);
    if (text_out)
        *text_out = strdup(db_col_text(st, 1));
    /* A statement with RETURNING commits (outside a transaction) only when it runs to its
     * end: step once more, or its commit's failure (a full disk) would go unseen and the
     * row later look like a bad id. */
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        ;
    return rc == SQLITE_DONE ? 0 : cutune_db_fail(db, err, rc, what);
}

int cutune_db_device(CutuneDb *db, const CutuneDeviceInfo *d, int64_t *id, CutuneError *err)
{
    if (!db || !d || !id || !d->uuid[0])
        return cutune_error(err, CUTUNE_ERR_INVALID, "cutune_db_device: no device or no UUID");
    sqlite3_stmt *st = NULL;
    int code,
        rc = db_prepare(
            db, &st,
            "INSERT INTO devices (uuid, name, cc_major, cc_minor, sm_count, total_mem,"
            " driver_version, runtime_version) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (uuid) DO UPDATE SET name = excluded.name, cc_major = excluded.cc_major,"
            " cc_minor = excluded.cc_minor, sm_count = excluded.sm_count,"
            " total_mem = excluded.total_mem, driver_version = excluded.driver_version,"
            " runtime_version = excluded.runtime_version, last_seen = datetime('now')"
            " RETURNING id",
            "ttiiiiii", d->uuid, d->name, (int64_t)d->cc_major, (int64_t)d->cc_minor,
            (int64_t)d->sm_count, (int64_t)d->total_mem, (int64_t)d->driver_version,
            (int64_t)d->runtime_version);
    code = rc == SQLITE_OK ? step_id(db, st, id, NULL, "recording the device", err)
                           : cutune_db_fail(db, err, rc, "recording the device");
    sqlite3_finalize(st);
    return code;
}

/* Insert-if-missing then look up: rows are never deleted, so no transaction is needed.
 * Both statements take the same text parameters; the lookup returns (id, op). */
static int get_or_create(CutuneDb *db, const char *insert, const char *select, const char *fmt,
                         const char *a, const char *b, const char *c, const char *d,
                         const char *what, int64_t *id, const char **op_out, CutuneError *err)
{
    sqlite3_stmt *ins = NULL, *sel = NULL;
    int code = 0;
    int rc = sqlite3_prepare_v2(db->h, insert, -1, &ins, NULL);
    if (rc == SQLITE_OK && (rc = db_bind(ins, fmt, a, b, c, d)) == SQLITE_OK &&
        (rc = sqlite3_step(ins)) == SQLITE_DONE &&
        (rc = sqlite3_prepare_v2(db->h, select, -1, &sel, NULL)) == SQLITE_OK &&
        (rc = db_bind(sel, fmt, a, b, c, d)) == SQLITE_OK) {
        code = step_id(db, sel, id, op_out, what, err);
    } else {
        code = cutune_db_fail(db, err, rc, what);
    }
    sqlite3_finalize(ins);
    sqlite3_finalize(sel);
    return code;
}

int cutune_db_variant(CutuneDb *db, const char *op, const char *name, const char *version,
                      const char *source_hash, int64_t *id, CutuneError *err)
{
    if (!db || !op || !name || !id)
        return cutune_error(err, CUTUNE_ERR_INVALID, "cutune_db_variant: no op or name");
    const char *have = NULL;
    int code =
        get_or_create(/* the lookup ignores ?1 (op): checked below */
                      db,
                      "INSERT INTO variants (op, name, version, source_hash) VALUES (?1, ?2, ?3, ?4)"
                      " ON CONFLICT DO NOTHING",
                      "SELECT id, op FROM variants WHERE name = ?2 AND version = ?3 AND source_hash = ?4",
                      "tttt", op, name, version ? version : "", source_hash ? source_hash : "",
                      "recording the variant", id, &have, err);
    if (code == 0 && !have)
        code = cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
    else if (code == 0 && strcmp(have, op) != 0)
        code = cutune_error(err, CUTUNE_ERR_INVALID,
                            "database %s: variant %s version %s (same source) is recorded for "
                            "op %s, not %s; give the variant another name or version",
                            db->path, name, version ? version : "", have, op);
    free((char *)have);
    return code;
}

int cutune_db_problem(CutuneDb *db, const char *op, const char *size, int64_t *id, CutuneError *err)
{
    if (!db || !op || !size || !id)
        return cutune_error(err, CUTUNE_ERR_INVALID, "cutune_db_problem: no op or size");
    return get_or_create(db,
                         "INSERT INTO problems (op, size) VALUES (?1, ?2) ON CONFLICT DO NOTHING",
                         "SELECT id, op FROM problems WHERE op = ?1 AND size = ?2", "tt", op, size,
                         NULL, NULL, "recording the problem", id, NULL, err);
}

int cutune_db_run_begin(CutuneDb *db, const CutuneRunInfo *r, int64_t *run_id, CutuneError *err)
{
    if (!db || !r || !run_id)
        return cutune_error(err, CUTUNE_ERR_INVALID, "cutune_db_run_begin: no run");
    char host[256] = "";
    if (gethostname(host, sizeof host - 1) != 0)
        host[0] = '\0';
    sqlite3_stmt *st = NULL;
    int code,
        rc = db_prepare(
            db, &st,
            "INSERT INTO runs (argv, op, strategy, budget, time_limit_s, seed, device_id, status,"
            " uuid, pid, host)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, 'running', lower(hex(randomblob(16))), ?, ?)"
            " RETURNING id",
            "tttidiIit", r->argv ? r->argv : "", r->op, r->strategy, r->budget, r->time_limit_s,
            (int64_t)r->seed, r->device_id, (int64_t)getpid(), host[0] ? host : NULL);
    code = rc == SQLITE_OK ? step_id(db, st, run_id, NULL, "recording the run", err)
                           : cutune_db_fail(db, err, rc, "recording the run");
    sqlite3_finalize(st);
    return code;
}

int cutune_db_run_end(CutuneDb *db, int64_t run_id, const char *status, CutuneError *err)
{
    if (!db || !status ||
        (strcmp(status, "done") && strcmp(status, "interrupted") && strcmp(status, "failed")))
        return cutune_error(err, CUTUNE_ERR_INVALID,
                            "cutune_db_run_end: status '%s' is not done, interrupted or failed",
                            status ? status : "(null)");
    sqlite3_stmt *st = NULL;
    int code = 0,
        rc = db_prepare(db, &st,
                        "UPDATE runs SET status = ?, finished_at = datetime('now') WHERE id = ?",
                        "ti", status, run_id);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    if (rc != SQLITE_DONE)
        code = cutune_db_fail(db, err, rc, "ending the run");
    else if (sqlite3_changes(db->h) == 0)
        code = cutune_error(err, CUTUNE_ERR_NOT_FOUND, "database %s has no run %lld", db->path,
                            (long long)run_id);
    sqlite3_finalize(st);
    if (code == 0) /* requests it claimed and did not tune are free for the next run */
        code = cutune_db_requests_release(db, run_id, err);
    return code;
}

int cutune_db_last_run(CutuneDb *db, int64_t *run_id, CutuneError *err)
{
    if (!db || !run_id)
        return cutune_error(err, CUTUNE_ERR_INVALID, "cutune_db_last_run: no output");
    sqlite3_stmt *st = NULL;
    int code = 0, rc = sqlite3_prepare_v2(db->h, "SELECT id FROM runs ORDER BY id DESC LIMIT 1", -1,
                                          &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *run_id = sqlite3_column_int64(st, 0);
    else if (rc == SQLITE_DONE)
        code = cutune_error(err, CUTUNE_ERR_NOT_FOUND,
                            "database %s has no runs yet; tune with `cutune run <op>` first",
                            db->path);
    else
        code = cutune_db_fail(db, err, rc, "finding the last run");
    sqlite3_finalize(st);
    return code;
}
