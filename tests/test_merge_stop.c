/* cutune_db_merge stopped by its flag (as Ctrl-C sets it): CUTUNE_ERR_INTERRUPTED, a new OUT
 * never appears, an existing one keeps its bytes, and no temporary file is left beside it;
 * with the flag clear, the same merge goes through. And the row copy under it: each table's
 * columns come from OUT's schema, so that a column a later migration adds is carried
 * without being named, and a table of the schema the merge does not know is refused. The
 * databases are made through db.h, as the tuner makes them, in a fresh folder under /tmp. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "db_fixture.h"
#include "db.h"
#include "merge.h"
#include "raw_sqlite.h"
#include "tmpdir.h"

/* A shard: one device, one variant, one size, one run of n trials. */
static void make_shard(const char *path, const char *device_uuid, int n)
{
    CutuneDb *db = NULL;
    CutuneError err = {0};
    CHECK_MSG(cutune_db_open(path, 0, &db, &err) == 0, "%s", err.msg);
    CutuneDeviceInfo dev = fixture_device(device_uuid, "NVIDIA H200");
    int64_t device_id = 0, variant_id = 0, problem_id = 0, run_id = 0;
    CutuneRunInfo run = {.argv = "cutune run matmul --shard", .op = "matmul", .seed = 1};
    CHECK(cutune_db_device(db, &dev, &device_id, &err) == 0);
    CHECK(cutune_db_variant(db, "matmul", "matmul_tiled", "1", "h", &variant_id, &err) == 0);
    CHECK(cutune_db_problem(db, "matmul", "1024x1024x1024", &problem_id, &err) == 0);
    run.device_id = device_id;
    CHECK(cutune_db_run_begin(db, &run, &run_id, &err) == 0);
    for (int i = 0; i < n; i++) {
        char config[64];
        snprintf(config, sizeof config, "TILE=%d,PAD=%d", 8 << (i % 4), i);
        CutuneTrialRecord t = fixture_trial(run_id, device_id, variant_id, problem_id, config,
                                            CUTUNE_STATUS_OK);
        t.median_ms = 1.0 + i % 97;
        t.min_ms = t.mean_ms = 1.0;
        t.samples = 10;
        t.seed = 1;
        CHECK_MSG(cutune_db_trial_insert(db, &t, NULL, NULL, &err) == 0, "%s", err.msg);
    }
    CHECK(cutune_db_run_end(db, run_id, "done", &err) == 0);
    cutune_db_close(&db);
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    *len = 0;
    if (!f)
        return NULL;
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && (buf = malloc((size_t)st.st_size + 1)))
        *len = fread(buf, 1, (size_t)st.st_size, f);
    fclose(f);
    return buf;
}

/* Files of the folder other than the shards and keep (and their -wal/-shm). */
static int strays(const char *keep)
{
    DIR *d = opendir(tmpdir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
            continue;
        if (strncmp(e->d_name, "shard", 5) == 0 ||
            (keep && strncmp(e->d_name, keep, strlen(keep)) == 0))
            continue;
        fprintf(stderr, "left over: %s\n", e->d_name);
        n++;
    }
    if (d)
        closedir(d);
    return n;
}

static void test_stopped(void)
{
    char in0[256], in1[256];
    snprintf(in0, sizeof in0, "%s", in_tmp("shard-0.db"));
    snprintf(in1, sizeof in1, "%s", in_tmp("shard-1.db"));
    const char *inputs[] = {in0, in1};
    make_shard(inputs[0], "GPU-a", 3000);
    make_shard(inputs[1], "GPU-b", 3000);
    volatile sig_atomic_t stop = 1;
    CutuneError err = {0};
    CutuneMergeResult res;

    /* a new OUT */
    int rc = cutune_db_merge(in_tmp("new.db"), inputs, 2, &stop, NULL, &res, &err);
    CHECK_MSG(rc == CUTUNE_ERR_INTERRUPTED, "a stopped merge returned %d: %s", rc, err.msg);
    CHECK_STR_CONTAINS(err.msg, "interrupted");
    CHECK_MSG(access(in_tmp("new.db"), F_OK) != 0, "a stopped merge left a new OUT");
    CHECK(strays(NULL) == 0);

    /* an existing OUT keeps its bytes */
    cutune_error_clear(&err);
    stop = 0;
    CHECK_MSG(cutune_db_merge(in_tmp("old.db"), inputs, 1, &stop, NULL, &res, &err) == 0, "%s",
              err.msg);
    size_t before_len, after_len;
    char *before = slurp(in_tmp("old.db"), &before_len);
    stop = 1;
    rc = cutune_db_merge(in_tmp("old.db"), inputs + 1, 1, &stop, NULL, &res, &err);
    CHECK_MSG(rc == CUTUNE_ERR_INTERRUPTED, "a stopped merge into OUT returned %d: %s", rc,
              err.msg);
    char *after = slurp(in_tmp("old.db"), &after_len);
    CHECK_MSG(before && after && before_len == after_len && memcmp(before, after, before_len) == 0,
              "a stopped merge changed the existing OUT");
    CHECK(strays("old.db") == 0);
    free(before);
    free(after);

    /* not stopped: the same merge goes through */
    cutune_error_clear(&err);
    stop = 0;
    rc = cutune_db_merge(in_tmp("old.db"), inputs + 1, 1, &stop, NULL, &res, &err);
    CHECK_MSG(rc == 0 && res.added.trials == 3000 && res.best_keys == 1,
              "the merge after: %d, %lld trials added, %lld keys: %s", rc,
              (long long)res.added.trials, (long long)res.best_keys, err.msg);
}

