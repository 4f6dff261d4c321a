/* End to end on a GPU (exit 77 without one): tune small awkward sizes, check that every
 * shipped config is verified correct, that planted wrong kernels are recorded as
 * wrong_result and never chosen though they are faster, that `cutune query` finds the best,
 * that a second run compiles nothing, and that --resume measures nothing twice. */
#include "check.h"
#include "gpu_test.h"
#include "db.h"
#include "device.h"
#include "tune.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char db_path[PATH_MAX / 2];

static const CutuneTuneRow *row_of(const CutuneTuneSummary *s, const char *variant,
                                   const char *size)
{
    for (size_t i = 0; i < s->nrows; i++)
        if (!strcmp(s->rows[i].variant, variant) && !strcmp(s->rows[i].size, size))
            return &s->rows[i];
    return NULL;
}

/* Tune the variants named (NULL-terminated) into one summary. */
static void tune_matmul(const char *const *variants, const char *const *sizes, size_t nsizes,
                        int retune, CutuneTuneSummary *sum)
{
    memset(sum, 0, sizeof *sum);
    for (size_t v = 0; variants[v]; v++) {
        CutuneTuneOptions o = gpu_tune_options("matmul", variants[v], sizes, nsizes, db_path, 0.2);
        o.seed = (uint64_t)getpid(); /* fresh inputs every test run */
        o.retune = retune;
        o.strategy = "exhaustive"; /* every config: the checks below count them */
        o.time_limit_s = 0;
        o.argv_text = "test_gpu";
        /* BUG 6 is a 1e-3 error in C[0][0], which these random inputs may make near 0:
         * test_gpu_check plants it with the seed it is known to be caught with */
        static const char *const bugs[] = {"BUG=0", "BUG=1", "BUG=2", "BUG=3", "BUG=4", "BUG=5"};
        if (!strcmp(variants[v], "matmul_planted")) {
            o.where = bugs;
            o.nwhere = 6;
        }
        CutuneTuneSummary one;
        gpu_tune(&o, &one);
        CutuneTuneRow *rows = realloc(sum->rows, (sum->nrows + one.nrows) * sizeof *rows);
        CHECK(rows != NULL);
        if (rows) {
            memcpy(rows + sum->nrows, one.rows, one.nrows * sizeof *rows);
            sum->rows = rows;
            sum->nrows += one.nrows;
        }
        sum->run_id = one.run_id;
        cutune_tune_summary_free(&one);
    }
}

/* The seeds' variants and the planted one: small spaces, tuned exhaustively. */
static const char *const small_variants[] = {"matmul_naive", "matmul_tiled", "matmul_planted",
                                             NULL};

typedef struct {
    const char *size;
    double best_ok;
    size_t planted_wrong, ok, messages;
} Scan;

static int scan(const CutuneTrialRow *r, void *user)
{
    Scan *s = user;
    if (strcmp(r->size, s->size))
        return 0;
    if (!strcmp(r->status, "ok")) {
        s->ok++;
        if (!(s->best_ok > 0) || r->median_ms < s->best_ok)
            s->best_ok = r->median_ms;
    }
    if (!strcmp(r->variant, "matmul_planted") && !strcmp(r->status, "wrong_result"))
        s->planted_wrong++;
    /* every failure says why: the planted ones name the wrong element, the thread count,
     * and the compiler's #error */
    if (strcmp(r->status, "ok") && r->message &&
        (strstr(r->message, "elements wrong; first at C[") || strstr(r->message, "2048 threads") ||
         strstr(r->message, "planted compile error")))
        s->messages++;
    return 0;
}

static void first_run(const char *uuid)
{
    static const char *const sizes[] = {"97x75x61", "128x64x300"};
    CutuneTuneSummary sum;
    tune_matmul(small_variants, sizes, 2, 0, &sum);
    for (size_t i = 0; i < 2; i++) {
        const CutuneTuneRow *n = row_of(&sum, "matmul_naive", sizes[i]);
        const CutuneTuneRow *t = row_of(&sum, "matmul_tiled", sizes[i]);
        const CutuneTuneRow *p = row_of(&sum, "matmul_planted", sizes[i]);
        CHECK(n && t && p);
        if (!n || !t || !p)
            continue;
        /* every shipped config is correct and measured */
        CHECK_MSG(n->nvalid == 72 && n->count[CUTUNE_STATUS_OK] == 72, "naive %s: %zu ok of %zu",
                  sizes[i], n->count[CUTUNE_STATUS_OK], n->nvalid);
        CHECK_MSG(t->nvalid == 132 && t->count[CUTUNE_STATUS_OK] == 132, "tiled %s: %zu ok of %zu",
                  sizes[i], t->count[CUTUNE_STATUS_OK], t->nvalid);
        /* the planted bugs are caught */
        CHECK_EQ_INT(p->count[CUTUNE_STATUS_OK], 1);
        CHECK_EQ_INT(p->count[CUTUNE_STATUS_WRONG_RESULT], 3);
        CHECK_EQ_INT(p->count[CUTUNE_STATUS_SKIPPED_RESOURCES], 1);
        CHECK_EQ_INT(p->count[CUTUNE_STATUS_COMPILE_ERROR], 1);
        CHECK(n->compiled + n->cached == 72 && t->compiled + t->cached == 132);

        CutuneDb *db = NULL;
        CutuneError err = {0};
        CutuneBest b;
        CHECK(cutune_db_open(db_path, CUTUNE_DB_READONLY, &db, &err) == 0);
        CHECK_MSG(cutune_db_best(db, uuid, "matmul", sizes[i], &b, &err) == 0, "%s", err.msg);
        CHECK_MSG(strcmp(b.variant, "matmul_planted") != 0 || strcmp(b.config, "BUG=0") == 0,
                  "a planted wrong config became best: %s %s", b.variant, b.config);
        Scan s = {sizes[i], 0, 0, 0, 0};
        for (int64_t run = sum.run_id - 2; run <= sum.run_id; run++) /* one run a variant */
            CHECK(cutune_db_trials_foreach(db, run, scan, &s, &err) == 0);
        CHECK_EQ_INT(s.planted_wrong, 3);
        CHECK_EQ_INT(s.messages, 5);
        CHECK_EQ_INT(s.ok, 72 + 132 + 1 + 2 * 3); /* and each run's best re-timed twice */
        CHECK_MSG(b.median_ms == s.best_ok, "best %.6f ms is not the fastest ok trial %.6f ms",
                  b.median_ms, s.best_ok);
        CHECK(b.gflops > 0 && b.samples >= 2);
        cutune_db_close(&db);
    }
    cutune_tune_summary_free(&sum);
}

