/* Lookups for applications (cutune/lookup.h) on a hand-built database, no GPU needed: the
 * fallback ladder (exact, same model, nearest, same architecture, miss) and its tie rule, the cache
 * and its lifetime, requests for misses, the ops' size rules, plugin distances (ABI 1.1)
 * next to a 1.0 plugin, and a reader next to a concurrent writer (WAL: neither blocks the
 * other). */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "check.h"
#include "db_fixture.h"
#include "cutune/lookup.h"
#include "db.h"
#include "device.h"
#include "raw_sqlite.h"
#include "registry.h"
#include "tmpdir.h"
#include "util.h"

static char dbpath[128];

static CutuneDeviceInfo dev_info(const char *uuid, const char *name, int major, int minor)
{
    CutuneDeviceInfo d = fixture_device(uuid, name);
    d.cc_major = major;
    d.cc_minor = minor;
    d.sm_count = 132;
    return d;
}

static const CutuneDeviceInfo *A, *B, *C; /* two of cc 9.0, one of cc 8.0 */
static CutuneDeviceInfo devA, devB, devC;

/* One verified trial: becomes the best of its key when faster. ragged: 1 its config passed
 * its check at a ragged size near `size` (what a run records for a best), 0 it failed
 * there, -1 it was never checked so. */
static void add_trial_ragged(CutuneDb *db, const CutuneDeviceInfo *d, const char *op,
                             const char *size, const char *config, double ms, int ragged)
{
    CutuneError err = {0};
    int64_t dev_id, var_id, prob_id;
    CHECK_MSG(cutune_db_device(db, d, &dev_id, &err) == 0, "%s", err.msg);
    CHECK_MSG(cutune_db_variant(db, op, strcmp(op, "matmul") ? "dist_variant" : "matmul_tiled", "1",
                                "hash", &var_id, &err) == 0,
              "%s", err.msg);
    CHECK_MSG(cutune_db_problem(db, op, size, &prob_id, &err) == 0, "%s", err.msg);
    CutuneTrialRecord t = fixture_trial(0, dev_id, var_id, prob_id, config, CUTUNE_STATUS_OK);
    t.median_ms = t.min_ms = t.mean_ms = ms;
    t.samples = 5;
    t.gflops = 100;
    t.seed = 1;
    CHECK_MSG(cutune_db_trial_insert(db, &t, NULL, NULL, &err) == 0, "%s", err.msg);
    if (ragged < 0)
        return;
    CutuneProblem p;
    char near[64];
    CHECK(cutune_problem_parse(size, &p, NULL) == 0);
    for (int i = 0; i < p.ndims; i++)
        p.dim[i] -= p.dim[i] > 1 && p.dim[i] % 2 == 0;
    cutune_problem_format(&p, near, sizeof near);
    CutuneRaggedRecord rr = {.device_id = dev_id,
                             .variant_id = var_id,
                             .problem_id = prob_id,
                             .config = config,
                             .ragged_size = near,
                             .passed = ragged,
                             .message = ragged ? NULL : "wrong_result: planted"};
    CHECK_MSG(cutune_db_ragged_add(db, &rr, &err) == 0, "%s", err.msg);
}

static void add_trial(CutuneDb *db, const CutuneDeviceInfo *d, const char *op, const char *size,
                      const char *config, double ms)
{
    add_trial_ragged(db, d, op, size, config, ms, 1);
}

static void build_db(void)
{
    CutuneDb *db = NULL;
    CutuneError err = {0};
    CHECK_MSG(cutune_db_open(dbpath, 0, &db, &err) == 0, "%s", err.msg);
    add_trial(db, A, "matmul", "1024x1024x1024", "TILE=16,PAD=0,WPT=1,UNROLL=1", 2.0);
    add_trial(db, A, "matmul", "1024x1024x1024", "TILE=32,PAD=1,WPT=4,UNROLL=8", 1.0); /* best */
    add_trial(db, A, "matmul", "4096x4096x4096", "TILE=64,PAD=1,WPT=8,UNROLL=4", 50.0);
    add_trial(db, B, "matmul", "2048x2048x2048", "TILE=32,PAD=0,WPT=2,UNROLL=2", 9.0);
    add_trial(db, C, "matmul", "512x512x512", "TILE=16,PAD=1,WPT=2,UNROLL=16", 0.5);
    /* bf16 nt on A: 4096^3 with the bias epilogue, 1024^3 without (its own key each) */
    add_trial(db, A, "matmul", "4096x4096x4096-bf16-nt-bias", "TILE=64,PAD=0,WPT=8,UNROLL=2", 3.0);
    add_trial(db, A, "matmul", "1024x1024x1024-bf16-nt", "TILE=16,PAD=0,WPT=4,UNROLL=2", 0.1);
    add_trial(db, A, "dist_op", "100", "X=1", 1.0);
    add_trial(db, A, "dist_op", "300", "X=3", 1.0);
    cutune_db_close(&db);
}

static CutuneLookup *open_handle(int record, int plugin_distance)
{
    CutuneLookupSettings s;
    cutune_lookup_default_settings(&s);
    CHECK(s.db_path == NULL && s.record_requests == 0 && s.plugin_distance == 1);
    s.db_path = dbpath;
    s.record_requests = record;
    s.plugin_distance = plugin_distance;
    CutuneLookup *h = NULL;
    CutuneError err = {0};
    CHECK_MSG(cutune_open(&h, &s, &err) == 0 && h, "%s", err.msg);
    return h;
}

