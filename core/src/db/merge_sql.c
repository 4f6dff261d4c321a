/* The SQL of `cutune merge` (see merge.h) besides the row copy (merge_copy.c): the UUIDs of
 * runs that had none, the check that two databases agree on their variants, and the best
 * configs chosen again. */
#include "merge.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

#include <sqlite3.h>

int cutune_merge_exec(sqlite3 *h, const char *sql, int64_t *changes)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(h, sql, -1, &st, NULL);
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW)
        ;
    if (rc == SQLITE_DONE)
        rc = SQLITE_OK;
    if (rc == SQLITE_OK && changes)
        *changes = sqlite3_changes64(h);
    sqlite3_finalize(st);
    return rc;
}

int cutune_merge_scalar(sqlite3 *h, const char *sql, int64_t *v)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(h, sql, -1, &st, NULL);
    if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        *v = sqlite3_column_int64(st, 0);
        rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    return rc;
}

int cutune_merge_run_uuids(sqlite3 *h, const char *schema, int all)
{
    sqlite3_stmt *sel = NULL, *upd = NULL;
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT r.id, d.uuid, r.started_at, r.argv, r.seed FROM \"%s\".runs r"
             " LEFT JOIN \"%s\".devices d ON d.id = r.device_id WHERE ?1 OR r.uuid IS NULL",
             schema, schema);
    int rc = sqlite3_prepare_v2(h, sql, -1, &sel, NULL);
    if (rc == SQLITE_OK) {
        snprintf(sql, sizeof sql, "UPDATE \"%s\".runs SET uuid = ?1 WHERE id = ?2", schema);
        rc = sqlite3_prepare_v2(h, sql, -1, &upd, NULL);
    }
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int(sel, 1, all != 0);
    while (rc == SQLITE_OK && (rc = sqlite3_step(sel)) == SQLITE_ROW) {
        CutuneHash hash;
        char hex[33];
        cutune_hash_init(&hash);
        cutune_hash_str(&hash, "cutune run before 0003");
        for (int col = 0; col < 5; col++) { /* NULL and '' hash apart */
            const unsigned char *t = sqlite3_column_text(sel, col);
            cutune_hash_str(&hash, t ? "v" : "n");
            cutune_hash_str(&hash, t ? (const char *)t : "");
        }
        cutune_hash_hex(&hash, hex);
        if ((rc = sqlite3_bind_text(upd, 1, hex, -1, SQLITE_TRANSIENT)) == SQLITE_OK &&
            (rc = sqlite3_bind_int64(upd, 2, sqlite3_column_int64(sel, 0))) == SQLITE_OK &&
            (rc = sqlite3_step(upd)) == SQLITE_DONE)
            rc = sqlite3_reset(upd);
    }
    if (rc == SQLITE_DONE)
        rc = SQLITE_OK;
    sqlite3_finalize(sel);
    sqlite3_finalize(upd);
    return rc;
}

/* A variant's (name, version, source hash) names one kernel of one op: two databases that
 * give it different ops cannot both be right. */
int cutune_merge_check_variants(sqlite3 *h, const char *label, const char *main_label,
                                CutuneError *err)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(
        h,
        "SELECT s.name, s.version, s.op, m.op FROM src.variants s JOIN main.variants m"
        " ON m.name = s.name AND m.version = s.version AND m.source_hash = s.source_hash"
        " WHERE m.op <> s.op LIMIT 1",
        -1, &st, NULL);
    if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        cutune_error(err, CUTUNE_ERR_DB,
                     "the databases disagree on variant %s version %s (one name, version and "
                     "kernel source): %s records it for op %s, %s for op %s; merge without the "
                     "one that is wrong",
                     sqlite3_column_text(st, 0), sqlite3_column_text(st, 1), label,
                     sqlite3_column_text(st, 2), main_label, sqlite3_column_text(st, 3));
        rc = -1;
    } else if (rc == SQLITE_DONE) {
        rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    return rc;
}

/* The keys to recompute; per (key, variant row) the fastest verified time and the latest
 * verified trial (one pass over the trials); the version of each variant name in force at
 * each key (that of its latest verified trial; equal times go to the longer, then larger,
 * version text: "10" after "9"); the fastest of the versions in force; and its trial, found
 * through the index on (device, variant, problem). */
