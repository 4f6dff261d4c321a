/* matmul's check on a GPU (exit 77 without one), at the sizes of issue 4: a 1e-3 relative
 * error in C[0][0] (tests/planted, BUG=6) is recorded wrong_result at 1000^3, 4096^3 and
 * 8192^3, by the statistical bound, while the right kernel (BUG=0) passes; and no config
 * of a shipped matmul variant is recorded wrong_result, over a seeded random sample of each
 * space at those sizes with several seeds (CUTUNE_CHECK_BUDGET scales the samples). The
 * same bounds on the CPU, with the summation orders written out: test_matmul_check.c. */
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

static char db_path[PATH_MAX];

static int tune(const char *variant, const char *size, const char *const *where, size_t nwhere,
                uint64_t seed, size_t budget, CutuneTuneSummary *sum)
{
    CutuneTuneOptions o = gpu_tune_options("matmul", variant, &size, 1, db_path, 0.05);
    o.where = where;
    o.nwhere = nwhere;
    o.seed = seed;
    o.budget = budget;
    o.strategy = budget ? "random" : "exhaustive";
    o.measure.early_stop = 1.5; /* correctness is what is looked at here */
    o.argv_text = "test_gpu_check";
    return gpu_tune(&o, sum);
}

typedef struct Messages {
    const char *size;
    size_t wrong;
    char first[600];
} Messages;

static int wrong_row(const CutuneTrialRow *r, void *user)
{
    Messages *m = user;
    if (strcmp(r->status, "wrong_result") || strcmp(r->size, m->size))
        return 0;
    if (m->wrong++ == 0)
        snprintf(m->first, sizeof m->first, "%s %s: %s", r->variant, r->config,
                 r->message ? r->message : "");
    return 0;
}

int main(void)
{
    int start = gpu_test_start("cutune-gpu-check", NULL, db_path, sizeof db_path);
    if (start)
        return start;
    CutuneError err = {0};
    static const char *const sizes[] = {"1000x1000x1000", "4096x4096x4096", "8192x8192x8192"};
    const char *scale = getenv("CUTUNE_CHECK_BUDGET");
    size_t per = scale ? (size_t)atoi(scale) : 12;

    /* the planted error: seed 1, where C[0][0] is known to be far from 0 (test_matmul_check) */
    static const char *const planted[] = {"BUG=0", "BUG=6"};
    for (size_t s = 0; s < 3; s++) {
        CutuneTuneSummary sum;
        if (tune("matmul_planted", sizes[s], planted, 2, 1, 0, &sum) == 0 && sum.nrows == 1) {
            const CutuneTuneRow *r = &sum.rows[0];
            CHECK_MSG(r->count[CUTUNE_STATUS_OK] == 1 && r->count[CUTUNE_STATUS_WRONG_RESULT] == 1,
                      "planted at %s: %zu ok, %zu wrong", sizes[s], r->count[CUTUNE_STATUS_OK],
                      r->count[CUTUNE_STATUS_WRONG_RESULT]);
            CutuneDb *db = NULL;
            Messages m = {sizes[s], 0, ""};
            CHECK(cutune_db_open(db_path, CUTUNE_DB_READONLY, &db, &err) == 0 &&
                  cutune_db_trials_foreach(db, sum.run_id, wrong_row, &m, &err) == 0);
            CHECK_STR_CONTAINS(m.first, "BUG=6");
            CHECK_STR_CONTAINS(m.first, "first at C[0][0]");
            CHECK_STR_CONTAINS(m.first, "the statistical bound");
            printf("planted %s: %s\n", sizes[s], m.first);
            cutune_db_close(&db);
        }
        cutune_tune_summary_free(&sum);
    }

    /* every shipped variant: a random sample of its space, several seeds */
    static const char *const variants[] = {"matmul_naive", "matmul_tiled",    "matmul_reg1d",
                                           "matmul_reg2d", "matmul_warptile", "matmul_async"};
    size_t total = 0, wrong = 0;
    for (size_t s = 0; s < 3; s++)
        for (uint64_t seed = 1; seed <= (s == 0 ? 3u : s == 1 ? 2u : 1u); seed++)
            for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
                CutuneTuneSummary sum;
                size_t budget = s == 0 ? per : s == 1 ? (per + 1) / 2 : (per + 3) / 4;
                if (tune(variants[v], sizes[s], NULL, 0, 100 + seed, budget, &sum) == 0) {
                    for (size_t i = 0; i < sum.nrows; i++) {
                        const CutuneTuneRow *r = &sum.rows[i];
                        total += r->evaluated;
                        wrong += r->count[CUTUNE_STATUS_WRONG_RESULT];
                        if (r->count[CUTUNE_STATUS_WRONG_RESULT]) {
                            CutuneDb *db = NULL;
                            Messages m = {sizes[s], 0, ""};
                            if (cutune_db_open(db_path, CUTUNE_DB_READONLY, &db, &err) == 0)
                                cutune_db_trials_foreach(db, sum.run_id, wrong_row, &m, &err);
                            cutune_db_close(&db);
                            CHECK_MSG(0, "%s seed %llu: %zu correct configs recorded wrong: %s",
                                      sizes[s], (unsigned long long)(100 + seed), m.wrong, m.first);
                        }
                    }
                }
                cutune_tune_summary_free(&sum);
            }
    printf("shipped matmul configs checked: %zu, recorded wrong: %zu\n", total, wrong);
    CHECK(total > 0);
    return gpu_test_end("gpu_check");
}