static void ladder_steps(void)
{
    CutuneLookup *h = open_handle(0, 1);
    CutuneLookupResult r;
    CutuneError err = {0};

    /* 1. exact: the faster of two trials */
    CHECK_MSG(cutune_lookup(h, A, "matmul", "1024x1024x1024", &r, &err) == 0, "%s", err.msg);
    CHECK_EQ_INT(r.match, CUTUNE_MATCH_EXACT);
    CHECK(strcmp(r.config, "TILE=32,PAD=1,WPT=4,UNROLL=8") == 0);
    CHECK(strcmp(r.tuned_size, "1024x1024x1024") == 0 && strcmp(r.variant, "matmul_tiled") == 0);
    CHECK(strcmp(r.device_uuid, A->uuid) == 0 && r.median_ms == 1.0 && r.distance == 0);

    /* 2. nearest on the same device, by the log distance */
    CHECK(cutune_lookup(h, A, "matmul", "1500x1500x1500", &r, &err) == 0);
    CHECK_EQ_INT(r.match, CUTUNE_MATCH_NEAREST);
    CHECK(strcmp(r.tuned_size, "1024x1024x1024") == 0 && strcmp(r.size, "1500x1500x1500") == 0);
    CHECK_MSG(fabs(r.distance - sqrt(3.0) * log(1500.0 / 1024.0)) < 1e-12, "%g", r.distance);
    CHECK(cutune_lookup(h, A, "matmul", "3000x3000x3000", &r, &err) == 0);
    CHECK(r.match == CUTUNE_MATCH_NEAREST && strcmp(r.tuned_size, "4096x4096x4096") == 0);
    CHECK(strcmp(r.config, "TILE=64,PAD=1,WPT=8,UNROLL=4") == 0);
    /* a tie (2048 is as far from 1024 as from 4096) goes to the smaller size */
    CHECK(cutune_lookup(h, A, "matmul", "2048x2048x2048", &r, &err) == 0);
    CHECK(r.match == CUTUNE_MATCH_NEAREST && strcmp(r.tuned_size, "1024x1024x1024") == 0);
    /* the other device of the same architecture has 2048 exactly, but this device's own
     * sizes come first */
    CHECK(strcmp(r.device_uuid, A->uuid) == 0);

    /* an epilogue is part of the key: the bias GEMM at 1024^3 is answered by the bias one at
     * 4096^3, not by the same shape without it; the plain GEMM at 4096^3 the other way round */
    CHECK(cutune_lookup(h, A, "matmul", "1024x1024x1024-bf16-nt-bias", &r, &err) == 0);
    CHECK(r.match == CUTUNE_MATCH_NEAREST &&
          strcmp(r.tuned_size, "4096x4096x4096-bf16-nt-bias") == 0);
    CHECK(strcmp(r.config, "TILE=64,PAD=0,WPT=8,UNROLL=2") == 0);
    CHECK(cutune_lookup(h, A, "matmul", "4096x4096x4096-bf16-nt", &r, &err) == 0);
    CHECK(r.match == CUTUNE_MATCH_NEAREST && strcmp(r.tuned_size, "1024x1024x1024-bf16-nt") == 0);
    CHECK(cutune_lookup(h, A, "matmul", "4096x4096x4096-nt-bias-bf16", &r, &err) == 0);
    CHECK(r.match == CUTUNE_MATCH_EXACT && strcmp(r.size, "4096x4096x4096-bf16-nt-bias") == 0);

    /* 3. same architecture: a device never tuned, given with its compute capability */
    CutuneDeviceInfo fresh = dev_info("GPU-new-h100", "NVIDIA H100 (new)", 9, 0);
    CHECK_MSG(cutune_lookup(h, &fresh, "matmul", "2048x2048x2048", &r, &err) == 0, "%s", err.msg);
    CHECK_EQ_INT(r.match, CUTUNE_MATCH_SAME_ARCH);
    CHECK(strcmp(r.device_uuid, B->uuid) == 0 && r.distance == 0); /* B has it exactly */
    CHECK(strcmp(r.config, "TILE=32,PAD=0,WPT=2,UNROLL=2") == 0);
    CHECK(cutune_lookup(h, &fresh, "matmul", "1100x1100x1100", &r, &err) == 0);
    CHECK(r.match == CUTUNE_MATCH_SAME_ARCH && strcmp(r.device_uuid, A->uuid) == 0 &&
          strcmp(r.tuned_size, "1024x1024x1024") == 0);
    /* a device of another architecture never answers for cc 9.0, and the other way round */
    CutuneDeviceInfo ampere = dev_info("GPU-new-a100", "NVIDIA A100", 8, 0);
    CHECK(cutune_lookup(h, &ampere, "matmul", "4096x4096x4096", &r, &err) == 0);
    CHECK(r.match == CUTUNE_MATCH_SAME_ARCH && strcmp(r.device_uuid, C->uuid) == 0);
    /* a device recorded in the database: its compute capability comes from there */
    CutuneDeviceInfo c_by_uuid = dev_info(C->uuid, "", 0, 0);
    CHECK(cutune_lookup(h, &c_by_uuid, "matmul", "512x512x512", &r, &err) == 0);
    CHECK(r.match == CUTUNE_MATCH_EXACT);

    /* 4. misses: another architecture, an unknown device without cc, an unknown op,
     * a size of another shape */
    CutuneDeviceInfo turing = dev_info("GPU-t4", "Tesla T4", 7, 5);
    cutune_error_clear(&err);
    CHECK_EQ_INT(cutune_lookup(h, &turing, "matmul", "1024x1024x1024", &r, &err),
                 CUTUNE_ERR_NOT_FOUND);
    CHECK_EQ_INT(r.match, CUTUNE_MATCH_NONE);
    CHECK(r.config[0] == '\0' && strcmp(r.size, "1024x1024x1024") == 0);
    CHECK_STR_CONTAINS(err.msg, "compute capability 7.5");
    CHECK_STR_CONTAINS(err.msg, "cutune run matmul --size 1024x1024x1024");
    CutuneDeviceInfo unknown = dev_info("GPU-unknown", "", 0, 0);
    cutune_error_clear(&err);
    CHECK_EQ_INT(cutune_lookup(h, &unknown, "matmul", "1024x1024x1024", &r, &err),
                 CUTUNE_ERR_NOT_FOUND);
    CHECK_STR_CONTAINS(err.msg, "unknown compute capability");
    CHECK_EQ_INT(cutune_lookup(h, A, "conv2d", "1024x1024x1024", &r, NULL), CUTUNE_ERR_NOT_FOUND);
    CHECK_EQ_INT(cutune_lookup(h, &turing, "matmul", "1024", &r, NULL), CUTUNE_ERR_NOT_FOUND);

    /* bad calls */
    CHECK_EQ_INT(cutune_lookup(h, A, "matmul", "10x-3", &r, NULL), CUTUNE_ERR_PARSE);
    CHECK_EQ_INT(cutune_lookup(h, NULL, "matmul", "10", &r, NULL), CUTUNE_ERR_INVALID);
    CHECK_EQ_INT(cutune_lookup(NULL, A, "matmul", "10", &r, NULL), CUTUNE_ERR_INVALID);
    CHECK(strcmp(cutune_match_name(CUTUNE_MATCH_SAME_ARCH), "same_arch") == 0);
    cutune_close(&h);
    CHECK(h == NULL);
    cutune_close(&h); /* twice is fine */
    cutune_close(NULL);
}