static void test_columns_from_schema(void)
{
    char out[256], in[256];
    snprintf(out, sizeof out, "%s", in_tmp("columns-out.db"));
    snprintf(in, sizeof in, "%s", in_tmp("columns-in.db"));
    make_shard(in, "GPU-c", 10);
    /* what a later migration would add, on both sides */
    CHECK_EQ_INT(raw_exec(in, "ALTER TABLE trials ADD COLUMN later INTEGER NOT NULL DEFAULT 0;"
                              "UPDATE trials SET later = 7"),
                 SQLITE_OK);
    CutuneDb *db = NULL;
    CutuneError err = {0};
    CHECK_MSG(cutune_db_open(out, 0, &db, &err) == 0, "%s", err.msg);
    if (!db)
        return;
    sqlite3 *h = cutune_db_sqlite(db);
    CHECK_MSG(cutune_merge_check_schema(h, &err) == SQLITE_OK, "%s", err.msg);
    CHECK_EQ_INT(sqlite3_exec(h, "ALTER TABLE trials ADD COLUMN later INTEGER NOT NULL DEFAULT 0",
                              NULL, NULL, NULL),
                 SQLITE_OK);
    sqlite3_stmt *st = NULL;
    CHECK(sqlite3_prepare_v2(h, "ATTACH ?1 AS src", -1, &st, NULL) == SQLITE_OK &&
          sqlite3_bind_text(st, 1, in, -1, SQLITE_STATIC) == SQLITE_OK &&
          sqlite3_step(st) == SQLITE_DONE);
    sqlite3_finalize(st);
    CutuneMergeCounts added = {0};
    CutuneMergeResult res = {0};
    CHECK(sqlite3_exec(h, "BEGIN", NULL, NULL, NULL) == SQLITE_OK);
    int rc = cutune_merge_attached(h, in, out, &added, &res, &err);
    CHECK_MSG(rc == SQLITE_OK, "%d %s %s", rc, err.msg, sqlite3_errmsg(h));
    CHECK(sqlite3_exec(h, "COMMIT; DETACH src", NULL, NULL, NULL) == SQLITE_OK);
    CHECK_EQ_INT(added.trials, 10);
    CHECK_EQ_INT(added.runs, 1);
    CHECK_EQ_INT(raw_int(out, "SELECT count(*) FROM trials WHERE later = 7"), 10);
    /* a table of the schema that merge_copy.c does not list */
    CHECK_EQ_INT(
        sqlite3_exec(h,
                     "CREATE TABLE unlisted_by_merge (id INTEGER PRIMARY KEY, trial_id INTEGER"
                     " REFERENCES trials (id))",
                     NULL, NULL, NULL),
        SQLITE_OK);
    cutune_error_clear(&err);
    CHECK(cutune_merge_check_schema(h, &err) == -1);
    CHECK_STR_CONTAINS(err.msg, "does not know table unlisted_by_merge");
    cutune_db_close(&db);
}

int main(void)
{
    if (make_tmpdir(tmpdir, sizeof tmpdir, "cutune-merge-stop") != 0)
        return 1;
    test_stopped();
    test_columns_from_schema();
    rm_tree(tmpdir);
    return check_result("merge_stop");
}
