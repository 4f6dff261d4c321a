/* The database's record of searches and vendor yardsticks (migration 0003), and the
 * configs a new search starts from (see db.h). */
#include "db_int.h"

#include <stdio.h>
#include <string.h>

#include <sqlite3.h>

int cutune_db_search_begin(CutuneDb *db, const CutuneSearchInfo *s, int64_t *search_id,
                           CutuneError *err)
{
    if (!db || !s || !s->strategy || !search_id)
        return cutune_error(err, CUTUNE_ERR_INVALID, "cutune_db_search_begin: missing field");
    int rc = db_exec(db, err, "recording a search",
                     "INSERT INTO searches (run_id, device_id, variant_id, problem_id, strategy,"
                     " nvalid) VALUES (?, ?, ?, ?, ?, ?)",
                     "iiiiti", s->run_id, s->device_id, s->variant_id, s->problem_id, s->strategy,
                     (int64_t)s->nvalid);
    if (rc == 0)
        *search_id = sqlite3_last_insert_rowid(cutune_db_sqlite(db));
    return rc;
}

int cutune_db_search_end(CutuneDb *db, int64_t search_id, const char *status, const char *strategy,
                         size_t evaluated, double seconds, CutuneError *err)
{
    static const char *const ok[] = {"done", "spent", "interrupted", "failed"};
    int known = 0;
    for (size_t i = 0; status && i < sizeof ok / sizeof ok[0]; i++)
        known |= strcmp(status, ok[i]) == 0;
    if (!db || !known)
        return cutune_error(err, CUTUNE_ERR_INVALID,
                            "cutune_db_search_end: status '%s' is not done, spent, interrupted "
                            "or failed",
                            status ? status : "(null)");
    return db_exec(db, err, "ending a search",
                   "UPDATE searches SET status = ?, strategy = coalesce(nullif(?, ''), strategy),"
                   " evaluated = ?, seconds = ?, ended_at = datetime('now') WHERE id = ?",
                   "ttidi", status, strategy, (int64_t)evaluated, seconds, search_id);
}

int cutune_db_search_tuned(CutuneDb *db, int64_t device_id, int64_t variant_id, int64_t problem_id,
                           int *tuned, CutuneError *err)
{
    sqlite3_stmt *st = NULL;
    int rc = db_prepare(db, &st,
                        "SELECT count(*) FROM searches WHERE device_id = ? AND variant_id = ?"
                        " AND problem_id = ? AND status IN ('done', 'spent')",
                        "iii", device_id, variant_id, problem_id);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    int code = 0;
    if (rc == SQLITE_ROW)
        *tuned = sqlite3_column_int64(st, 0) > 0;
    else
        code = cutune_db_fail(db, err, rc, "reading earlier searches");
    sqlite3_finalize(st);
    return code;
}

int cutune_db_yardstick_add(CutuneDb *db, int64_t run_id, int64_t device_id, int64_t problem_id,
                            const char *name, double median_ms, int samples, CutuneError *err)
{
    if (!db || !name || !(median_ms > 0))
        return cutune_error(err, CUTUNE_ERR_INVALID,
                            "cutune_db_yardstick_add: no name or no positive time");
    return db_exec(
        db, err, "recording a yardstick",
        "INSERT INTO yardsticks (run_id, device_id, problem_id, name, median_ms, samples)"
        " VALUES (nullif(?, 0), ?, ?, ?, ?, ?)",
        "iiitdi", run_id, device_id, problem_id, name, median_ms, (int64_t)samples);
}

int cutune_db_yardstick_latest(CutuneDb *db, int64_t device_id, int64_t problem_id, char *name,
                               size_t name_len, double *median_ms, int *found, CutuneError *err)
{
    sqlite3_stmt *st = NULL;
    *found = 0;
    int rc = db_prepare(db, &st,
                        "SELECT name, median_ms FROM yardsticks WHERE device_id = ? AND"
                        " problem_id = ? ORDER BY id DESC LIMIT 1",
                        "ii", device_id, problem_id);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    int code = 0;
    if (rc == SQLITE_ROW) {
        const unsigned char *n = sqlite3_column_text(st, 0);
        snprintf(name, name_len, "%s", n ? (const char *)n : "");
        *median_ms = sqlite3_column_double(st, 1);
        *found = 1;
    } else if (rc != SQLITE_DONE) {
        code = cutune_db_fail(db, err, rc, "reading a yardstick");
    }
    sqlite3_finalize(st);
    return code;
}

int cutune_db_warm_configs(CutuneDb *db, const char *op, const char *variant, const char *version,
                           const char *device_uuid, const char *device_name, const char *size,
                           int per_problem, int (*fn)(const CutuneWarmRow *row, void *user),
                           void *user, CutuneError *err)
{
    if (!db || !op || !variant || !version || !device_uuid || !size || !fn)
        return cutune_error(err, CUTUNE_ERR_INVALID, "cutune_db_warm_configs: missing argument");
    /* Per (device, problem): each config's fastest ok time, ranked, and the rank-1 time. */
    static const char sql[] =
        "WITH per AS ("
        "  SELECT t.device_id AS dev, t.problem_id AS prob, t.config AS config,"
        "         min(t.median_ms) AS ms"
        "  FROM trials t JOIN variants v ON v.id = t.variant_id"
        "  JOIN devices d ON d.id = t.device_id JOIN problems p ON p.id = t.problem_id"
        "  WHERE t.status = 'ok' AND t.median_ms > 0 AND v.name = ?1 AND v.version = ?2"
        "    AND p.op = ?3 AND (d.uuid = ?4 OR d.name = ?5)"
        "    AND NOT (d.uuid = ?4 AND p.size = ?6 AND t.checked = 1)"
        "  GROUP BY t.device_id, t.problem_id, t.config),"
        " ranked AS ("
        "  SELECT dev, prob, config, ms,"
        "         row_number() OVER (PARTITION BY dev, prob ORDER BY ms, config) AS rk,"
        "         min(ms) OVER (PARTITION BY dev, prob) AS top"
        "  FROM per)"
        " SELECT r.config, p.size, d.uuid, r.ms, r.ms / r.top, r.rk"
        " FROM ranked r JOIN problems p ON p.id = r.prob JOIN devices d ON d.id = r.dev"
        " WHERE r.rk <= ?7 ORDER BY r.rk, d.uuid, p.size";
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(cutune_db_sqlite(db), sql, -1, &st, NULL);
    const char *texts[] = {variant,
                           version,
                           op,
                           device_uuid,
                           device_name && *device_name ? device_name : device_uuid,
                           size};
    for (int i = 0; rc == SQLITE_OK && i < 6; i++)
        rc = sqlite3_bind_text(st, i + 1, texts[i], -1, SQLITE_STATIC);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int(st, 7, per_problem > 0 ? per_problem : 1);
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        CutuneWarmRow row = {
            .config = (const char *)sqlite3_column_text(st, 0),
            .size = (const char *)sqlite3_column_text(st, 1),
            .device_uuid = (const char *)sqlite3_column_text(st, 2),
            .median_ms = sqlite3_column_double(st, 3),
            .relative = sqlite3_column_double(st, 4),
            .rank = sqlite3_column_int(st, 5),
        };
        if (row.config && row.size && row.device_uuid && fn(&row, user) != 0) {
            rc = SQLITE_DONE;
            break;
        }
        rc = SQLITE_OK;
    }
    int code = rc == SQLITE_DONE ? 0 : cutune_db_fail(db, err, rc, "reading earlier best configs");
    sqlite3_finalize(st);
    return code;
}
