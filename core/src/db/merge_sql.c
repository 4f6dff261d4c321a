/* The SQL of `cutune merge` (see merge.h): one set-based statement per table, from the
 * database attached as "src" into main, through temporary tables that map src's ids to
 * main's by each row's identity. */
#include "merge.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

#include <sqlite3.h>

/* How final a run's or a search's status is: a merge keeps the more final one. */
#define RUN_RANK(s) \
    "(CASE " s " WHEN 'done' THEN 3 WHEN 'failed' THEN 2 WHEN 'interrupted' THEN 1 ELSE 0 END)"
#define SEARCH_RANK(s) \
    "(CASE " s " WHEN 'done' THEN 3 WHEN 'spent' THEN 3 WHEN 'failed' THEN 2" \
    " WHEN 'interrupted' THEN 1 ELSE 0 END)"

/* Run one statement to its end, with ?1 bound to param when it has one; *changes (may be
 * NULL) gets the rows it changed. Returns a SQLite code. */
static int run_with(sqlite3 *h, const char *sql, int64_t param, int64_t *changes)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(h, sql, -1, &st, NULL);
    if (rc == SQLITE_OK && sqlite3_bind_parameter_count(st) > 0)
        rc = sqlite3_bind_int64(st, 1, param);
    if (rc == SQLITE_OK) {
        while ((rc = sqlite3_step(st)) == SQLITE_ROW)
            ;
        if (rc == SQLITE_DONE)
            rc = SQLITE_OK;
    }
    if (rc == SQLITE_OK && changes)
        *changes = sqlite3_changes64(h);
    sqlite3_finalize(st);
    return rc;
}

static int run(sqlite3 *h, const char *sql, int64_t *changes)
{
    return run_with(h, sql, 0, changes);
}

/* The first column of the first row of a query without parameters. */
static int scalar(sqlite3 *h, const char *sql, int64_t *v)
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