static const char best_keys_sql[] =
    "CREATE TEMP TABLE IF NOT EXISTS merge_keys (device_id INTEGER, problem_id INTEGER,"
    " PRIMARY KEY (device_id, problem_id)) WITHOUT ROWID;"
    "DELETE FROM temp.merge_keys;";
static const char best_fill_sql[] =
    "INSERT OR IGNORE INTO temp.merge_keys SELECT device_id, problem_id FROM main.trials"
    " WHERE id > ?1 AND status = 'ok' AND checked = 1 AND median_ms > 0";
#define BEST_AGG(keys) \
    "WITH agg AS (SELECT t.device_id, t.problem_id, t.variant_id, min(t.median_ms) AS ms," \
    "  max(t.created_at) AS last FROM main.trials t" \
    "  WHERE t.status = 'ok' AND t.checked = 1 AND t.median_ms > 0" keys \
    "  GROUP BY t.device_id, t.problem_id, t.variant_id),"
#define BEST_KEYS \
    "  AND (t.device_id, t.problem_id) IN (SELECT device_id, problem_id FROM temp.merge_keys)"
#define BEST_CHOICE \
    " named AS (SELECT a.*, v.name, v.version FROM agg a JOIN main.variants v" \
    "  ON v.id = a.variant_id)," \
    " latest AS (SELECT device_id, problem_id, name, version, row_number() OVER (" \
    "  PARTITION BY device_id, problem_id, name" \
    "  ORDER BY last DESC, length(version) DESC, version DESC) AS k FROM named)," \
    " pick AS (SELECT n.device_id, n.problem_id, n.variant_id, n.ms, row_number() OVER (" \
    "  PARTITION BY n.device_id, n.problem_id ORDER BY n.ms, n.variant_id) AS k" \
    "  FROM named n JOIN latest l ON l.k = 1 AND l.device_id = n.device_id" \
    "  AND l.problem_id = n.problem_id AND l.name = n.name AND l.version = n.version)" \
    " INSERT INTO main.best (device_id, problem_id, trial_id)" \
    " SELECT p.device_id, p.problem_id, (SELECT x.id FROM main.trials x" \
    "  WHERE x.device_id = p.device_id AND x.variant_id = p.variant_id" \
    "  AND x.problem_id = p.problem_id AND x.status = 'ok' AND x.checked = 1" \
    "  AND x.median_ms = p.ms" \
    "  ORDER BY x.created_at, x.config, x.id LIMIT 1)" \
    " FROM pick p WHERE p.k = 1" \
    " ON CONFLICT (device_id, problem_id) DO UPDATE SET trial_id = excluded.trial_id," \
    " updated_at = datetime('now') WHERE trial_id <> excluded.trial_id"
/* the keys given by temp.merge_keys; every key (no list to build and probe) */
static const char best_sql[] = BEST_AGG(BEST_KEYS) BEST_CHOICE;
static const char best_all_sql[] = BEST_AGG("") BEST_CHOICE;
#undef BEST_AGG
#undef BEST_KEYS
#undef BEST_CHOICE

int cutune_merge_best(sqlite3 *h, int64_t since_trial, int64_t *keys, int64_t *changed)
{
    sqlite3_stmt *st = NULL;
    int64_t n = 0;
    int rc = SQLITE_OK;
    if (since_trial <= 0) { /* every key: counted from what was chosen */
        if ((rc = cutune_merge_exec(h, best_all_sql, &n)) == SQLITE_OK)
            *changed += n;
        if (rc == SQLITE_OK &&
            (rc = cutune_merge_scalar(h, "SELECT count(*) FROM main.best", &n)) == SQLITE_OK)
            *keys += n;
        return rc;
    }
    rc = sqlite3_exec(h, best_keys_sql, NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(h, best_fill_sql, -1, &st, NULL);
    if (rc == SQLITE_OK && (rc = sqlite3_bind_int64(st, 1, since_trial)) == SQLITE_OK &&
        (rc = sqlite3_step(st)) == SQLITE_DONE)
        rc = SQLITE_OK;
    sqlite3_finalize(st);
    if (rc == SQLITE_OK &&
        (rc = cutune_merge_scalar(h, "SELECT count(*) FROM temp.merge_keys", &n)) == SQLITE_OK)
        *keys += n;
    if (rc == SQLITE_OK && (rc = cutune_merge_exec(h, best_sql, &n)) == SQLITE_OK)
        *changed += n;
    return rc;
}