/* A handle keeps its answers (misses too) for its lifetime; a new handle sees new trials. */
static void cache_lifetime(void)
{
    CutuneLookup *h = open_handle(0, 1);
    CutuneLookupResult r;
    CutuneDeviceInfo hopper = dev_info("GPU-later", "NVIDIA H200", 9, 0);
    CHECK(cutune_lookup(h, A, "matmul", "1024x1024x1024", &r, NULL) == 0);
    CHECK_EQ_INT(cutune_lookup(h, A, "matmul", "8192x8192x8192", &r, NULL), 0); /* nearest */
    CHECK(cutune_lookup(h, &hopper, "matmul", "333x333x333", &r, NULL) == 0);
    CHECK(strcmp(r.tuned_size, "512x512x512") != 0); /* C is cc 8.0: not an answer */
    CutuneDb *db = NULL;
    CHECK(cutune_db_open(dbpath, 0, &db, NULL) == 0);
    add_trial(db, A, "matmul", "1024x1024x1024", "TILE=8,PAD=0,WPT=1,UNROLL=1", 0.25);
    add_trial(db, A, "matmul", "8192x8192x8192", "TILE=64,PAD=0,WPT=8,UNROLL=8", 400.0);
    cutune_db_close(&db);
    CHECK(cutune_lookup(h, A, "matmul", "1024x1024x1024", &r, NULL) == 0);
    CHECK(strcmp(r.config, "TILE=32,PAD=1,WPT=4,UNROLL=8") == 0); /* cached */
    CHECK(cutune_lookup(h, A, "matmul", "8192x8192x8192", &r, NULL) == 0);
    CHECK(r.match == CUTUNE_MATCH_NEAREST); /* cached */
    CutuneLookup *h2 = open_handle(0, 1);
    CHECK(cutune_lookup(h2, A, "matmul", "1024x1024x1024", &r, NULL) == 0);
    CHECK(strcmp(r.config, "TILE=8,PAD=0,WPT=1,UNROLL=1") == 0);
    CHECK(cutune_lookup(h2, A, "matmul", "8192x8192x8192", &r, NULL) == 0);
    CHECK(r.match == CUTUNE_MATCH_EXACT);
    cutune_close(&h);
    cutune_close(&h2);
}

static int collect(const char *op, const char *size, void *user)
{
    char *buf = user;
    strcat(buf, op);
    strcat(buf, " ");
    strcat(buf, size);
    strcat(buf, ";");
    return 0;
}

/* Fallbacks and misses become pending requests, once per handle and key; exact answers
 * do not; a done request leaves the pending list. */
