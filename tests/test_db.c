/* The tuning database: schema and migrations, get-or-create rows, trials and the best
 * config, lookups, refusals (newer schema, not a database, read-only), directories, and
 * readers next to a writer (WAL). Everything happens in a fresh directory under /tmp. */
#include <errno.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "check.h"
#include "db_fixture.h"
#include "db.h"
#include "raw_sqlite.h"
#include "tmpdir.h"

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = malloc(1 << 20);
    *len = buf ? fread(buf, 1, 1 << 20, f) : 0;
    fclose(f);
    return buf;
}

static CutuneDeviceInfo device(const char *uuid, const char *name, int sm)
{
    CutuneDeviceInfo d = fixture_device(uuid, name);
    d.sm_count = sm;
    d.total_mem = 85899345920ull;
    d.driver_version = 13000;
    d.runtime_version = 13000;
    return d;
}

static int add_trial(CutuneDb *db, int64_t run, int64_t dev, int64_t var, int64_t prob,
                     const char *config, CutuneStatus status, double median, int64_t *id,
                     int *is_best)
{
    CutuneTrialRecord t = fixture_trial(run, dev, var, prob, config, status);
    t.median_ms = median;
    t.min_ms = median * 0.9;
    t.mean_ms = median * 1.1;
    t.stddev_ms = median / 10;
    t.samples = 20;
    t.gflops = median > 0 ? 100 / median : 0;
    t.error = 1e-6;
    t.compile_ms = 120;
    t.measure_ms = 30;
    t.message = status == CUTUNE_STATUS_OK ? NULL : "it failed";
    t.seed = UINT64_MAX - 1;
    CutuneError e = {0};
    int rc = cutune_db_trial_insert(db, &t, id, is_best, &e);
    if (rc)
        fprintf(stderr, "trial %s: %s\n", config, e.msg);
    return rc;
}

/* ---- fresh database, reopen ------------------------------------------------------------ */

static void test_fresh_and_reopen(void)
{
    const char *path = in_tmp("fresh.db");
    CutuneDb *db = NULL;
    CutuneError e = {0};
    CHECK(cutune_db_schema_latest() >= 1);
    CHECK_EQ_INT(cutune_db_open(path, 0, &db, &e), 0);
    CHECK(db != NULL);
    if (!db)
        return;
    CHECK_EQ_INT(cutune_db_schema_version(db), cutune_db_schema_latest());
    char mode[32];
    raw_text(path, "PRAGMA journal_mode", mode, sizeof mode);
    CHECK_MSG(strcmp(mode, "wal") == 0, "journal mode %s", mode);
    CHECK_EQ_INT(raw_int(path, "PRAGMA user_version"), cutune_db_schema_latest());
    CHECK_EQ_INT(raw_int(path, "SELECT count(*) FROM sqlite_schema WHERE name IN ('devices',"
                               "'variants','problems','runs','trials','best','best_configs',"
                               "'trial_details')"),
                 8);

    int64_t run = 0, p1 = 0, p1b = 0;
    e = (CutuneError){0};
    CHECK_EQ_INT(cutune_db_last_run(db, &run, &e), CUTUNE_ERR_NOT_FOUND);
    CHECK_STR_CONTAINS(e.msg, path);
    CHECK_EQ_INT(cutune_db_problem(db, "gemm", "1024", &p1, NULL), 0);
    CHECK(p1 > 0);
    /* foreign keys are enforced: a trial of an unknown device is refused */
    e = (CutuneError){0};
    CHECK_EQ_INT(add_trial(db, 0, 4242, 4242, p1, "X=1", CUTUNE_STATUS_OK, 1, NULL, NULL),
                 CUTUNE_ERR_DB);
    CHECK_EQ_INT(raw_int(path, "SELECT count(*) FROM trials"), 0);
    cutune_db_close(&db);
    CHECK(db == NULL);
    cutune_db_close(&db); /* harmless twice */
    cutune_db_close(NULL);

    /* reopen: no migration again (it would fail on existing tables), data kept */
    e = (CutuneError){0};
    CHECK_MSG(cutune_db_open(path, 0, &db, &e) == 0, "%s", e.msg);
    if (!db)
        return;
    CHECK_EQ_INT(cutune_db_schema_version(db), cutune_db_schema_latest());
    CHECK_EQ_INT(cutune_db_problem(db, "gemm", "1024", &p1b, NULL), 0);
    CHECK_EQ_INT(p1b, p1);
    CHECK_EQ_INT(raw_int(path, "SELECT count(*) FROM problems"), 1);
    cutune_db_close(&db);
}

/* ---- rows, trials, best ------------------------------------------------------------------ */

typedef struct Seen {
    int n, stop_after;
    int64_t ids[32];
    char configs[32][32];
    char statuses[32][32];
    double medians[32];
    int null_messages;
    uint64_t seed;
} Seen;

