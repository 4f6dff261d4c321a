/* Concurrent writers and readers on one database (no GPU): NWRITERS processes open the same
 * fresh file at once (racing to create and migrate it), each begins a run and commits
 * NTRIALS trials, all under the same device, variant and problem so that they contend for
 * the same best_config row; a reader process queries meanwhile. Every call must succeed
 * (no SQLITE_BUSY escapes the busy timeout and retries), every row must arrive, and the
 * best must be the fastest ok trial of all. */
#include "check.h"
#include "db_fixture.h"
#include "db.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <unistd.h>

#define NWRITERS 8
#define NTRIALS 150

static const char *uuid = "GPU-c0c0c0c0-0000-0000-0000-000000000008";

/* A distinct positive time for trial i of writer w; writer 5's trial 77 is the fastest. */
static double time_of(int w, int i)
{
    if (w == 5 && i == 77)
        return 0.125;
    return 1.0 + w * 0.01 + i * 0.0001;
}

static int writer(const char *path, int w)
{
    CutuneError err = {0};
    CutuneDb *db = NULL;
    CutuneDeviceInfo d;
    memset(&d, 0, sizeof d);
    snprintf(d.name, sizeof d.name, "concurrency test device");
    snprintf(d.uuid, sizeof d.uuid, "%s", uuid);
    int64_t dev, var, prob, run;
    if (cutune_db_open(path, 0, &db, &err) || cutune_db_device(db, &d, &dev, &err) ||
        cutune_db_variant(db, "matmul", "conc", "1", "00", &var, &err) ||
        cutune_db_problem(db, "matmul", "64x64x64", &prob, &err)) {
        fprintf(stderr, "writer %d: %s\n", w, err.msg);
        cutune_db_close(&db);
        return 1;
    }
    CutuneRunInfo ri = {.argv = "test_concurrency",
                        .op = "matmul",
                        .strategy = "exhaustive",
                        .seed = (uint64_t)w,
                        .device_id = dev};
    if (cutune_db_run_begin(db, &ri, &run, &err)) {
        fprintf(stderr, "writer %d: %s\n", w, err.msg);
        cutune_db_close(&db);
        return 1;
    }
    for (int i = 0; i < NTRIALS; i++) {
        char config[64];
        snprintf(config, sizeof config, "W=%d,I=%d", w, i);
        CutuneTrialRecord t = fixture_trial(run, dev, var, prob, config,
                                            i % 10 == 3 ? CUTUNE_STATUS_CRASHED : CUTUNE_STATUS_OK);
        t.seed = (uint64_t)w;
        if (t.status == CUTUNE_STATUS_OK)
            t.median_ms = t.min_ms = t.mean_ms = time_of(w, i);
        else
            t.message = "crashed on purpose";
        if (cutune_db_trial_insert(db, &t, NULL, NULL, &err)) {
            fprintf(stderr, "writer %d trial %d: %s\n", w, i, err.msg);
            cutune_db_close(&db);
            return 1;
        }
    }
    int rc = cutune_db_run_end(db, run, "done", &err);
    if (rc)
        fprintf(stderr, "writer %d: %s\n", w, err.msg);
    cutune_db_close(&db);
    return rc ? 1 : 0;
}

static int count_row(const CutuneTrialRow *r, void *user)
{
    (void)r;
    ++*(size_t *)user;
    return 0;
}

/* Reads until told to stop (its stdin closes); fails on any error but "not there yet". */
static int reader(const char *path, int stop_fd)
{
    int reads = 0;
    for (;;) {
        char c;
        fd_set fds;
        FD_ZERO(&fds);
        FD_SET(stop_fd, &fds);
        struct timeval tv = {0, 2000};
        if (select(stop_fd + 1, &fds, NULL, NULL, &tv) > 0 && read(stop_fd, &c, 1) <= 0)
            break;
        CutuneError err = {0};
        CutuneDb *db = NULL;
        int rc = cutune_db_open(path, CUTUNE_DB_READONLY, &db, &err);
        if (rc == CUTUNE_ERR_NOT_FOUND || (rc && strstr(err.msg, "schema version 0")))
            continue; /* not created yet, or created and not yet migrated */
        if (rc) {
            fprintf(stderr, "reader open: %s\n", err.msg);
            return 1;
        }
        CutuneBest b;
        size_t n = 0;
        int64_t run;
        rc = cutune_db_best(db, uuid, "matmul", "64x64x64", &b, &err);
        if (rc == CUTUNE_ERR_NOT_FOUND)
            rc = 0, cutune_error_clear(&err);
        if (rc == 0 && (rc = cutune_db_last_run(db, &run, &err)) == CUTUNE_ERR_NOT_FOUND)
            rc = 0, run = 0, cutune_error_clear(&err);
        if (rc == 0 && run > 0)
            rc = cutune_db_trials_foreach(db, run, count_row, &n, &err);
        cutune_db_close(&db);
        if (rc) {
            fprintf(stderr, "reader: %s\n", err.msg);
            return 1;
        }
        reads++;
    }
    fprintf(stderr, "reader: %d successful reads while the writers wrote\n", reads);
    return reads > 0 ? 0 : 1;
}

int main(void)
{
    char dir[] = "/tmp/cutune-conc-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[128];
    snprintf(path, sizeof path, "%s/sub/conc.db", dir);

    int stop[2];
    CHECK(pipe(stop) == 0);
    pid_t rpid = fork();
    if (rpid == 0) {
        close(stop[1]);
        _exit(reader(path, stop[0]));
    }
    close(stop[0]);
    pid_t pids[NWRITERS];
    for (int w = 0; w < NWRITERS; w++) {
        pids[w] = fork();
        if (pids[w] == 0)
            _exit(writer(path, w));
        CHECK(pids[w] > 0);
    }
    for (int w = 0; w < NWRITERS; w++) {
        int st = 0;
        CHECK(waitpid(pids[w], &st, 0) == pids[w]);
        CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "writer %d failed (status %d)", w, st);
    }
    close(stop[1]);
    int st = 0;
    CHECK(waitpid(rpid, &st, 0) == rpid);
    CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the reader failed (status %d)", st);

    /* every row arrived, once */
    CutuneError err = {0};
    CutuneDb *db = NULL;
    CHECK_MSG(cutune_db_open(path, CUTUNE_DB_READONLY, &db, &err) == 0, "%s", err.msg);
    size_t total = 0;
    for (int64_t run = 1; run <= NWRITERS; run++) {
        size_t n = 0;
        CHECK_MSG(cutune_db_trials_foreach(db, run, count_row, &n, &err) == 0, "%s", err.msg);
        CHECK_MSG(n == NTRIALS, "run %lld has %zu trials, want %d", (long long)run, n, NTRIALS);
        total += n;
    }
    CHECK_EQ_INT((long long)total, (long long)NWRITERS * NTRIALS);
    CutuneBest b;
    CHECK_MSG(cutune_db_best(db, uuid, "matmul", "64x64x64", &b, &err) == 0, "%s", err.msg);
    CHECK_STR_CONTAINS(b.config, "W=5,I=77");
    CHECK(b.median_ms == 0.125);
    cutune_db_close(&db);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
    return check_result("concurrency");
}