static void query_finds_it(const char *uuid)
{
    const char *exe = getenv("CUTUNE_EXE");
    CHECK(exe != NULL);
    if (!exe)
        return;
    char cmd[3 * PATH_MAX], out[PATH_MAX];
    snprintf(out, sizeof out, "%s.query.json", db_path);
    snprintf(cmd, sizeof cmd,
             "'%s' query matmul --device 0 --size 97x75x61 --db '%s' --json > '%s'", exe, db_path,
             out);
    CHECK(system(cmd) == 0);
    FILE *f = fopen(out, "r");
    char text[4096] = "";
    if (f) {
        size_t n = fread(text, 1, sizeof text - 1, f);
        text[n] = '\0';
        fclose(f);
    }
    CHECK_STR_CONTAINS(text, "\"size\": \"97x75x61\"");
    CHECK_STR_CONTAINS(text, uuid);
    CHECK_STR_CONTAINS(text, "\"median_ms\"");
    unlink(out);
    /* by name, as an application without the ordinal would */
    snprintf(cmd, sizeof cmd,
             "'%s' query matmul --device '%s' --size 5x5x5 --db '%s' >/dev/null 2>&1", exe, uuid,
             db_path);
    int rc = system(cmd);
    CHECK_MSG(WIFEXITED(rc) && WEXITSTATUS(rc) == 4, "query of an untuned size: %d", rc);
}

/* --retune measures everything again, all of it from the kernel cache */
static void second_run_compiles_nothing(void)
{
    static const char *const sizes[] = {"97x75x61"};
    CutuneTuneSummary sum;
    tune_matmul(small_variants, sizes, 1, 1, &sum);
    for (size_t i = 0; i < sum.nrows; i++) {
        CHECK_MSG(sum.rows[i].compiled == 0, "%s compiled %zu kernels again", sum.rows[i].variant,
                  sum.rows[i].compiled);
        /* compile errors are not cached: they fail again, and are counted as such */
        CHECK(sum.rows[i].cached + sum.rows[i].count[CUTUNE_STATUS_COMPILE_ERROR] ==
                  sum.rows[i].evaluated &&
              sum.rows[i].evaluated > 0);
    }
    cutune_tune_summary_free(&sum);
}

/* A run without --retune measures nothing the database holds: a size tuned before has only
 * its best re-timed (one measurement), a new size is tuned whole. */
static void rerun_measures_nothing_twice(void)
{
    static const char *const sizes[] = {"97x75x61", "128x64x300", "33x1x7"};
    CutuneTuneSummary sum;
    tune_matmul(small_variants, sizes, 3, 0, &sum);
    for (size_t i = 0; i < sum.nrows; i++) {
        const CutuneTuneRow *r = &sum.rows[i];
        if (strcmp(r->size, "33x1x7") == 0)
            CHECK_MSG(r->evaluated == r->nvalid, "new size %s: %zu of %zu", r->variant,
                      r->evaluated, r->nvalid);
        else
            CHECK_MSG(r->evaluated <= 1 && r->known == r->nvalid,
                      "%s %s measured %zu configs again (%zu known of %zu)", r->variant, r->size,
                      r->evaluated, r->known, r->nvalid);
    }
    cutune_tune_summary_free(&sum);
}

static void template_plugin(void)
{
    static const char *const sizes[] = {"1000003"};
    const CutuneTuneOptions o = gpu_tune_options("axpy", NULL, sizes, 1, db_path, 0.1);
    CutuneTuneSummary sum;
    gpu_tune(&o, &sum);
    CHECK(sum.nrows == 1 && sum.rows[0].count[CUTUNE_STATUS_OK] == 20);
    CHECK(sum.nrows == 1 && sum.rows[0].best_gbps > 0);
    cutune_tune_summary_free(&sum);
}

int main(void)
{
    CutuneDeviceInfo dev;
    int start = gpu_test_start("cutune-gpu", &dev, db_path, sizeof db_path);
    if (start)
        return start;
    setenv("CUTUNE_CACHE_DIR", in_tmp("cache"), 1); /* a cold cache: the first run compiles */
    first_run(dev.uuid);
    query_finds_it(dev.uuid);
    second_run_compiles_nothing();
    rerun_measures_nothing_twice();
    template_plugin();
    return gpu_test_end("gpu");
}
