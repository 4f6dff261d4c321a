/* The database against damage and accidents: truncated and foreign files, a FIFO, a bad
 * schema version, a database being created, an older schema read without a GPU or write
 * access, a read-only folder, a full disk at commit, runs whose process died, and
 * concurrent claims on pending requests. Everything happens in a fresh folder under /tmp. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "check.h"
#include "db_fixture.h"
#include "db.h"
#include "raw_sqlite.h"
#include "tmpdir.h"

extern const char *const cutune_migrations[];

/* A checksum of the file's bytes (0 when missing). */
static uint64_t sum_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    uint64_t h = 1469598103934665603ULL;
    int c;
    if (!f)
        return 0;
    while ((c = fgetc(f)) != EOF)
        h = (h ^ (unsigned char)c) * 1099511628211ULL;
    fclose(f);
    return h;
}

static void copy_file(const char *from, const char *to, long keep)
{
    FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");
    int c;
    for (long n = 0; a && b && (keep < 0 || n < keep) && (c = fgetc(a)) != EOF; n++)
        fputc(c, b);
    if (a)
        fclose(a);
    if (b)
        fclose(b);
}

/* A database with one device, run, trial and best, checkpointed into the main file. */
static void make_db(const char *path)
{
    CutuneDb *db = NULL;
    CutuneError e = {0};
    CHECK_MSG(cutune_db_open(path, 0, &db, &e) == 0, "%s", e.msg);
    if (!db)
        return;
    CutuneDeviceInfo d = fixture_device("GPU-1", "Test GPU");
    int64_t dev = 0, var = 0, prob = 0, run = 0;
    CHECK(cutune_db_device(db, &d, &dev, &e) == 0);
    CHECK(cutune_db_variant(db, "gemm", "gemm_a", "1", "h", &var, &e) == 0);
    CHECK(cutune_db_problem(db, "gemm", "64", &prob, &e) == 0);
    CutuneRunInfo ri = {.argv = "test", .op = "gemm", .strategy = "exhaustive", .device_id = dev};
    CHECK(cutune_db_run_begin(db, &ri, &run, &e) == 0);
    for (int i = 0; i < 40; i++) {
        char cfg[32];
        snprintf(cfg, sizeof cfg, "X=%d", i);
        CutuneTrialRecord t = fixture_trial(run, dev, var, prob, cfg, CUTUNE_STATUS_OK);
        t.median_ms = 1 + i;
        t.samples = 3;
        CHECK(cutune_db_trial_insert(db, &t, NULL, NULL, &e) == 0);
    }
    CHECK(cutune_db_run_end(db, run, "done", &e) == 0);
    sqlite3_wal_checkpoint_v2(cutune_db_sqlite(db), NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
    cutune_db_close(&db);
}

static void truncated_and_damaged(const char *good)
{
    struct stat st;
    CHECK(stat(good, &st) == 0);
    static const struct {
        const char *name;
        long keep; /* bytes kept; -1: all, then damaged below */
        const char *phrase;
    } cases[] = {
        {"half.db", -2, "it is truncated:"},
        {"header.db", 50, "cut short inside its 100-byte header"},
        {"page.db", 4096 + 100, "not a whole number of 4096-byte pages"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *path = in_tmp(cases[i].name);
        copy_file(good, path, cases[i].keep == -2 ? (long)st.st_size / 2 : cases[i].keep);
        uint64_t before = sum_file(path);
        for (int ro = 1; ro >= 0; ro--) {
            CutuneDb *db = NULL;
            CutuneError e = {0};
            int rc = cutune_db_open(path, ro ? CUTUNE_DB_READONLY : 0, &db, &e);
            CutuneBest b;
            if (rc == 0) /* the damage may lie past the pages an open reads */
                rc = cutune_db_best(db, "GPU-1", "gemm", "64", &b, &e);
            cutune_db_close(&db);
            CHECK_MSG(rc == CUTUNE_ERR_DB, "%s (ro %d): rc %d: %s", cases[i].name, ro, rc, e.msg);
            CHECK_MSG(strstr(e.msg, cases[i].phrase) || strstr(e.msg, "damaged"), "%s: %s",
                      cases[i].name, e.msg);
            CHECK_MSG(!strstr(e.msg, "not an error"), "%s: %s", cases[i].name, e.msg);
            CHECK_MSG(!strstr(e.msg, "older") && !strstr(e.msg, "upgrade"), "%s", e.msg);
        }
        CHECK_MSG(sum_file(path) == before, "%s was modified", cases[i].name);
    }
    /* the open itself meets the truncation (the schema is on the first page, the header
     * says how many pages there are): named as such */
    CutuneDb *db = NULL;
    CutuneError e = {0};
    char cut[600];
    snprintf(cut, sizeof cut, "%s", in_tmp("half.db"));
    int rc = cutune_db_open(cut, CUTUNE_DB_READONLY, &db, &e);
    cutune_db_close(&db);
    if (rc)
        CHECK_STR_CONTAINS(e.msg, "truncated");
}

/* path refused with CUTUNE_ERR_DB, saying phrase, when opened to write and read-only. */
static void refused_both_ways(const char *path, const char *phrase)
{
    for (int ro = 0; ro <= 1; ro++) {
        CutuneDb *db = NULL;
        CutuneError e = {0};
        CHECK_EQ_INT(cutune_db_open(path, ro ? CUTUNE_DB_READONLY : 0, &db, &e), CUTUNE_ERR_DB);
        CHECK_STR_CONTAINS(e.msg, phrase);
    }
}

static void bad_version_and_fifo(const char *good)
{
    const char *neg = in_tmp("negative.db");
    copy_file(good, neg, -1);
    CHECK_EQ_INT(raw_exec(neg, "PRAGMA user_version = -1"), SQLITE_OK);
    uint64_t before = sum_file(neg);
    refused_both_ways(neg, "schema version is -1");
    CHECK(sum_file(neg) == before);

    const char *fifo = in_tmp("fifo.db");
    CHECK_EQ_INT(mkfifo(fifo, 0644), 0);
    time_t t0 = time(NULL);
    refused_both_ways(fifo, "a FIFO");
    CHECK(time(NULL) - t0 < 3);
    CutuneDb *db = NULL;
    CutuneError e = {0};
    CHECK_EQ_INT(cutune_db_open(tmpdir, CUTUNE_DB_READONLY, &db, &e), CUTUNE_ERR_DB);
    CHECK_STR_CONTAINS(e.msg, "a folder");
}

/* A reader that meets a database another process is creating waits for its migrations;
 * one that meets an empty file says nothing is recorded, never that it is old. */
typedef struct Creator {
    const char *path;
    int rc;
} Creator;

static void *create_late(void *arg)
{
    Creator *c = arg;
    usleep(300 * 1000);
    CutuneDb *db = NULL;
    c->rc = cutune_db_open(c->path, 0, &db, NULL);
    cutune_db_close(&db);
    return NULL;
}

static void being_created(void)
{
    const char *path = in_tmp("creating.db");
    FILE *f = fopen(path, "wb"); /* what a creator leaves for a moment: an empty file */
    if (f)
        fclose(f);
    Creator c = {path, -1};
    pthread_t t;
    CHECK(pthread_create(&t, NULL, create_late, &c) == 0);
    CutuneDb *db = NULL;
    CutuneError e = {0};
    int rc = cutune_db_open(path, CUTUNE_DB_READONLY, &db, &e);
    pthread_join(t, NULL);
    CHECK_EQ_INT(c.rc, 0);
    CHECK_MSG(rc == 0 || rc == CUTUNE_ERR_NOT_FOUND, "rc %d: %s", rc, e.msg);
    CHECK_MSG(!strstr(e.msg, "older") && !strstr(e.msg, "upgrade"), "%s", e.msg);
    if (rc == 0)
        CHECK_EQ_INT(cutune_db_schema_version(db), cutune_db_schema_latest());
    cutune_db_close(&db);

    /* an empty file nobody touches: at once, nothing recorded */
    const char *empty = in_tmp("empty.db");
    f = fopen(empty, "wb");
    if (f)
        fclose(f);
    struct timespec old[2] = {{time(NULL) - 60, 0}, {time(NULL) - 60, 0}};
    utimensat(AT_FDCWD, empty, old, 0);
    time_t t0 = time(NULL);
    e = (CutuneError){0};
    CHECK_EQ_INT(cutune_db_open(empty, CUTUNE_DB_READONLY, &db, &e), CUTUNE_ERR_NOT_FOUND);
    CHECK_STR_CONTAINS(e.msg, "nothing recorded yet");
    CHECK(time(NULL) - t0 < 2);
}

/* Schema version 1 (migration 0001 only), with a best row, as an older cutune left it. */
static void make_v1(const char *path)
{
    char sql[4096];
    CHECK_EQ_INT(raw_exec(path, cutune_migrations[0]), SQLITE_OK);
    snprintf(
        sql, sizeof sql,
        "INSERT INTO devices (uuid, name, cc_major, cc_minor, sm_count, total_mem, driver_version,"
        " runtime_version) VALUES ('GPU-1', 'Old GPU', 9, 0, 132, 1, 1, 1);"
        "INSERT INTO variants (op, name, version, source_hash) VALUES ('gemm', 'gemm_a', '1', 'h');"
        "INSERT INTO problems (op, size) VALUES ('gemm', '64');"
        "INSERT INTO runs (argv, op, status) VALUES ('old', 'gemm', 'done');"
        "INSERT INTO trials (run_id, device_id, variant_id, problem_id, config, status,"
        " median_ms, samples) VALUES (1, 1, 1, 1, 'X=7', 'ok', 0.5, 3);"
        "INSERT INTO best (device_id, problem_id, trial_id) VALUES (1, 1, 1);"
        "PRAGMA user_version = 1;");
    CHECK_EQ_INT(raw_exec(path, sql), SQLITE_OK);
}

static void older_schema_read_only(void)
{
    const char *path = in_tmp("v1.db");
    make_v1(path);
    uint64_t before = sum_file(path);
    CutuneDb *db = NULL;
    CutuneError e = {0};
    CHECK_MSG(cutune_db_open(path, CUTUNE_DB_READONLY, &db, &e) == 0, "%s", e.msg);
    if (db) {
        CHECK_EQ_INT(cutune_db_schema_version(db), cutune_db_schema_latest());
        CutuneBest b;
        CHECK_MSG(cutune_db_best(db, "GPU-1", "gemm", "64", &b, &e) == 0, "%s", e.msg);
        CHECK(strcmp(b.config, "X=7") == 0);
        cutune_db_close(&db);
    }
    CHECK(sum_file(path) == before);
    CHECK_EQ_INT(raw_int(path, "PRAGMA user_version"), 1);
    /* a read-write open still upgrades it in place */
    CHECK_MSG(cutune_db_open(path, 0, &db, &e) == 0, "%s", e.msg);
    cutune_db_close(&db);
    CHECK_EQ_INT(raw_int(path, "PRAGMA user_version"), cutune_db_schema_latest());
}

/* Run fn in a child that cannot write the folder: as nobody when we are root (root writes
 * anywhere). Returns the child's exit status, -1 if it could not run. */
static int as_other_user(int (*fn)(const char *), const char *arg)
{
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
            _exit(99);
        _exit(fn(arg));
    }
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int read_best(const char *path)
{
    CutuneDb *db = NULL;
    CutuneError e = {0};
    CutuneBest b;
    int rc = cutune_db_open(path, CUTUNE_DB_READONLY, &db, &e);
    if (rc == 0)
        rc = cutune_db_best(db, "GPU-1", "gemm", "64", &b, &e);
    cutune_db_close(&db);
    if (rc)
        fprintf(stderr, "read-only folder: %s\n", e.msg);
    return rc == 0 ? 0 : 1;
}

static void read_only_folder(const char *good)
{
    char dir[512], path[600], v1[600];
    snprintf(dir, sizeof dir, "%s", in_tmp("ro"));
    snprintf(path, sizeof path, "%s/r.db", dir);
    snprintf(v1, sizeof v1, "%s/v1.db", dir);
    CHECK_EQ_INT(mkdir(dir, 0755), 0);
    copy_file(good, path, -1);
    make_v1(v1);
    chmod(path, 0444);
    chmod(v1, 0444);
    chmod(tmpdir, 0755); /* nobody must reach it */
    CHECK_EQ_INT(chmod(dir, 0555), 0);
    CHECK_EQ_INT(as_other_user(read_best, path), 0);
    CHECK_EQ_INT(as_other_user(read_best, v1), 0); /* older, read-only folder, no GPU */
    struct stat st;
    char shm[700];
    snprintf(shm, sizeof shm, "%s-shm", path);
    CHECK(stat(shm, &st) != 0); /* nothing was created beside it */
    chmod(dir, 0755);
    chmod(tmpdir, 0700);
}

/* With the WAL emptied and no room to grow it, the commit of an INSERT ... RETURNING fails:
 * the error must come back, not a run id that was never committed. */
static void full_disk_at_commit(void)
{
    const char *path = in_tmp("full.db");
    make_db(path);
    CutuneDb *db = NULL;
    CutuneError e = {0};
    CHECK_MSG(cutune_db_open(path, 0, &db, &e) == 0, "%s", e.msg);
    if (!db)
        return;
    sqlite3_wal_checkpoint_v2(cutune_db_sqlite(db), NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
    struct rlimit old, small = {512, 0};
    getrlimit(RLIMIT_FSIZE, &old);
    small.rlim_max = old.rlim_max;
    void (*prev)(int) = signal(SIGXFSZ, SIG_IGN);
    CHECK_EQ_INT(setrlimit(RLIMIT_FSIZE, &small), 0);
    CutuneRunInfo ri = {.argv = "full", .op = "gemm", .strategy = "exhaustive", .device_id = 1};
    int64_t run = 0;
    int rc = cutune_db_run_begin(db, &ri, &run, &e);
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, prev);
    CHECK_EQ_INT(rc, CUTUNE_ERR_DB);
    CHECK_MSG(strstr(e.msg, "disk") != NULL, "%s",
              e.msg); /* full, or I/O error: the system errno is not kept */
    CHECK(!strstr(e.msg, "FOREIGN KEY"));
    cutune_db_close(&db);
    CHECK_EQ_INT(raw_int(path, "SELECT count(*) FROM runs WHERE argv = 'full'"), 0);
}

/* A run left 'running' by a process that is gone is found stale on the next read-write
 * open; one whose process lives, or of another host, is left. */
static void stale_runs(void)
{
    const char *path = in_tmp("stale.db");
    make_db(path);
    pid_t child = fork();
    if (child == 0)
        _exit(0);
    waitpid(child, NULL, 0); /* a pid that existed and is gone */
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    char sql[2048];
    snprintf(sql, sizeof sql,
             "INSERT INTO runs (id, argv, status, pid, host, uuid) VALUES"
             " (10, 'dead', 'running', %d, '%s', 'u10'), (11, 'alive', 'running', %d, '%s', 'u11'),"
             " (12, 'elsewhere', 'running', %d, 'another-host', 'u12');"
             "INSERT INTO searches (run_id, device_id, variant_id, problem_id, strategy, nvalid)"
             " VALUES (10, 1, 1, 1, 'exhaustive', 5);"
             "INSERT INTO requests (device_uuid, op, size, answered_by, run_id)"
             " VALUES ('GPU-1', 'gemm', '128', 'none', 10);",
             (int)child, host, (int)getppid(), host, (int)child);
    CHECK_EQ_INT(raw_exec(path, sql), SQLITE_OK);
    CutuneDb *db = NULL;
    CHECK_EQ_INT(cutune_db_open(path, CUTUNE_DB_READONLY, &db, NULL), 0);
    cutune_db_close(&db); /* a reader changes nothing */
    CHECK_EQ_INT(raw_int(path, "SELECT count(*) FROM runs WHERE status = 'running'"), 3);
    CHECK_EQ_INT(cutune_db_open(path, 0, &db, NULL), 0);
    cutune_db_close(&db);
    CHECK_EQ_INT(raw_int(path, "SELECT status = 'interrupted' AND finished_at IS NOT NULL"
                               " FROM runs WHERE id = 10"),
                 1);
    CHECK_EQ_INT(raw_int(path, "SELECT status = 'running' FROM runs WHERE id = 11"), 1);
    CHECK_EQ_INT(raw_int(path, "SELECT status = 'running' FROM runs WHERE id = 12"), 1);
    CHECK_EQ_INT(raw_int(path, "SELECT status = 'interrupted' FROM searches WHERE run_id = 10"), 1);
    CHECK_EQ_INT(raw_int(path, "SELECT run_id IS NULL FROM requests WHERE size = '128'"), 1);
}

static int collect(const char *op, const char *size, void *user)
{
    (void)op;
    char *seen = user;
    strncat(seen, size, 63);
    strncat(seen, " ", 2);
    return 0;
}

static void claims(void)
{
    const char *path = in_tmp("claims.db");
    make_db(path);
    CHECK_EQ_INT(raw_exec(path,
                          "INSERT INTO requests (device_uuid, op, size, answered_by) VALUES"
                          " ('GPU-1', 'gemm', '128', 'none'), ('GPU-1', 'gemm', '256', 'nearest'),"
                          " ('GPU-2', 'gemm', '512', 'none')"),
                 SQLITE_OK);
    CutuneDb *a = NULL, *b = NULL;
    CutuneError e = {0};
    CHECK_EQ_INT(cutune_db_open(path, 0, &a, &e), 0);
    CHECK_EQ_INT(cutune_db_open(path, 0, &b, &e), 0);
    if (!a || !b)
        return;
    CutuneRunInfo ri = {.argv = "pending", .strategy = "exhaustive", .device_id = 1};
    int64_t ra = 0, rb = 0;
    CHECK_EQ_INT(cutune_db_run_begin(a, &ri, &ra, &e), 0);
    CHECK_EQ_INT(cutune_db_run_begin(b, &ri, &rb, &e), 0);
    char seen_a[256] = "", seen_b[256] = "";
    CHECK_EQ_INT(cutune_db_requests_claim(a, "GPU-1", NULL, ra, collect, seen_a, &e), 0);
    CHECK_EQ_INT(cutune_db_requests_claim(b, "GPU-1", NULL, rb, collect, seen_b, &e), 0);
    CHECK_MSG(strcmp(seen_a, "128 256 ") == 0, "%s", seen_a);
    CHECK_MSG(strcmp(seen_b, "") == 0, "both runs claimed: %s", seen_b);
    CHECK_EQ_INT(cutune_db_request_done(a, "GPU-1", "gemm", "128", ra, &e), 0);
    CHECK_EQ_INT(cutune_db_run_end(a, ra, "interrupted", &e), 0); /* 256 is let go */
    seen_b[0] = '\0';
    CHECK_EQ_INT(cutune_db_requests_claim(b, "GPU-1", "gemm", rb, collect, seen_b, &e), 0);
    CHECK_MSG(strcmp(seen_b, "256 ") == 0, "%s", seen_b);
    CHECK_EQ_INT(cutune_db_run_end(b, rb, "done", &e), 0);
    cutune_db_close(&a);
    cutune_db_close(&b);
    CHECK_EQ_INT(raw_int(path, "SELECT count(*) FROM requests WHERE run_id IS NOT NULL"
                               " AND status = 'pending'"),
                 0);
    CHECK_EQ_INT(raw_int(path, "SELECT run_id FROM requests WHERE size = '128'"), ra);
}

int main(void)
{
    umask(022);
    if (make_tmpdir(tmpdir, sizeof tmpdir, "cutune-test-dbsafe") != 0)
        return 1;
    char good[600];
    snprintf(good, sizeof good, "%s", in_tmp("good.db"));
    make_db(good);
    truncated_and_damaged(good);
    bad_version_and_fifo(good);
    being_created();
    older_schema_read_only();
    read_only_folder(good);
    full_disk_at_commit();
    stale_runs();
    claims();
    rm_tree(tmpdir);
    return check_result("db_safety");
}