static int seen_trial(const CutuneTrialRow *r, void *user)
{
    Seen *s = user;
    if (s->n < 32) {
        s->ids[s->n] = r->id;
        snprintf(s->configs[s->n], 32, "%s/%s/%s/%s", r->variant, r->op, r->size, r->config);
        snprintf(s->statuses[s->n], 32, "%s", r->status);
        s->medians[s->n] = r->median_ms;
    }
    s->null_messages += r->message == NULL;
    s->seed = r->seed;
    s->n++;
    return s->stop_after && s->n >= s->stop_after;
}

static int seen_config(const char *config, const char *status, double median, void *user)
{
    Seen *s = user;
    if (s->n < 32) {
        snprintf(s->configs[s->n], 32, "%s", config);
        snprintf(s->statuses[s->n], 32, "%s", status);
        s->medians[s->n] = median;
    }
    s->n++;
    return 0;
}

static int find_config(const Seen *s, const char *config)
{
    int at = -1;
    for (int i = 0; i < s->n && i < 32; i++)
        if (strcmp(s->configs[i], config) == 0)
            at = at < 0 ? i : -2; /* -2: seen twice */
    return at;
}

static void test_rows_and_best(void)
{
    const char *path = in_tmp("rows.db");
    CutuneDb *db = NULL;
    CutuneError e = {0};
    CHECK_MSG(cutune_db_open(path, 0, &db, &e) == 0, "%s", e.msg);
    if (!db)
        return;

    /* devices: upsert by UUID (c, whose name holds a's UUID, comes first) */
    CutuneDeviceInfo a = device("GPU-aaaa-1111", "NVIDIA H100", 114);
    CutuneDeviceInfo c = device("GPU-cccc-3333", "Clone of GPU-aaaa-1111", 8);
    int64_t d1 = 0, d1b = 0, d2 = 0, d3 = 0;
    CHECK_EQ_INT(cutune_db_device(db, &c, &d3, NULL), 0);
    CHECK_EQ_INT(cutune_db_device(db, &a, &d1, NULL), 0);
    snprintf(a.name, sizeof a.name, "NVIDIA H100 80GB HBM3");
    a.sm_count = 132;
    CHECK_EQ_INT(cutune_db_device(db, &a, &d1b, NULL), 0);
    CHECK(d1 > 0);
    CHECK_EQ_INT(d1b, d1);
    CHECK_EQ_INT(raw_int(path, "SELECT count(*) FROM devices"), 2);
    CHECK_EQ_INT(raw_int(path, "SELECT sm_count FROM devices WHERE uuid = 'GPU-aaaa-1111'"), 132);
    char name[64];
    raw_text(path, "SELECT name FROM devices WHERE uuid = 'GPU-aaaa-1111'", name, sizeof name);
    CHECK_MSG(strcmp(name, "NVIDIA H100 80GB HBM3") == 0, "name %s", name);
    CutuneDeviceInfo b = device("GPU-bbbb-2222", "NVIDIA A100-SXM4", 108);
    CHECK_EQ_INT(cutune_db_device(db, &b, &d2, NULL), 0);
    CHECK(d2 != d1 && d3 != d1 && d3 != d2);

    /* variants and problems: get-or-create */
    int64_t v1 = 0, v1b = 0, v2 = 0, v3 = 0, vx = -7, p1 = 0, p1b = 0, p2 = 0, p3 = 0;
    CHECK_EQ_INT(cutune_db_variant(db, "gemm", "tiled", "1", "hashA", &v1, NULL), 0);
    CHECK_EQ_INT(cutune_db_variant(db, "gemm", "tiled", "1", "hashA", &v1b, NULL), 0);
    CHECK_EQ_INT(cutune_db_variant(db, "gemm", "tiled", "2", "hashA", &v2, NULL), 0);
    CHECK_EQ_INT(cutune_db_variant(db, "gemm", "naive", "1", "hashB", &v3, NULL), 0);
    CHECK(v1 > 0);
    CHECK_EQ_INT(v1b, v1);
    CHECK(v2 != v1 && v3 != v1 && v3 != v2);
    e = (CutuneError){0};
    CHECK_EQ_INT(cutune_db_variant(db, "transpose", "tiled", "1", "hashA", &vx, &e),
                 CUTUNE_ERR_INVALID);
    CHECK_STR_CONTAINS(e.msg, "gemm");
    CHECK_EQ_INT(raw_int(path, "SELECT count(*) FROM variants"), 3);
    CHECK_EQ_INT(cutune_db_problem(db, "gemm", "1024", &p1, NULL), 0);
    CHECK_EQ_INT(cutune_db_problem(db, "gemm", "1024", &p1b, NULL), 0);
    CHECK_EQ_INT(cutune_db_problem(db, "gemm", "2048", &p2, NULL), 0);
    CHECK_EQ_INT(cutune_db_problem(db, "transpose", "1024", &p3, NULL), 0);
    CHECK_EQ_INT(p1b, p1);
    CHECK(p2 != p1 && p3 != p1 && p3 != p2);

    /* runs */
    CutuneRunInfo ri = {.argv = "cutune tune gemm",
                        .op = "gemm",
                        .strategy = "exhaustive",
                        .budget = 100,
                        .time_limit_s = 60,
                        .seed = UINT64_MAX,
                        .device_id = d1};
    int64_t r1 = 0, r2 = 0, last = 0;
    CHECK_EQ_INT(cutune_db_run_begin(db, &ri, &r1, NULL), 0);
    CHECK_EQ_INT(cutune_db_last_run(db, &last, NULL), 0);
    CHECK_EQ_INT(last, r1);
    char st[32];
    raw_text(path, "SELECT status FROM runs", st, sizeof st);
    CHECK_MSG(strcmp(st, "running") == 0, "status %s", st);
    CHECK_EQ_INT(raw_int(path, "SELECT seed FROM runs"), -1); /* UINT64_MAX's bit pattern */
    CHECK_EQ_INT(cutune_db_run_end(db, r1, "done", NULL), 0);
    raw_text(path, "SELECT status FROM runs", st, sizeof st);
    CHECK_MSG(strcmp(st, "done") == 0, "status %s", st);
    CHECK_EQ_INT(raw_int(path, "SELECT finished_at IS NOT NULL FROM runs"), 1);
    CHECK_EQ_INT(cutune_db_run_end(db, r1, "running", NULL), CUTUNE_ERR_INVALID);
    CHECK_EQ_INT(cutune_db_run_end(db, r1 + 1000, "failed", NULL), CUTUNE_ERR_NOT_FOUND);
    ri.device_id = 0; /* no device: NULL, not a broken reference */
    CHECK_EQ_INT(cutune_db_run_begin(db, &ri, &r2, NULL), 0);
    CHECK(r2 > r1);
    CHECK_EQ_INT(cutune_db_last_run(db, &last, NULL), 0);
    CHECK_EQ_INT(last, r2);

    /* trials and the best of (d1, gemm 1024) */
#define TRIAL(dev, var, config, status, ms, i) \
    add_trial(db, r2, dev, var, p1, config, CUTUNE_STATUS_##status, ms, &t[i], &best[i])
    int64_t t[12] = {0};
    int best[12];
    memset(best, -1, sizeof best);
    CHECK_EQ_INT(TRIAL(d1, v1, "TILE=16", OK, 2.0, 0), 0);
    CHECK_EQ_INT(best[0], 1);
    CutuneBest bb;
    e = (CutuneError){0};
    CHECK_MSG(cutune_db_best(db, a.uuid, "gemm", "1024", &bb, &e) == 0, "%s", e.msg);
    CHECK_EQ_INT(bb.trial_id, t[0]);
    CHECK_MSG(strcmp(bb.config, "TILE=16") == 0, "%s", bb.config);
    CHECK_EQ_INT(TRIAL(d1, v1, "TILE=32", OK, 1.5, 1), 0);
    CHECK_EQ_INT(best[1], 1);
    /* faster but wrong: never the best, and its timings are not stored */
    CHECK_EQ_INT(TRIAL(d1, v1, "TILE=8", WRONG_RESULT, 0.5, 2), 0);
    CHECK_EQ_INT(best[2], 0);
    char q[128];
    snprintf(q, sizeof q, "SELECT median_ms IS NULL AND error > 0 FROM trials WHERE id = %lld",
             (long long)t[2]);
    CHECK_EQ_INT(raw_int(path, q), 1);
    e = (CutuneError){0};
    CHECK_MSG(cutune_db_best(db, a.uuid, "gemm", "1024", &bb, &e) == 0, "%s", e.msg);
    CHECK_EQ_INT(bb.trial_id, t[1]);
    CHECK_MSG(strcmp(bb.config, "TILE=32") == 0, "%s", bb.config);
    CHECK(bb.median_ms == 1.5);
    CHECK_EQ_INT(TRIAL(d1, v1, "TILE=64", COMPILE_ERROR, 0, 3), 0);
    CHECK_EQ_INT(best[3], 0);
    /* another variant of the same op is faster: it becomes the best of the problem */
    CHECK_EQ_INT(TRIAL(d1, v3, "BLOCK=256", OK, 1.0, 4), 0);
    CHECK_EQ_INT(best[4], 1);
    /* a slower re-measure of TILE=16, then one of each remaining status */
    CHECK_EQ_INT(TRIAL(d1, v1, "TILE=16", OK, 3.0, 5), 0);
    CHECK_EQ_INT(best[5], 0);
    CHECK_EQ_INT(TRIAL(d1, v1, "TILE=128", SKIPPED_RESOURCES, 0, 6), 0);
    CHECK_EQ_INT(TRIAL(d1, v1, "TILE=4", TIMEOUT, 0, 7), 0);
    CHECK_EQ_INT(TRIAL(d1, v1, "TILE=2", LAUNCH_ERROR, 0, 8), 0);
    CHECK_EQ_INT(TRIAL(d1, v1, "TILE=1", CRASHED, 0, 9), 0);
    /* an equal time does not replace the best; another device has its own best */
    CHECK_EQ_INT(TRIAL(d1, v2, "TILE=16", OK, 1.0, 10), 0);
    CHECK_EQ_INT(best[10], 0);
    CHECK_EQ_INT(TRIAL(d2, v1, "TILE=16", OK, 5.0, 11), 0);
    CHECK_EQ_INT(best[11], 1);
#undef TRIAL
    for (int i = 6; i <= 9; i++)
        CHECK_EQ_INT(best[i], 0);
    for (int i = 1; i < 12; i++)
        CHECK(t[i] > t[i - 1]);
    CHECK_EQ_INT(raw_int(path, "SELECT count(*) FROM trials"), 12);
    CHECK_EQ_INT(raw_int(path, "SELECT count(*) FROM best"), 2);

    memset(&bb, 0, sizeof bb);
    e = (CutuneError){0};
    CHECK_MSG(cutune_db_best(db, a.uuid, "gemm", "1024", &bb, &e) == 0, "%s", e.msg);
    CHECK_EQ_INT(bb.trial_id, t[4]);
    CHECK_MSG(strcmp(bb.variant, "naive") == 0 && strcmp(bb.variant_version, "1") == 0 &&
                  strcmp(bb.config, "BLOCK=256") == 0 && strcmp(bb.op, "gemm") == 0 &&
                  strcmp(bb.size, "1024") == 0 && strcmp(bb.device_uuid, a.uuid) == 0 &&
                  strcmp(bb.device_name, a.name) == 0,
              "%s %s %s %s %s %s %s", bb.variant, bb.variant_version, bb.config, bb.op, bb.size,
              bb.device_uuid, bb.device_name);
    CHECK(bb.median_ms == 1.0 && bb.min_ms == 0.9 && bb.gflops == 100 && bb.samples == 20);
    CHECK_MSG(strlen(bb.updated_at) == 19 && bb.updated_at[4] == '-' && bb.updated_at[10] == ' ',
              "updated_at '%s'", bb.updated_at);
    CHECK_EQ_INT(cutune_db_best(db, b.uuid, "gemm", "1024", &bb, NULL), 0);
    CHECK_EQ_INT(bb.trial_id, t[11]);
    e = (CutuneError){0};
    CHECK_EQ_INT(cutune_db_best(db, a.uuid, "gemm", "4096", &bb, &e), CUTUNE_ERR_NOT_FOUND);
    CHECK_STR_CONTAINS(e.msg, "4096");
    CHECK_STR_CONTAINS(e.msg, path);
    CHECK_EQ_INT(cutune_db_best(db, a.uuid, "transpose", "1024", &bb, NULL), CUTUNE_ERR_NOT_FOUND);
    CHECK_EQ_INT(cutune_db_best(db, "GPU-none", "gemm", "1024", &bb, NULL), CUTUNE_ERR_NOT_FOUND);
    /* the fastest of one variant (any version), by device and by device model */
    CHECK_EQ_INT(cutune_db_best_of_variant(db, a.uuid, "gemm", "1024", "tiled", NULL, &bb, NULL),
                 0);
    CHECK_EQ_INT(bb.trial_id, t[10]);
    CHECK_EQ_INT(cutune_db_best_of_variant_model(db, b.name, "gemm", "1024", "tiled", NULL, &bb,
                                                 NULL),
                 0);
    CHECK_EQ_INT(bb.trial_id, t[11]);
    CHECK_MSG(strcmp(bb.device_uuid, b.uuid) == 0, "%s", bb.device_uuid);
    CHECK_EQ_INT(cutune_db_best_of_variant_model(db, a.name, "gemm", "1024", "naive", NULL, &bb,
                                                 NULL),
                 0);
    CHECK_EQ_INT(bb.trial_id, t[4]);
    CHECK_EQ_INT(cutune_db_best_of_variant_model(db, "NVIDIA H100", "gemm", "1024", "tiled", NULL,
                                                 &bb, NULL),
                 CUTUNE_ERR_NOT_FOUND); /* a model is matched whole, not as a prefix */
    /* at one version: tiled 2's TILE=16 (1.0 ms) is faster than anything of tiled 1, whose
     * best is TILE=32 (1.5 ms); a version never tuned is not found, and the message says so */
    CHECK_EQ_INT(cutune_db_best_of_variant(db, a.uuid, "gemm", "1024", "tiled", "1", &bb, NULL), 0);
    CHECK_EQ_INT(bb.trial_id, t[1]);
    CHECK_MSG(strcmp(bb.variant_version, "1") == 0, "%s", bb.variant_version);
    CHECK_EQ_INT(cutune_db_best_of_variant(db, a.uuid, "gemm", "1024", "tiled", "2", &bb, NULL), 0);
    CHECK_EQ_INT(bb.trial_id, t[10]);
    CHECK_EQ_INT(cutune_db_best_of_variant_model(db, a.name, "gemm", "1024", "tiled", "1", &bb,
                                                 NULL),
                 0);
    CHECK_EQ_INT(bb.trial_id, t[1]);
    e = (CutuneError){0};
    CHECK_EQ_INT(cutune_db_best_of_variant(db, a.uuid, "gemm", "1024", "tiled", "3", &bb, &e),
                 CUTUNE_ERR_NOT_FOUND);
    CHECK_STR_CONTAINS(e.msg, "version 3");
    CHECK_EQ_INT(raw_int(path, "SELECT count(*) FROM best_configs WHERE variant = 'naive'"), 1);
    CHECK_EQ_INT(raw_int(path, "SELECT count(*) FROM trial_details WHERE device = "
                               "'NVIDIA H100 80GB HBM3' AND op = 'gemm' AND size = '1024'"),
                 11);

    /* trials of a run, in order */
    Seen s = {0};
    CHECK_EQ_INT(cutune_db_trials_foreach(db, r2, seen_trial, &s, NULL), 0);
    CHECK_EQ_INT(s.n, 12);
    for (int i = 0; i < 12; i++)
        CHECK_EQ_INT(s.ids[i], t[i]);
    CHECK_MSG(strcmp(s.configs[0], "tiled/gemm/1024/TILE=16") == 0, "%s", s.configs[0]);
    CHECK_MSG(strcmp(s.configs[4], "naive/gemm/1024/BLOCK=256") == 0, "%s", s.configs[4]);
    CHECK_MSG(strcmp(s.statuses[2], "wrong_result") == 0, "%s", s.statuses[2]);
    CHECK_MSG(strcmp(s.statuses[9], "crashed") == 0, "%s", s.statuses[9]);
    CHECK(s.medians[1] == 1.5 && s.medians[2] == 0);
    CHECK_EQ_INT(s.null_messages, 6); /* the ok trials have no message */
    CHECK(s.seed == UINT64_MAX - 1);
    Seen s2 = {.stop_after = 3};
    CHECK_EQ_INT(cutune_db_trials_foreach(db, r2, seen_trial, &s2, NULL), 0);
    CHECK_EQ_INT(s2.n, 3);
    Seen s3 = {0};
    CHECK_EQ_INT(cutune_db_trials_foreach(db, r1, seen_trial, &s3, NULL), 0);
    CHECK_EQ_INT(s3.n, 0);

    /* configs already measured for (d1, tiled v1, gemm 1024): each once, latest row */
    Seen cd = {0};
    CHECK_EQ_INT(cutune_db_configs_done(db, d1, v1, p1, seen_config, &cd, NULL), 0);
    CHECK_EQ_INT(cd.n, 8);
    int i16 = find_config(&cd, "TILE=16");
    CHECK(i16 >= 0);
    if (i16 >= 0)
        CHECK(strcmp(cd.statuses[i16], "ok") == 0 && cd.medians[i16] == 3.0);
    int i8 = find_config(&cd, "TILE=8");
    CHECK(i8 >= 0);
    if (i8 >= 0)
        CHECK(strcmp(cd.statuses[i8], "wrong_result") == 0);
    CHECK_EQ_INT(find_config(&cd, "BLOCK=256"), -1); /* another variant */
    Seen cd2 = {0};
    CHECK_EQ_INT(cutune_db_configs_done(db, d2, v1, p1, seen_config, &cd2, NULL), 0);
    CHECK_EQ_INT(cd2.n, 1);

    /* finding a device */
    char uuid[64];
    CHECK_EQ_INT(cutune_db_find_device(db, "GPU-bbbb-2222", uuid, sizeof uuid, NULL), 0);
    CHECK_MSG(strcmp(uuid, b.uuid) == 0, "%s", uuid);
    CHECK_EQ_INT(cutune_db_find_device(db, "h100", uuid, sizeof uuid, NULL), 0);
    CHECK_MSG(strcmp(uuid, a.uuid) == 0, "%s", uuid);
    /* an exact UUID wins over a name that contains it */
    CHECK_EQ_INT(cutune_db_find_device(db, "GPU-aaaa-1111", uuid, sizeof uuid, NULL), 0);
    CHECK_MSG(strcmp(uuid, a.uuid) == 0, "%s", uuid);
    CHECK_EQ_INT(cutune_db_find_device(db, "clone", uuid, sizeof uuid, NULL), 0);
    CHECK_MSG(strcmp(uuid, c.uuid) == 0, "%s", uuid);
    e = (CutuneError){0};
    CHECK_EQ_INT(cutune_db_find_device(db, "nvidia", uuid, sizeof uuid, &e), CUTUNE_ERR_INVALID);
    CHECK_STR_CONTAINS(e.msg, a.uuid);
    CHECK_STR_CONTAINS(e.msg, b.uuid);
    CHECK_STR_CONTAINS(e.msg, "NVIDIA A100-SXM4");
    e = (CutuneError){0};
    CHECK_EQ_INT(cutune_db_find_device(db, "V100", uuid, sizeof uuid, &e), CUTUNE_ERR_NOT_FOUND);
    CHECK_STR_CONTAINS(e.msg, "V100");
    CHECK_EQ_INT(cutune_db_find_device(db, "GPU-bbbb-2222", uuid, 4, NULL), CUTUNE_ERR_RANGE);

    cutune_db_close(&db);
}

/* ---- refusals ---------------------------------------------------------------------------- */

/* A new version of a variant supersedes the best its older version holds: the installed
 * plugin may not run the old config (e.g. a parameter was added). The best becomes the
 * fastest trial that is not of that variant at another version. */
static void test_best_across_versions(void)
{
    const char *path = in_tmp("versions.db");
    CutuneDb *db = NULL;
    CHECK_EQ_INT(cutune_db_open(path, 0, &db, NULL), 0);
    if (!db)
        return;
    CutuneDeviceInfo a = device("GPU-vvvv-1111", "NVIDIA H200", 132);
    int64_t d = 0, t1 = 0, t2 = 0, p = 0, run = 0, id[5] = {0};
    CHECK_EQ_INT(cutune_db_device(db, &a, &d, NULL), 0);
    CHECK_EQ_INT(cutune_db_variant(db, "gemm", "tiled", "1", "h", &t1, NULL), 0);
    CHECK_EQ_INT(cutune_db_variant(db, "gemm", "tiled", "2", "h", &t2, NULL), 0);
    int64_t naive = 0;
    CHECK_EQ_INT(cutune_db_variant(db, "gemm", "naive", "1", "h", &naive, NULL), 0);
    CHECK_EQ_INT(cutune_db_problem(db, "gemm", "2048", &p, NULL), 0);
    CutuneRunInfo ri = {.argv = "cutune run gemm",
                        .op = "gemm",
                        .strategy = "exhaustive",
                        .device_id = d};
    CHECK_EQ_INT(cutune_db_run_begin(db, &ri, &run, NULL), 0);
    /* each trial in turn: its variant, config and time; whether it is the best afterwards;
     * and which trial the problem's best is then */
    const struct {
        int64_t var;
        const char *config;
        double ms;
        int is_best, best;
    } steps[] = {
        {t1, "TILE=8", 1.0, 1, 0},      /* tiled 1 is the best */
        {naive, "BLOCK=64", 1.5, 0, 0}, /* naive is slower */
        {t2, "TILE=8", 3.0, 0, 1},      /* tiled 2, slower than both: tiled 1 goes, naive wins */
        {t2, "TILE=16", 1.2, 1, 3},     /* a faster tiled 2 wins as usual */
        /* tuned at version 1 again (a downgrade): tiled 2 goes, and version 1's earlier
         * trials count again: TILE=8 (1.0 ms) is faster than the new one */
        {t1, "TILE=4", 1.1, 0, 0},
    };
    for (size_t i = 0; i < sizeof steps / sizeof *steps; i++) {
        int best = -1;
        CutuneBest bb = {0};
        CHECK_EQ_INT(add_trial(db, run, d, steps[i].var, p, steps[i].config, CUTUNE_STATUS_OK,
                               steps[i].ms, &id[i], &best),
                     0);
        CHECK_MSG(best == steps[i].is_best, "step %zu: is_best %d", i, best);
        CHECK_EQ_INT(cutune_db_best(db, a.uuid, "gemm", "2048", &bb, NULL), 0);
        CHECK_MSG(bb.trial_id == id[steps[i].best], "step %zu: best is trial %lld", i,
                  (long long)bb.trial_id);
    }
    CHECK_EQ_INT(raw_int(path, "SELECT count(*) FROM best"), 1);
    cutune_db_close(&db);
}

static void test_newer_schema(void)
{
    const char *path = in_tmp("newer.db");
    int newer = cutune_db_schema_latest() + 1;
    char sql[128];
    snprintf(sql, sizeof sql,
             "CREATE TABLE future (a); INSERT INTO future VALUES (1);"
             " PRAGMA user_version = %d",
             newer);
    CHECK_EQ_INT(raw_exec(path, sql), SQLITE_OK);
    size_t n0 = 0, n1 = 0;
    char *before = read_all(path, &n0);
    CHECK(before != NULL && n0 > 0);
    for (int ro = 0; ro <= 1; ro++) {
        CutuneDb *db = (CutuneDb *)1;
        CutuneError e = {0};
        CHECK_EQ_INT(cutune_db_open(path, ro ? CUTUNE_DB_READONLY : 0, &db, &e), CUTUNE_ERR_DB);
        CHECK(db == NULL);
        char want[64];
        snprintf(want, sizeof want, "schema version %d,", newer);
        CHECK_STR_CONTAINS(e.msg, want);
        snprintf(want, sizeof want, "the %d this cutune", newer - 1);
        CHECK_STR_CONTAINS(e.msg, want);
        CHECK_STR_CONTAINS(e.msg, "upgrade cutune");
        CHECK_STR_CONTAINS(e.msg, path);
    }
    char *after = read_all(path, &n1);
    CHECK(after != NULL && n1 == n0 && memcmp(before, after, n0) == 0);
    CHECK(!exists(in_tmp("newer.db-wal")));
    CHECK_EQ_INT(raw_int(path, "PRAGMA user_version"), newer);
    free(before);
    free(after);
}

static void test_not_a_database(void)
{
    const char *path = in_tmp("garbage.db");
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f)
        return;
    uint32_t x = 12345;
    for (int i = 0; i < 8192; i++) {
        x = x * 1103515245u + 12345u;
        fputc((int)(x >> 16) & 0xff, f);
    }
    fclose(f);
    size_t n0 = 0, n1 = 0;
    char *before = read_all(path, &n0);
    for (int ro = 0; ro <= 1; ro++) {
        CutuneDb *db = NULL;
        CutuneError e = {0};
        CHECK_EQ_INT(cutune_db_open(path, ro ? CUTUNE_DB_READONLY : 0, &db, &e), CUTUNE_ERR_DB);
        CHECK(db == NULL);
        CHECK_STR_CONTAINS(
            e.msg,
            "is not a cutune database (file is not a database: its first bytes are not a SQLite header");
        CHECK_STR_CONTAINS(e.msg, path);
        CHECK_STR_CONTAINS(e.msg, "--db");
    }
    char *after = read_all(path, &n1);
    CHECK(before && after && n0 == 8192 && n1 == n0 && memcmp(before, after, n0) == 0);
    free(before);
    free(after);

    /* a SQLite database of someone else's (tables, no user_version) is not ours either */
    const char *other = in_tmp("other.db");
    CHECK_EQ_INT(raw_exec(other, "CREATE TABLE notes (t TEXT)"), SQLITE_OK);
    CutuneDb *db = NULL;
    CutuneError e = {0};
    CHECK_EQ_INT(cutune_db_open(other, 0, &db, &e), CUTUNE_ERR_DB);
    CHECK_STR_CONTAINS(e.msg, "is not a cutune database");
    CHECK_EQ_INT(raw_int(other, "SELECT count(*) FROM sqlite_schema"), 1);
}