static void requests_recorded(void)
{
    CutuneLookup *h = open_handle(1, 1);
    CutuneLookupResult r;
    CutuneDeviceInfo turing = dev_info("GPU-t4", "Tesla T4", 7, 5);
    CHECK(cutune_lookup(h, A, "matmul", "1024x1024x1024", &r, NULL) == 0 && r.recorded == 0);
    CHECK(cutune_lookup(h, A, "matmul", "1500x1500x1500", &r, NULL) == 0 && r.recorded == 1);
    CHECK(cutune_lookup(h, A, "matmul", "1500x1500x1500", &r, NULL) == 0 && r.recorded == 0);
    CHECK(cutune_lookup(h, &turing, "matmul", "64x64x64", &r, NULL) == CUTUNE_ERR_NOT_FOUND);
    CHECK(r.recorded == 1);
    cutune_close(&h);
    h = open_handle(1, 1); /* another handle counts the key again */
    CHECK(cutune_lookup(h, A, "matmul", "1500x1500x1500", &r, NULL) == 0 && r.recorded == 1);
    cutune_close(&h);
    CHECK_EQ_INT(raw_int(dbpath, "SELECT count(*) FROM requests"), 2);
    CHECK_EQ_INT(raw_int(dbpath, "SELECT count FROM requests WHERE size = '1500x1500x1500'"), 2);
    CHECK_EQ_INT(raw_int(dbpath, "SELECT count(*) FROM requests WHERE size = '64x64x64' AND"
                                 " answered_by = 'none' AND cc_major = 7 AND cc_minor = 5 AND"
                                 " device_name = 'Tesla T4'"),
                 1);
    CHECK_EQ_INT(raw_int(dbpath, "SELECT count(*) FROM pending_requests"), 2);

    CutuneDb *db = NULL;
    CutuneError err = {0};
    CHECK(cutune_db_open(dbpath, 0, &db, &err) == 0);
    char list[256] = "";
    CHECK(cutune_db_requests_pending(db, A->uuid, NULL, collect, list, &err) == 0);
    CHECK_MSG(strcmp(list, "matmul 1500x1500x1500;") == 0, "%s", list);
    CHECK(cutune_db_request_done(db, A->uuid, "matmul", "1500x1500x1500", 0, &err) == 0);
    list[0] = '\0';
    CHECK(cutune_db_requests_pending(db, A->uuid, "matmul", collect, list, &err) == 0);
    CHECK_MSG(list[0] == '\0', "%s", list);
    list[0] = '\0';
    CHECK(cutune_db_requests_pending(db, "GPU-t4", "matmul", collect, list, &err) == 0);
    CHECK_MSG(strcmp(list, "matmul 64x64x64;") == 0, "%s", list);
    cutune_db_close(&db);
    CHECK_EQ_INT(
        raw_int(dbpath,
                "SELECT count(*) FROM requests WHERE status = 'done' AND done_at IS NOT NULL"),
        1);
}

/* A size is read by its op's rules, as `cutune run --size` reads it (matmul's "1024" is
 * 1024x1024x1024), also with plugin distances off; a size the op refuses is an error and an
 * op that no plugin implements is answered from the database, but neither becomes a
 * request, which `cutune run --pending` could never tune. */
static void size_rules(void)
{
    long long before = raw_int(dbpath, "SELECT count(*) FROM requests");
    CutuneLookup *h = open_handle(1, 0);
    CutuneLookupResult r;
    CutuneError err = {0};
    CHECK_MSG(cutune_lookup(h, A, "matmul", "1024", &r, &err) == 0, "%s", err.msg);
    CHECK(r.match == CUTUNE_MATCH_EXACT && strcmp(r.size, "1024x1024x1024") == 0);
    CHECK(strcmp(r.tuned_size, "1024x1024x1024") == 0 && r.distance == 0);
    CHECK_EQ_INT(cutune_lookup(h, A, "matmul", "64x64", &r, &err), CUTUNE_ERR_INVALID);
    CHECK_STR_CONTAINS(err.msg, "'64x64' is not a size of op matmul: matmul takes MxNxK");
    CHECK(r.recorded == 0);
    CHECK_EQ_INT(cutune_lookup(h, A, "no_such_op", "64", &r, &err), CUTUNE_ERR_NOT_FOUND);
    CHECK(r.recorded == 0 && r.match == CUTUNE_MATCH_NONE);
    cutune_close(&h);
    CHECK_EQ_INT(raw_int(dbpath, "SELECT count(*) FROM requests"), before);
}

