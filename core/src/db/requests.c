/* Reading and writing for applications and exports: the requests table (migration 0002),
 * keys that applications looked up and found no config tuned for exactly, `cutune run
 * --pending`'s list of what to tune, and the claims on them; read snapshots; and every best
 * config, for `cutune export`. */
#include "db_int.h"

#include <stdint.h>
#include <string.h>

#include <sqlite3.h>

int cutune_db_request_add(CutuneDb *db, const CutuneRequest *r, CutuneError *err)
{
    if (!db || !r || !r->device_uuid || !r->op || !r->size || !r->answered_by)
        return cutune_error(err, CUTUNE_ERR_INVALID, "cutune_db_request_add: missing field");
    /* a compute capability major of 0 is unknown and stored as NULL, and then so is the
     * minor; with a known major, a minor of 0 is a real one */
    return db_exec(db, err, "recording a lookup request",
                   "INSERT INTO requests (device_uuid, device_name, cc_major, cc_minor, op, size,"
                   " answered_by) VALUES (?1, ?2, ?3, iif(?3 IS NULL, NULL, ?4), ?5, ?6, ?7)"
                   " ON CONFLICT (device_uuid, op, size) DO UPDATE SET count = count + 1,"
                   " answered_by = excluded.answered_by, last_at = datetime('now'),"
                   " device_name = coalesce(excluded.device_name, device_name),"
                   " cc_major = coalesce(excluded.cc_major, cc_major),"
                   " cc_minor = coalesce(excluded.cc_minor, cc_minor)",
                   "ttIittt", r->device_uuid,
                   r->device_name && *r->device_name ? r->device_name : NULL, (int64_t)r->cc_major,
                   (int64_t)r->cc_minor, r->op, r->size, r->answered_by);
}

int cutune_db_requests_pending(CutuneDb *db, const char *device_uuid, const char *op,
                               int (*fn)(const char *op, const char *size, void *user), void *user,
                               CutuneError *err)
{
    if (!db || !device_uuid || !fn)
        return cutune_error(err, CUTUNE_ERR_INVALID,
                            "cutune_db_requests_pending: missing argument");
    sqlite3_stmt *st = NULL;
    int code = 0, rc = db_prepare(db, &st,
                                  "SELECT op, size FROM requests WHERE status = 'pending' AND"
                                  " device_uuid = ?1 AND (?2 IS NULL OR op = ?2) ORDER BY op, size",
                                  "tt", device_uuid, op);
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *o = (const char *)sqlite3_column_text(st, 0);
        const char *s = (const char *)sqlite3_column_text(st, 1);
        if (fn(o ? o : "", s ? s : "", user) != 0) {
            rc = SQLITE_DONE;
            break;
        }
        rc = SQLITE_OK;
    }
    if (rc != SQLITE_DONE)
        code = cutune_db_fail(db, err, rc, "reading the pending requests");
    sqlite3_finalize(st);
    return code;
}

/* Roll back after a failure already recorded. */
static void rollback(sqlite3 *h)
{
    if (!sqlite3_get_autocommit(h))
        (void)sqlite3_exec(h, "ROLLBACK", NULL, NULL, NULL); /* nothing more to report */
}