static void test_read_only(void)
{
    /* missing: NOT_FOUND, nothing created */
    const char *missing = in_tmp("nowhere/deeper/x.db");
    CutuneDb *db = NULL;
    CutuneError e = {0};
    CHECK_EQ_INT(cutune_db_open(missing, CUTUNE_DB_READONLY, &db, &e), CUTUNE_ERR_NOT_FOUND);
    CHECK(db == NULL);
    CHECK_STR_CONTAINS(e.msg, missing);
    CHECK(!exists(in_tmp("nowhere")));
    e = (CutuneError){0};
    CHECK_EQ_INT(cutune_db_open(in_tmp("absent.db"), CUTUNE_DB_READONLY, &db, &e),
                 CUTUNE_ERR_NOT_FOUND);
    CHECK(!exists(in_tmp("absent.db")));

    /* an empty (never migrated) file has nothing recorded: not found, and no advice to
     * upgrade it (it is not old) */
    const char *empty = in_tmp("empty.db");
    fclose(fopen(empty, "wb"));
    e = (CutuneError){0};
    CHECK_EQ_INT(cutune_db_open(empty, CUTUNE_DB_READONLY, &db, &e), CUTUNE_ERR_NOT_FOUND);
    CHECK_STR_CONTAINS(e.msg, "nothing recorded yet");
    CHECK(strstr(e.msg, "older") == NULL && strstr(e.msg, "upgrade") == NULL);

    /* a good one: reads work, writes fail */
    const char *path = in_tmp("rows.db");
    e = (CutuneError){0};
    CHECK_MSG(cutune_db_open(path, CUTUNE_DB_READONLY, &db, &e) == 0, "%s", e.msg);
    if (!db)
        return;
    CHECK_EQ_INT(cutune_db_schema_version(db), cutune_db_schema_latest());
    CutuneBest bb;
    CHECK_EQ_INT(cutune_db_best(db, "GPU-aaaa-1111", "gemm", "1024", &bb, NULL), 0);
    CHECK_MSG(strcmp(bb.config, "BLOCK=256") == 0, "%s", bb.config);
    int64_t id = 0;
    e = (CutuneError){0};
    CHECK_EQ_INT(cutune_db_problem(db, "gemm", "999", &id, &e), CUTUNE_ERR_DB);
    CHECK_STR_CONTAINS(e.msg, path);
    CHECK_STR_CONTAINS(e.msg, "read-only");
    e = (CutuneError){0};
    CHECK_EQ_INT(add_trial(db, 0, 1, 1, 1, "X=1", CUTUNE_STATUS_OK, 0.01, &id, NULL),
                 CUTUNE_ERR_DB);
    cutune_db_close(&db);
    CHECK_EQ_INT(raw_int(path, "SELECT count(*) FROM problems WHERE size = '999'"), 0);
    CHECK_EQ_INT(raw_int(path, "SELECT count(*) FROM trials"), 12);
}