/* An op's plugin may define the distance (ABI 1.1); a 1.0 plugin still loads, without one. */
static void plugin_distance(void)
{
    CutuneLookup *h = open_handle(0, 1);
    CutuneLookupResult r;
    CutuneError err = {0};
    /* 180 is nearer 300 on the log scale (ln 300/180 = 0.51 < ln 180/100 = 0.59), nearer 100
     * on the plugin's linear scale (80 < 120) */
    CHECK_MSG(cutune_lookup(h, A, "dist_op", "180", &r, &err) == 0, "%s", err.msg);
    CHECK_MSG(r.match == CUTUNE_MATCH_NEAREST && strcmp(r.tuned_size, "100") == 0, "%s",
              r.tuned_size);
    CHECK(r.distance == 80.0);
    cutune_close(&h);
    h = open_handle(0, 0);
    CHECK(cutune_lookup(h, A, "dist_op", "180", &r, &err) == 0);
    CHECK_MSG(strcmp(r.tuned_size, "300") == 0, "%s", r.tuned_size);
    cutune_close(&h);

    char path[512];
    snprintf(path, sizeof path, "%s/abi10_plugin.so", getenv("CUTUNE_TEST_LOOKUP_PLUGINS"));
    /* a self-contained 1.0 plugin brings no distance; a 1.1 one its own */
    CutuneOpDef d;
    CHECK_MSG(cutune_op_open(path, &d, &err) == 0, "%s", err.msg);
    if (d.op) {
        CHECK(!strcmp(d.op->name, "old_op") && cutune_op_distance(&d) == NULL);
        cutune_op_close(&d);
    }
    snprintf(path, sizeof path, "%s/dist_plugin.so", getenv("CUTUNE_TEST_LOOKUP_PLUGINS"));
    CHECK_MSG(cutune_op_open(path, &d, &err) == 0, "%s", err.msg);
    if (d.op) {
        CHECK(cutune_op_distance(&d) != NULL);
        cutune_op_close(&d);
    }
}

/* ---- a reader next to a concurrent writer ------------------------------------------- */

typedef struct Writer {
    atomic_int stop; /* set by the reader, read by the writer thread */
    int inserted, failures;
    double max_insert_s;
} Writer;

static void *writer_main(void *arg)
{
    Writer *w = arg;
    CutuneDb *db = NULL;
    CutuneError err = {0};
    if (cutune_db_open(dbpath, 0, &db, &err) != 0) {
        w->failures++;
        return NULL;
    }
    int64_t dev_id, var_id, prob_id;
    if (cutune_db_device(db, A, &dev_id, &err) ||
        cutune_db_variant(db, "matmul", "matmul_tiled", "1", "hash", &var_id, &err) ||
        cutune_db_problem(db, "matmul", "777x777x777", &prob_id, &err))
        w->failures++;
    while (!w->stop && w->failures == 0) {
        char config[64];
        snprintf(config, sizeof config, "TILE=%d,PAD=0,WPT=1,UNROLL=1", w->inserted);
        CutuneTrialRecord t = fixture_trial(0, dev_id, var_id, prob_id, config, CUTUNE_STATUS_OK);
        t.median_ms = 1000.0 - w->inserted;
        t.samples = 1;
        double t0 = cutune_now();
        if (cutune_db_trial_insert(db, &t, NULL, NULL, &err) != 0) {
            fprintf(stderr, "writer: %s\n", err.msg);
            w->failures++;
        }
        double dt = cutune_now() - t0;
        w->max_insert_s = dt > w->max_insert_s ? dt : w->max_insert_s;
        w->inserted++;
    }
    /* the readers hold no snapshot between lookups: a full checkpoint goes through */
    int log = -1, done = -1;
    int rc = sqlite3_wal_checkpoint_v2(cutune_db_sqlite(db), NULL, SQLITE_CHECKPOINT_TRUNCATE, &log,
                                       &done);
    if (rc != SQLITE_OK) {
        fprintf(stderr, "checkpoint: %s\n", sqlite3_errmsg(cutune_db_sqlite(db)));
        w->failures++;
    }
    cutune_db_close(&db);
    return NULL;
}

static void reader_and_writer(void)
{
    Writer w = {0};
    pthread_t th;
    CutuneLookup *idle = open_handle(0, 0); /* open the whole time, used now and then */
    CHECK(pthread_create(&th, NULL, writer_main, &w) == 0);
    int lookups = 0, errors = 0, saw_new = 0;
    /* a second and at least a dozen lookups (a fresh handle loads the plugins: slow under
     * ThreadSanitizer), the writer writing all the while */
    double max_s = 0, start = cutune_now(), until = start + 1.0;
    CutuneLookupResult r;
    while ((cutune_now() < until || lookups < 12) && cutune_now() < start + 20) {
        CutuneLookup *h = open_handle(0, 0); /* a fresh handle: no cache */
        double t0 = cutune_now();
        int rc = cutune_lookup(h, A, "matmul", "777x777x777", &r, NULL);
        double dt = cutune_now() - t0;
        max_s = dt > max_s ? dt : max_s;
        if (rc == 0 && r.match == CUTUNE_MATCH_EXACT)
            saw_new = 1;
        else if (rc != 0 && rc != CUTUNE_ERR_NOT_FOUND)
            errors++;
        rc = cutune_lookup(idle, A, "matmul", "1024x1024x1024", &r, NULL);
        errors += rc != 0;
        cutune_close(&h);
        lookups++;
    }
    w.stop = 1;
    pthread_join(th, NULL);
    cutune_close(&idle);
    printf("reader/writer: %d lookups (slowest %.2f ms), %d trials written (slowest %.2f ms)\n",
           lookups, 1e3 * max_s, w.inserted, 1e3 * w.max_insert_s);
    CHECK_EQ_INT(errors, 0);
    CHECK_EQ_INT(w.failures, 0);
    CHECK(lookups > 10 && w.inserted > 10);
    CHECK(saw_new); /* the reader saw the writer's commits as they came */
    /* neither waited on the other: a blocked side would wait for the 10 s busy timeout */
    CHECK_MSG(max_s < 0.5, "slowest lookup %.3f s", max_s);
    CHECK_MSG(w.max_insert_s < 0.5, "slowest insert %.3f s", w.max_insert_s);
}