int cutune_db_requests_claim(CutuneDb *db, const char *device_uuid, const char *op, int64_t run_id,
                             int (*fn)(const char *op, const char *size, void *user), void *user,
                             CutuneError *err)
{
    if (!db || !device_uuid || !fn || run_id <= 0)
        return cutune_error(err, CUTUNE_ERR_INVALID, "cutune_db_requests_claim: missing argument");
    sqlite3 *h = cutune_db_sqlite(db);
    sqlite3_stmt *claim = NULL, *list = NULL;
    const char *what = "claiming the pending requests";
    int code = 0, rc = sqlite3_exec(h, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(
            h,
            "UPDATE requests SET run_id = ?3 WHERE status = 'pending' AND device_uuid = ?1"
            " AND (?2 IS NULL OR op = ?2) AND (run_id IS NULL OR run_id = ?3 OR run_id NOT IN"
            " (SELECT id FROM runs WHERE status = 'running'))",
            -1, &claim, NULL);
    if (rc == SQLITE_OK && (rc = db_bind(claim, "tti", device_uuid, op, run_id)) == SQLITE_OK &&
        (rc = sqlite3_step(claim)) == SQLITE_DONE)
        rc = sqlite3_prepare_v2(h,
                                "SELECT op, size FROM requests WHERE status = 'pending'"
                                " AND run_id = ?1 ORDER BY op, size",
                                -1, &list, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(list, 1, run_id);
    while (rc == SQLITE_OK && (rc = sqlite3_step(list)) == SQLITE_ROW) {
        const char *o = (const char *)sqlite3_column_text(list, 0);
        const char *z = (const char *)sqlite3_column_text(list, 1);
        rc = fn(o ? o : "", z ? z : "", user) != 0 ? SQLITE_DONE : SQLITE_OK;
        if (rc == SQLITE_DONE)
            break;
    }
    if (rc == SQLITE_DONE) {
        what = "committing the claims on pending requests";
        rc = sqlite3_exec(h, "COMMIT", NULL, NULL, NULL);
    }
    if (rc != SQLITE_OK) {
        code = cutune_db_fail(db, err, rc, what);
        rollback(h);
    }
    sqlite3_finalize(claim);
    sqlite3_finalize(list);
    return code;
}

int cutune_db_requests_release(CutuneDb *db, int64_t run_id, CutuneError *err)
{
    if (!db)
        return cutune_error(err, CUTUNE_ERR_INVALID, "cutune_db_requests_release: no database");
    return db_exec(db, err, "releasing the run's pending requests",
                   "UPDATE requests SET run_id = NULL WHERE run_id = ?1 AND status = 'pending'",
                   "i", run_id);
}

int cutune_db_read_begin(CutuneDb *db, CutuneError *err)
{
    sqlite3 *h = cutune_db_sqlite(db);
    if (!h)
        return cutune_error(err, CUTUNE_ERR_INVALID, "cutune_db_read_begin: no database");
    /* in WAL mode the snapshot is taken by the first read, so read at once */
    int rc = sqlite3_exec(h, "BEGIN; SELECT count(*) FROM sqlite_schema", NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        int code = cutune_db_fail(db, err, rc, "starting a read");
        rollback(h);
        return code;
    }
    return 0;
}

void cutune_db_read_end(CutuneDb *db)
{
    sqlite3 *h = cutune_db_sqlite(db);
    if (h && !sqlite3_get_autocommit(h))
        (void)sqlite3_exec(h, "COMMIT", NULL, NULL, NULL); /* a read: nothing to lose */
}

int cutune_db_request_done(CutuneDb *db, const char *device_uuid, const char *op, const char *size,
                           int64_t run_id, CutuneError *err)
{
    if (!db || !device_uuid || !op || !size)
        return cutune_error(err, CUTUNE_ERR_INVALID, "cutune_db_request_done: missing argument");
    return db_exec(db, err, "marking a request done",
                   "UPDATE requests SET status = 'done', done_at = datetime('now'), run_id = ?4"
                   " WHERE device_uuid = ?1 AND op = ?2 AND size = ?3 AND status = 'pending'",
                   "tttI", device_uuid, op, size, run_id);
}

typedef struct BestCallback {
    int (*fn)(const CutuneBestRow *row, void *user);
    void *user;
} BestCallback;

static int best_row(sqlite3_stmt *st, void *user)
{
    const BestCallback *cb = user;
    CutuneBestRow r = {
        .device_uuid = db_col_text(st, 0),
        .device_name = db_col_text(st, 1),
        .cc_major = sqlite3_column_int(st, 2),
        .cc_minor = sqlite3_column_int(st, 3),
        .op = db_col_text(st, 4),
        .size = db_col_text(st, 5),
        .variant = db_col_text(st, 6),
        .variant_version = db_col_text(st, 7),
        .config = db_col_text(st, 8),
        .updated_at = db_col_text(st, 9),
        .median_ms = sqlite3_column_double(st, 10),
        .min_ms = sqlite3_column_double(st, 11),
        .gflops = sqlite3_column_double(st, 12),
        .gbps = sqlite3_column_double(st, 13),
        .error = sqlite3_column_double(st, 14),
        .samples = sqlite3_column_int(st, 15),
        .trial_id = sqlite3_column_int64(st, 16),
    };
    return cb->fn(&r, cb->user);
}

int cutune_db_best_foreach(CutuneDb *db, const char *device_uuid, const char *op,
                           int (*fn)(const CutuneBestRow *row, void *user), void *user,
                           CutuneError *err)
{
    if (!db || !fn)
        return cutune_error(err, CUTUNE_ERR_INVALID, "cutune_db_best_foreach: no callback");
    BestCallback cb = {fn, user};
    return db_each_row_of(
        db,
        "SELECT d.uuid, d.name, d.cc_major, d.cc_minor, p.op, p.size, v.name, v.version,"
        " t.config, b.updated_at, t.median_ms, t.min_ms, t.gflops, t.gbps, t.error, t.samples,"
        " t.id FROM best b JOIN devices d ON d.id = b.device_id"
        " JOIN problems p ON p.id = b.problem_id JOIN trials t ON t.id = b.trial_id"
        " JOIN variants v ON v.id = t.variant_id"
        " WHERE (?1 IS NULL OR d.uuid = ?1) AND (?2 IS NULL OR p.op = ?2)"
        " ORDER BY d.uuid, p.op, p.size",
        best_row, &cb, "reading the best configs", err, "tt", device_uuid, op);
}