/* ---- directories ---------------------------------------------------------------------------- */

static void test_directories(void)
{
    const char *nested = in_tmp("a/b/c/t.db");
    CutuneDb *db = NULL;
    CutuneError e = {0};
    CHECK_MSG(cutune_db_open(nested, 0, &db, &e) == 0, "%s", e.msg);
    cutune_db_close(&db);
    struct stat st;
    CHECK(stat(in_tmp("a/b/c"), &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0755);
    CHECK(exists(nested));

    /* a parent that is a file */
    FILE *f = fopen(in_tmp("plain"), "w");
    if (f)
        fclose(f);
    e = (CutuneError){0};
    CHECK_EQ_INT(cutune_db_open(in_tmp("plain/sub/t.db"), 0, &db, &e), CUTUNE_ERR_IO);
    CHECK_STR_CONTAINS(e.msg, in_tmp("plain"));
    CHECK_STR_CONTAINS(e.msg, strerror(ENOTDIR));

    if (geteuid() == 0) {
        printf("db: running as root: skipping the unwritable-directory checks\n");
        return;
    }
    char ro[512];
    snprintf(ro, sizeof ro, "%s", in_tmp("locked"));
    CHECK_EQ_INT(mkdir(ro, 0500), 0);
    e = (CutuneError){0};
    CHECK_EQ_INT(cutune_db_open(in_tmp("locked/t.db"), 0, &db, &e), CUTUNE_ERR_IO);
    CHECK(db == NULL);
    CHECK_STR_CONTAINS(e.msg, ro);
    CHECK_STR_CONTAINS(e.msg, strerror(EACCES));
    CHECK(!exists(in_tmp("locked/t.db")));
    e = (CutuneError){0};
    CHECK_EQ_INT(cutune_db_open(in_tmp("locked/sub/t.db"), 0, &db, &e), CUTUNE_ERR_IO);
    CHECK_STR_CONTAINS(e.msg, in_tmp("locked/sub"));
    CHECK_STR_CONTAINS(e.msg, strerror(EACCES));
    CHECK_EQ_INT(chmod(ro, 0700), 0);
}

/* ---- a reader next to a writer (WAL) --------------------------------------------------------- */

static void test_reader_during_write(void)
{
    const char *path = in_tmp("rows.db");
    sqlite3 *w = NULL;
    CHECK_EQ_INT(sqlite3_open_v2(path, &w, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
    CHECK_EQ_INT(sqlite3_exec(w,
                              "BEGIN IMMEDIATE; INSERT INTO problems (op, size)"
                              " VALUES ('gemm', 'uncommitted')",
                              NULL, NULL, NULL),
                 SQLITE_OK);
    time_t t0 = time(NULL);
    for (int ro = 0; ro <= 1; ro++) {
        CutuneDb *db = NULL;
        CutuneError e = {0};
        CHECK_MSG(cutune_db_open(path, ro ? CUTUNE_DB_READONLY : 0, &db, &e) == 0, "%s", e.msg);
        CutuneBest bb;
        e = (CutuneError){0};
        CHECK_MSG(cutune_db_best(db, "GPU-aaaa-1111", "gemm", "1024", &bb, &e) == 0, "%s", e.msg);
        CHECK_MSG(strcmp(bb.config, "BLOCK=256") == 0, "%s", bb.config);
        cutune_db_close(&db);
    }
    CHECK_MSG(time(NULL) - t0 < 5, "readers waited %lld s for the writer",
              (long long)(time(NULL) - t0));
    CHECK_EQ_INT(raw_int(path, "SELECT count(*) FROM problems WHERE size = 'uncommitted'"), 0);
    CHECK_EQ_INT(sqlite3_exec(w, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
    CHECK_EQ_INT(sqlite3_close(w), SQLITE_OK);
    CHECK_EQ_INT(raw_int(path, "SELECT count(*) FROM problems WHERE size = 'uncommitted'"), 1);
}

/* ---- the default path ---------------------------------------------------------------------- */

static void test_default_path(void)
{
    char buf[256];
    setenv("CUTUNE_DB", "/x/y.db", 1);
    CHECK_EQ_INT(cutune_db_default_path(buf, sizeof buf, NULL), 0);
    CHECK_MSG(strcmp(buf, "/x/y.db") == 0, "%s", buf);
    unsetenv("CUTUNE_DB");
    setenv("XDG_DATA_HOME", "/xdg", 1);
    setenv("HOME", "/home/u", 1);
    CHECK_EQ_INT(cutune_db_default_path(buf, sizeof buf, NULL), 0);
    CHECK_MSG(strcmp(buf, "/xdg/cutune/cutune.db") == 0, "%s", buf);
    setenv("XDG_DATA_HOME", "relative", 1);
    CHECK_EQ_INT(cutune_db_default_path(buf, sizeof buf, NULL), 0);
    CHECK_MSG(strcmp(buf, "/home/u/.local/share/cutune/cutune.db") == 0, "%s", buf);
    CHECK_EQ_INT(cutune_db_default_path(buf, 10, NULL), CUTUNE_ERR_RANGE);
    unsetenv("XDG_DATA_HOME");
    unsetenv("HOME");
    CutuneError e = {0};
    CHECK_EQ_INT(cutune_db_default_path(buf, sizeof buf, &e), CUTUNE_ERR_NOT_FOUND);
    CHECK_STR_CONTAINS(e.msg, "CUTUNE_DB");
}

int main(void)
{
    umask(022);
    if (make_tmpdir(tmpdir, sizeof tmpdir, "cutune-test-db") != 0)
        return 1;
    test_fresh_and_reopen();
    test_rows_and_best();
    test_best_across_versions();
    test_newer_schema();
    test_not_a_database();
    test_read_only();
    test_directories();
    test_reader_during_write();
    test_default_path();
    rm_tree(tmpdir);
    CHECK(!exists(tmpdir));
    return check_result("db");
}