/* Without a GPU, a tuned launch says so; a miss cannot be launched anywhere. */
static void launch_without_gpu(void)
{
    CutuneLookup *h = open_handle(0, 1);
    CutuneLookupResult r;
    CutuneError err = {0};
    memset(&r, 0, sizeof r);
    void *args[1] = {NULL};
    CHECK_EQ_INT(cutune_launch(h, &r, "64x64x64", args, NULL, &err), CUTUNE_ERR_INVALID);
    int count = 0;
    if (cutune_device_count(&count, NULL) == 0) {
        printf("a CUDA device is present: the no-device checks are skipped\n");
    } else {
        CHECK(cutune_lookup(h, A, "matmul", "1024x1024x1024", &r, NULL) == 0);
        cutune_error_clear(&err);
        CHECK_EQ_INT(cutune_launch(h, &r, "1024x1024x1024", args, NULL, &err),
                     CUTUNE_ERR_NO_DEVICE);
        float *p = (float *)&count; /* never dereferenced: the device check comes first */
        CHECK_EQ_INT(cutune_matmul(h, p, p, p, 8, 8, 8, NULL, &r, NULL), CUTUNE_ERR_NO_DEVICE);
        CHECK_EQ_INT(cutune_matmul(h, p, p, p, 0, 8, 8, NULL, &r, NULL), CUTUNE_ERR_INVALID);
        CutuneDeviceInfo d;
        CHECK_EQ_INT(cutune_device_describe(0, &d, NULL), CUTUNE_ERR_NO_DEVICE);
    }
    cutune_close(&h);
}

/* A best answers other sizes only when its config passed at a ragged size near its own
 * (issue: a config right only when K % 64 == 0 must not answer 1020^3), and the answer says
 * where it was checked; a text too long for the result fails instead of being cut. */
static void checked_answers(void)
{
    char path[160];
    snprintf(path, sizeof path, "%s/checked.db", tmpdir);
    CutuneDb *db = NULL;
    CutuneError err = {0};
    CHECK_MSG(cutune_db_open(path, 0, &db, &err) == 0, "%s", err.msg);
    add_trial_ragged(db, A, "matmul", "1024x1024x1024", "TILE=64,PAD=0,WPT=1,UNROLL=1", 1.0, 0);
    add_trial_ragged(db, A, "matmul", "2048x2048x2048", "TILE=32,PAD=0,WPT=1,UNROLL=1", 8.0, 1);
    add_trial_ragged(db, A, "matmul", "512x512x512", "TILE=16,PAD=0,WPT=1,UNROLL=1", 0.2, -1);
    char long_config[700];
    memset(long_config, 'X', sizeof long_config - 1);
    long_config[sizeof long_config - 1] = '\0';
    memcpy(long_config, "TILE=", 5);
    add_trial_ragged(db, A, "matmul", "64x64x64", long_config, 0.01, 1);
    cutune_db_close(&db);

    CutuneLookupSettings s;
    cutune_lookup_default_settings(&s);
    s.db_path = path;
    CutuneLookup *h = NULL;
    CHECK_MSG(cutune_open(&h, &s, &err) == 0, "%s", err.msg);
    CutuneLookupResult r;
    /* 1020^3 is nearest to 1024^3, whose config failed at 1023^3: 2048^3's answers */
    CHECK_MSG(cutune_lookup(h, A, "matmul", "1020x1020x1020", &r, &err) == 0, "%s", err.msg);
    CHECK(r.match == CUTUNE_MATCH_NEAREST && strcmp(r.tuned_size, "2048x2048x2048") == 0);
    CHECK(strcmp(r.checked_size, "2047x2047x2047") == 0);
    /* its own size it still answers, checked there */
    CHECK(cutune_lookup(h, A, "matmul", "1024x1024x1024", &r, NULL) == 0);
    CHECK(r.match == CUTUNE_MATCH_EXACT && strcmp(r.checked_size, "1024x1024x1024") == 0);
    /* never checked at a ragged size: 512^3 answers only itself */
    CHECK(cutune_lookup(h, A, "matmul", "500x500x500", &r, NULL) == 0);
    CHECK(strcmp(r.tuned_size, "2048x2048x2048") == 0);
    CHECK(cutune_lookup(h, A, "matmul", "512x512x512", &r, NULL) == 0 &&
          r.match == CUTUNE_MATCH_EXACT);
    /* a config longer than the result's field: an error, never a cut config */
    CutuneError e2 = {0};
    CHECK_EQ_INT(cutune_lookup(h, A, "matmul", "64x64x64", &r, &e2), CUTUNE_ERR_RANGE);
    CHECK_STR_CONTAINS(e2.msg, "config too long");
    CHECK(r.config[0] == '\0' || strlen(r.config) == strlen(long_config));
    CutuneLookupResult *list = NULL;
    size_t n = 0;
    CutuneError e3 = {0};
    CHECK_EQ_INT(cutune_best_list(h, NULL, "matmul", &list, &n, &e3), CUTUNE_ERR_RANGE);
    CHECK(list == NULL && n == 0);
    CHECK_STR_CONTAINS(e3.msg, "config too long");
    cutune_close(&h);
}