int cutune_merge_count(sqlite3 *h, const char *schema, CutuneMergeCounts *c)
{
    static const char *const tables[] = {"devices", "variants", "problems",   "runs",
                                         "trials",  "searches", "yardsticks", "requests"};
    int64_t *fields[] = {&c->devices, &c->variants, &c->problems,   &c->runs,
                         &c->trials,  &c->searches, &c->yardsticks, &c->requests};
    int rc = SQLITE_OK;
    for (size_t i = 0; i < sizeof tables / sizeof *tables && rc == SQLITE_OK; i++) {
        char sql[96];
        snprintf(sql, sizeof sql, "SELECT count(*) FROM \"%s\".%s", schema, tables[i]);
        rc = scalar(h, sql, fields[i]);
    }
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

int cutune_merge_adopt(sqlite3 *h)
{
    /* a pending request's claim belongs to a run tuning the database it came from (see
     * requests_sql); the best is chosen again over everything merged */
    return sqlite3_exec(h,
                        "UPDATE main.requests SET run_id = NULL"
                        " WHERE status = 'pending' AND run_id IS NOT NULL;"
                        "DELETE FROM main.best;",
                        NULL, NULL, NULL);
}

/* src's id -> main's id, per table; filled again for each input. */
static const char maps_sql[] =
    "CREATE TEMP TABLE IF NOT EXISTS merge_dev (s INTEGER PRIMARY KEY, m INTEGER NOT NULL);"
    "CREATE TEMP TABLE IF NOT EXISTS merge_var (s INTEGER PRIMARY KEY, m INTEGER NOT NULL);"
    "CREATE TEMP TABLE IF NOT EXISTS merge_prob (s INTEGER PRIMARY KEY, m INTEGER NOT NULL);"
    "CREATE TEMP TABLE IF NOT EXISTS merge_run (s INTEGER PRIMARY KEY, m INTEGER NOT NULL);"
    "DELETE FROM temp.merge_dev; DELETE FROM temp.merge_var; DELETE FROM temp.merge_prob;"
    "DELETE FROM temp.merge_run;";

/* A device seen on both sides keeps the first and last sightings of both, and the details
 * of the later one. */
#define LATER(col) col " = iif(excluded.last_seen > last_seen, excluded." col ", " col ")"
static const char devices_sql[] =
    "INSERT INTO main.devices (uuid, name, cc_major, cc_minor, sm_count, total_mem,"
    " driver_version, runtime_version, first_seen, last_seen)"
    " SELECT uuid, name, cc_major, cc_minor, sm_count, total_mem, driver_version,"
    " runtime_version, first_seen, last_seen FROM src.devices WHERE true"
    " ON CONFLICT (uuid) DO UPDATE SET " LATER("name") ", " LATER("cc_major") ", " LATER("cc_minor") ", " LATER(
        "sm_count") ", " LATER("total_mem") ", " LATER("driver_version") ", " LATER("runtime_version") ","
                                                                                                       " first_seen = min(first_seen, excluded.first_seen),"
                                                                                                       " last_seen = max(last_seen, excluded.last_seen)"
                                                                                                       " WHERE excluded.first_seen < first_seen OR excluded.last_seen > last_seen";
#undef LATER

static const char ids_sql[] =
    "INSERT INTO temp.merge_dev SELECT s.id, m.id FROM src.devices s"
    " JOIN main.devices m ON m.uuid = s.uuid;"
    "INSERT INTO temp.merge_var SELECT s.id, m.id FROM src.variants s JOIN main.variants m"
    " ON m.name = s.name AND m.version = s.version AND m.source_hash = s.source_hash;"
    "INSERT INTO temp.merge_prob SELECT s.id, m.id FROM src.problems s"
    " JOIN main.problems m ON m.op = s.op AND m.size = s.size;";

static const char runs_sql[] =
    "INSERT INTO main.runs (uuid, started_at, finished_at, argv, op, strategy, budget,"
    " time_limit_s, seed, device_id, status, pid, host)"
    " SELECT r.uuid, r.started_at, r.finished_at, r.argv, r.op, r.strategy, r.budget,"
    " r.time_limit_s, r.seed, d.m, r.status, r.pid, r.host"
    " FROM src.runs r LEFT JOIN temp.merge_dev d ON d.s = r.device_id WHERE true ORDER BY r.id"
    " ON CONFLICT (uuid) DO UPDATE SET status = excluded.status,"
    " finished_at = excluded.finished_at"
    " WHERE " RUN_RANK("excluded.status") " > " RUN_RANK("status");

static const char run_ids_sql[] = "INSERT INTO temp.merge_run SELECT s.id, m.id FROM src.runs s"
                                  " JOIN main.runs m ON m.uuid = s.uuid";

/* A trial is the same trial when its run, key, config, status, time, seed and creation
 * agree: two measurements of one config in one run within the same second that also agree
 * to the last bit of their median are not told apart. A trial of a run new to main (an id
 * above ?1, main's last run before this input) cannot be there yet: it is not looked for. */
static const char trials_sql[] =
    "INSERT INTO main.trials (run_id, device_id, variant_id, problem_id, config, status,"
    " median_ms, min_ms, mean_ms, stddev_ms, samples, gflops, gbps, error, compile_ms,"
    " measure_ms, message, seed, created_at, cut_short)"
    " SELECT r.m, d.m, v.m, p.m, t.config, t.status, t.median_ms, t.min_ms, t.mean_ms,"
    " t.stddev_ms, t.samples, t.gflops, t.gbps, t.error, t.compile_ms, t.measure_ms,"
    " t.message, t.seed, t.created_at, t.cut_short"
    " FROM src.trials t JOIN temp.merge_dev d ON d.s = t.device_id"
    " JOIN temp.merge_var v ON v.s = t.variant_id JOIN temp.merge_prob p ON p.s = t.problem_id"
    " LEFT JOIN temp.merge_run r ON r.s = t.run_id"
    " WHERE r.m > ?1 OR NOT EXISTS (SELECT 1 FROM main.trials x WHERE x.device_id = d.m"
    " AND x.variant_id = v.m AND x.problem_id = p.m AND x.config = t.config"
    " AND x.run_id IS r.m AND x.status = t.status AND x.created_at = t.created_at"
    " AND x.median_ms IS t.median_ms AND x.seed IS t.seed)"
    " ORDER BY t.id";

#define SEARCH_MAPS \
    " FROM src.searches s JOIN temp.merge_run r ON r.s = s.run_id" \
    " JOIN temp.merge_dev d ON d.s = s.device_id JOIN temp.merge_var v ON v.s = s.variant_id" \
    " JOIN temp.merge_prob p ON p.s = s.problem_id"
static const char searches_end_sql[] =
    "UPDATE main.searches AS x SET status = s.status, strategy = s.strategy,"
    " evaluated = s.evaluated, seconds = s.seconds, ended_at = s.ended_at" SEARCH_MAPS
    " WHERE x.run_id = r.m AND x.device_id = d.m AND x.variant_id = v.m"
    " AND x.problem_id = p.m AND x.started_at = s.started_at"
    " AND " SEARCH_RANK("s.status") " > " SEARCH_RANK("x.status");
static const char searches_sql[] =
    "INSERT INTO main.searches (run_id, device_id, variant_id, problem_id, strategy, nvalid,"
    " evaluated, seconds, status, started_at, ended_at)"
    " SELECT r.m, d.m, v.m, p.m, s.strategy, s.nvalid, s.evaluated, s.seconds, s.status,"
    " s.started_at, s.ended_at" SEARCH_MAPS
    " WHERE NOT EXISTS (SELECT 1 FROM main.searches x WHERE x.device_id = d.m"
    " AND x.variant_id = v.m AND x.problem_id = p.m AND x.run_id = r.m"
    " AND x.started_at = s.started_at)"
    " ORDER BY s.id";
#undef SEARCH_MAPS

static const char yardsticks_sql[] =
    "INSERT INTO main.yardsticks (run_id, device_id, problem_id, name, median_ms, samples,"
    " created_at)"
    " SELECT r.m, d.m, p.m, y.name, y.median_ms, y.samples, y.created_at"
    " FROM src.yardsticks y JOIN temp.merge_dev d ON d.s = y.device_id"
    " JOIN temp.merge_prob p ON p.s = y.problem_id LEFT JOIN temp.merge_run r ON r.s = y.run_id"
    " WHERE NOT EXISTS (SELECT 1 FROM main.yardsticks x WHERE x.device_id = d.m"
    " AND x.problem_id = p.m AND x.run_id IS r.m AND x.name = y.name"
    " AND x.created_at = y.created_at AND x.median_ms = y.median_ms)"
    " ORDER BY y.id";

/* A pending request's claim belongs to a run tuning the database it came from: it is not
 * carried over. Counts are copies more often than separate lookups (shards start from one
 * database): the larger is kept, never the sum, so that a second merge adds nothing. */
#define LATER(col) col " = iif(excluded.last_at > last_at, excluded." col ", " col ")"
#define TAKES_DONE "(status = 'pending' AND excluded.status = 'done')"
static const char requests_sql[] =
    "INSERT INTO main.requests (device_uuid, device_name, cc_major, cc_minor, op, size,"
    " answered_by, count, status, first_at, last_at, done_at, run_id)"
    " SELECT q.device_uuid, q.device_name, q.cc_major, q.cc_minor, q.op, q.size,"
    " q.answered_by, q.count, q.status, q.first_at, q.last_at, q.done_at,"
    " iif(q.status = 'done', r.m, NULL)"
    " FROM src.requests q LEFT JOIN temp.merge_run r ON r.s = q.run_id WHERE true ORDER BY q.id"
    " ON CONFLICT (device_uuid, op, size) DO UPDATE SET " LATER("device_name") ", " LATER("cc_major") ", " LATER(
        "cc_minor") ", " LATER("answered_by") ","
                                              " count = max(count, excluded.count), first_at = min(first_at, excluded.first_at),"
                                              " last_at = max(last_at, excluded.last_at),"
                                              " done_at = iif(" TAKES_DONE
                                              ", excluded.done_at, done_at),"
                                              " run_id = iif(" TAKES_DONE
                                              ", excluded.run_id, run_id),"
                                              " status = iif(" TAKES_DONE ", 'done', status)"
                                              " WHERE excluded.last_at > last_at OR excluded.first_at < first_at"
                                              " OR excluded.count > count OR " TAKES_DONE;
#undef TAKES_DONE
#undef LATER

/* A variant's (name, version, source hash) names one kernel of one op: two databases that
 * give it different ops cannot both be right. */
static int check_variants(sqlite3 *h, const char *label, const char *main_label, CutuneError *err)
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

/* Rows added by an upsert: the table's count before and after. */
static int upsert(sqlite3 *h, const char *sql, const char *table, int64_t *added, int64_t *updated)
{
    char count[64];
    snprintf(count, sizeof count, "SELECT count(*) FROM main.%s", table);
    int64_t before = 0, after = 0, changes = 0;
    int rc = scalar(h, count, &before);
    if (rc == SQLITE_OK)
        rc = run(h, sql, &changes);
    if (rc == SQLITE_OK)
        rc = scalar(h, count, &after);
    *added += after - before;
    if (updated)
        *updated += changes - (after - before);
    return rc;
}

int cutune_merge_attached(sqlite3 *h, const char *label, const char *main_label,
                          CutuneMergeCounts *added, CutuneMergeResult *res, CutuneError *err)
{
    int64_t n = 0;
    int rc = check_variants(h, label, main_label, err);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(h, maps_sql, NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = upsert(h, devices_sql, "devices", &added->devices, NULL);
    if (rc == SQLITE_OK &&
        (rc = run(h,
                  "INSERT INTO main.variants (op, name, version, source_hash)"
                  " SELECT op, name, version, source_hash FROM src.variants WHERE true"
                  " ORDER BY id ON CONFLICT DO NOTHING",
                  &n)) == SQLITE_OK)
        added->variants += n;
    if (rc == SQLITE_OK &&
        (rc = run(h,
                  "INSERT INTO main.problems (op, size) SELECT op, size FROM src.problems"
                  " WHERE true ORDER BY id ON CONFLICT DO NOTHING",
                  &n)) == SQLITE_OK)
        added->problems += n;
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(h, ids_sql, NULL, NULL, NULL);
    int64_t last_run = 0;
    if (rc == SQLITE_OK)
        rc = scalar(h, "SELECT coalesce(max(id), 0) FROM main.runs", &last_run);
    if (rc == SQLITE_OK)
        rc = upsert(h, runs_sql, "runs", &added->runs, &res->runs_ended);
    if (rc == SQLITE_OK)
        rc = run(h, run_ids_sql, NULL);
    if (rc == SQLITE_OK && (rc = run_with(h, trials_sql, last_run, &n)) == SQLITE_OK)
        added->trials += n;
    if (rc == SQLITE_OK && (rc = run(h, searches_end_sql, &n)) == SQLITE_OK)
        res->searches_ended += n;
    if (rc == SQLITE_OK && (rc = run(h, searches_sql, &n)) == SQLITE_OK)
        added->searches += n;
    if (rc == SQLITE_OK && (rc = run(h, yardsticks_sql, &n)) == SQLITE_OK)
        added->yardsticks += n;
    if (rc == SQLITE_OK)
        rc = upsert(h, requests_sql, "requests", &added->requests, &res->requests_updated);
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
    " WHERE id > ?1 AND status = 'ok' AND median_ms > 0";
#define BEST_AGG(keys) \
    "WITH agg AS (SELECT t.device_id, t.problem_id, t.variant_id, min(t.median_ms) AS ms," \
    "  max(t.created_at) AS last FROM main.trials t" \
    "  WHERE t.status = 'ok' AND t.median_ms > 0" keys \
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
    "  AND x.problem_id = p.problem_id AND x.status = 'ok' AND x.median_ms = p.ms" \
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
        if ((rc = run(h, best_all_sql, &n)) == SQLITE_OK)
            *changed += n;
        if (rc == SQLITE_OK && (rc = scalar(h, "SELECT count(*) FROM main.best", &n)) == SQLITE_OK)
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
        (rc = scalar(h, "SELECT count(*) FROM temp.merge_keys", &n)) == SQLITE_OK)
        *keys += n;
    if (rc == SQLITE_OK && (rc = run(h, best_sql, &n)) == SQLITE_OK)
        *changed += n;
    return rc;
}