static void open_errors(void)
{
    CutuneLookupSettings s;
    cutune_lookup_default_settings(&s);
    char missing[160];
    snprintf(missing, sizeof missing, "%s/none.db", tmpdir);
    s.db_path = missing;
    CutuneLookup *h = (CutuneLookup *)&s; /* must be set to NULL on failure */
    CutuneError err = {0};
    CHECK_EQ_INT(cutune_open(&h, &s, &err), CUTUNE_ERR_NOT_FOUND);
    CHECK(h == NULL);
    CHECK_STR_CONTAINS(err.msg, "none.db");
    CHECK_EQ_INT(cutune_open(NULL, &s, NULL), CUTUNE_ERR_INVALID);
}

/* GPUs of one model (name, compute capability, SM count, memory) share their results: a
 * size tuned on one answers the others at step 2 (same_model), a nearest size on either
 * answers at step 3, and a name that the model's GPUs share is the model; a same-named GPU
 * with other SMs is another model, never an answer of step 2 and named apart. */
static void model_ladder(void)
{
    char path[160];
    snprintf(path, sizeof path, "%s/model.db", tmpdir);
    CutuneDeviceInfo m1 = dev_info("GPU-m1", "NVIDIA H100 80GB HBM3", 9, 0);
    CutuneDeviceInfo m2 = dev_info("GPU-m2", "NVIDIA H100 80GB HBM3", 9, 0);
    CutuneDeviceInfo cut = dev_info("GPU-m3", "NVIDIA H100 80GB HBM3", 9, 0);
    m1.total_mem = m2.total_mem = cut.total_mem = 85029158912ull;
    cut.sm_count = 114; /* same name, fewer SMs: another model */
    CutuneDb *db = NULL;
    CutuneError err = {0};
    CHECK_MSG(cutune_db_open(path, 0, &db, &err) == 0, "%s", err.msg);
    add_trial(db, &m1, "matmul", "4096x4096x4096", "TILE=64,PAD=1,WPT=8,UNROLL=4", 50.0);
    add_trial(db, &m1, "matmul", "1024x1024x1024", "TILE=16,PAD=0,WPT=1,UNROLL=1", 2.0);
    add_trial(db, &m2, "matmul", "1024x1024x1024", "TILE=32,PAD=1,WPT=4,UNROLL=8", 1.5);
    add_trial(db, &m2, "matmul", "2048x2048x2048", "TILE=32,PAD=0,WPT=2,UNROLL=2", 9.0);
    /* an imported trial, never checked, faster than either: never the model's best */
    int64_t d1, v1, p1;
    CHECK(cutune_db_device(db, &m1, &d1, NULL) == 0 &&
          cutune_db_variant(db, "matmul", "matmul_tiled", "1", "hash", &v1, NULL) == 0 &&
          cutune_db_problem(db, "matmul", "1024x1024x1024", &p1, NULL) == 0);
    CutuneTrialRecord t = fixture_trial(0, d1, v1, p1, "TILE=8,PAD=0,WPT=1,UNROLL=1",
                                        CUTUNE_STATUS_OK);
    t.median_ms = t.min_ms = t.mean_ms = 0.1;
    t.unchecked = 1;
    CHECK(cutune_db_trial_insert(db, &t, NULL, NULL, NULL) == 0);
    cutune_db_close(&db);

    CutuneLookupSettings s;
    cutune_lookup_default_settings(&s);
    s.db_path = path;
    s.record_requests = 1;
    CutuneLookup *h = NULL;
    CHECK_MSG(cutune_open(&h, &s, &err) == 0, "%s", err.msg);
    CutuneLookupResult r;
    /* by either UUID: the exact size tuned on the other GPU is step 2, not a nearest size */
    CHECK_MSG(cutune_lookup(h, &m1, "matmul", "2048", &r, &err) == 0, "%s", err.msg);
    CHECK_MSG(r.match == CUTUNE_MATCH_SAME_MODEL && strcmp(r.device_uuid, "GPU-m2") == 0 &&
                  strcmp(r.tuned_size, "2048x2048x2048") == 0 && r.distance == 0,
              "%s %s %s", cutune_match_name(r.match), r.device_uuid, r.tuned_size);
    CHECK(r.recorded == 0); /* an exact size of its model: nothing to tune */
    CHECK(strcmp(cutune_match_name(r.match), "same_model") == 0);
    CHECK(cutune_lookup(h, &m2, "matmul", "4096", &r, &err) == 0);
    CHECK(r.match == CUTUNE_MATCH_SAME_MODEL && strcmp(r.device_uuid, "GPU-m1") == 0);
    /* step 1 keeps each GPU's own best, though the other GPU's is faster */
    CHECK(cutune_lookup(h, &m1, "matmul", "1024", &r, &err) == 0);
    CHECK(r.match == CUTUNE_MATCH_EXACT && r.median_ms == 2.0 &&
          strcmp(r.device_uuid, "GPU-m1") == 0);
    /* by UUID alone (the model from the database's record) */
    CutuneDeviceInfo by_uuid = dev_info("GPU-m1", "", 0, 0);
    by_uuid.sm_count = 0;
    CHECK(cutune_lookup(h, &by_uuid, "matmul", "2048", &r, &err) == 0);
    CHECK(r.match == CUTUNE_MATCH_SAME_MODEL && strcmp(r.device_uuid, "GPU-m2") == 0);
    /* step 3: the nearest size on this GPU or its model (2048, on the other GPU) */
    CHECK(cutune_lookup(h, &m1, "matmul", "2200", &r, &err) == 0);
    CHECK_MSG(r.match == CUTUNE_MATCH_NEAREST && strcmp(r.tuned_size, "2048x2048x2048") == 0 &&
                  strcmp(r.device_uuid, "GPU-m2") == 0,
              "%s %s", r.tuned_size, r.device_uuid);
    /* by model: a GPU of the model never tuned, and the model itself by name */
    CutuneDeviceInfo fresh = m1;
    snprintf(fresh.uuid, sizeof fresh.uuid, "GPU-m9-new-node");
    CHECK(cutune_lookup(h, &fresh, "matmul", "4096", &r, &err) == 0);
    CHECK(r.match == CUTUNE_MATCH_SAME_MODEL && strcmp(r.device_uuid, "GPU-m1") == 0);
    CutuneDeviceInfo model;
    CHECK_MSG(cutune_device_find(h, "H100", &model, &err) == 0, "%s", err.msg);
    CHECK(model.uuid[0] == '\0' && model.sm_count == 132 && model.total_mem == m1.total_mem);
    CHECK_MSG(cutune_lookup(h, &model, "matmul", "2048", &r, &err) == 0, "%s", err.msg);
    CHECK(r.match == CUTUNE_MATCH_SAME_MODEL && strcmp(r.device_uuid, "GPU-m2") == 0);
    CHECK(cutune_lookup(h, &model, "matmul", "4096", &r, &err) == 0);
    CHECK(strcmp(r.device_uuid, "GPU-m1") == 0);
    /* the model's best: the fastest checked trial over its GPUs (not the imported 0.1 ms) */
    CHECK(cutune_lookup(h, &model, "matmul", "1024", &r, &err) == 0);
    CHECK_MSG(r.median_ms == 1.5 && strcmp(r.device_uuid, "GPU-m2") == 0, "%g %s", r.median_ms,
              r.device_uuid);
    CutuneLookupResult *list = NULL;
    size_t n = 0;
    CHECK(cutune_best_list(h, "H100", "matmul", &list, &n, &err) == 0 && n == 4);
    cutune_best_list_free(&list);
    cutune_close(&h);

    /* a same-named GPU with other SMs: its own model, and the name no longer names one */
    CHECK(cutune_db_open(path, 0, &db, NULL) == 0);
    add_trial(db, &cut, "matmul", "512x512x512", "TILE=16,PAD=1,WPT=2,UNROLL=16", 0.5);
    cutune_db_close(&db);
    CHECK(cutune_open(&h, &s, &err) == 0);
    CHECK(cutune_lookup(h, &cut, "matmul", "2048", &r, &err) == 0); /* its own 512, far */
    CHECK_MSG(r.match == CUTUNE_MATCH_NEAREST && strcmp(r.device_uuid, "GPU-m3") == 0, "%s %s",
              cutune_match_name(r.match), r.device_uuid);
    CHECK(cutune_lookup(h, &m1, "matmul", "512", &r, &err) == 0);
    CHECK(r.match == CUTUNE_MATCH_NEAREST && strcmp(r.device_uuid, "GPU-m1") == 0);
    cutune_error_clear(&err);
    CHECK_EQ_INT(cutune_device_find(h, "H100 80GB", &model, &err), CUTUNE_ERR_INVALID);
    CHECK_STR_CONTAINS(err.msg, "separate models");
    CHECK_STR_CONTAINS(err.msg, "114 SMs");
    CHECK_STR_CONTAINS(err.msg, "give the UUID");
    CHECK(cutune_device_find(h, "GPU-m3", &model, &err) == 0 && model.sm_count == 114);
    cutune_close(&h);
}

int main(void)
{
    if (make_tmpdir(tmpdir, sizeof tmpdir, "cutune-lookup") != 0)
        return 1;
    snprintf(dbpath, sizeof dbpath, "%s/t.db", tmpdir);
    devA = dev_info("GPU-aaaaaaaa-0000-0000-0000-000000000001", "NVIDIA H100 80GB HBM3", 9, 0);
    devB = dev_info("GPU-bbbbbbbb-0000-0000-0000-000000000002", "NVIDIA H100 80GB HBM3", 9, 0);
    devC = dev_info("GPU-cccccccc-0000-0000-0000-000000000003", "NVIDIA A100-SXM4-80GB", 8, 0);
    A = &devA, B = &devB, C = &devC;
    build_db();
    ladder_steps();
    cache_lifetime();
    requests_recorded();
    size_rules();
    plugin_distance();
    reader_and_writer();
    launch_without_gpu();
    checked_answers();
    open_errors();
    model_ladder();
    rm_tree(tmpdir);
    return check_result("lookup");
}
