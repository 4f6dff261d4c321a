/* The memory-bound ops on a GPU (exit 77 without one): tune transpose, matadd, reduce_sum,
 * histogram and topk at small awkward sizes (1, primes, sizes that are no multiple of any
 * tile, more rows than a grid's 65535 blocks) and require every valid config of every
 * variant to be verified correct. Then re-evaluate each variant's best config twice on one
 * state: the second checked launch runs after the first one's timed launches, so a kernel
 * that leaves its scratch counters dirty fails it. */
#include "check.h"
#include "gpu_test.h"
#include "db.h"
#include "device.h"
#include "registry.h"
#include "reeval.h"
#include "tune.h"
#include "util.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char db_path[PATH_MAX / 2];

typedef struct OpSizes {
    const char *op;
    const char *sizes[8];
} OpSizes;

static const OpSizes cases[] = {
    {"matadd", {"1", "97x61", "70001x3", "3x1000003"}},
    {"transpose", {"1", "97x61", "131x257", "70001x3", "3x70001"}},
    {"reduce_sum", {"1", "97", "1000003"}},
    /* NxTxD: T = 1 bytes / 4 floats, D = 1 uniform / 2 skewed */
    {"histogram", {"1", "7x4x1", "1000003x1x1", "1000003x1x2", "65537x4x1", "1000003x4x2"}},
    {"topk", {"1x1", "97x5", "1024x1024", "65537x1", "1000003x1024"}},
};

static size_t count_sizes(const OpSizes *c)
{
    size_t n = 0;
    while (n < 8 && c->sizes[n])
        n++;
    return n;
}

/* Tune every variant of the op at its sizes; every valid config must be ok. */
static void tune_op(const OpSizes *c, CutuneTuneSummary *sum)
{
    CutuneTuneOptions o = gpu_tune_options(c->op, NULL, c->sizes, count_sizes(c), db_path, 0.02);
    o.seed = (uint64_t)getpid(); /* fresh inputs every test run */
    o.measure.min_samples = 3;
    o.measure.min_sample_ms = 0.1;
    o.argv_text = "test_gpu_memory";
    o.strategy = "exhaustive"; /* every config is checked at these awkward sizes */
    o.time_limit_s = 0;
    gpu_tune(&o, sum);
    CHECK_MSG(sum->nrows > 0, "%s: no variant was tuned", c->op);
    for (size_t i = 0; i < sum->nrows; i++) {
        const CutuneTuneRow *r = &sum->rows[i];
        printf("%-20s %-14s %4zu valid, %4zu ok, best %.4f ms %.1f GB/s  %s\n", r->variant, r->size,
               r->nvalid, r->count[CUTUNE_STATUS_OK], r->best_ms, r->best_gbps, r->best_config);
        CHECK_MSG(r->nvalid > 0, "%s %s: no valid config", r->variant, r->size);
        CHECK_MSG(r->count[CUTUNE_STATUS_OK] == r->nvalid && r->evaluated == r->nvalid,
                  "%s %s: %zu ok of %zu valid (wrong %zu, launch errors %zu, skipped %zu, compile "
                  "errors %zu); `cutune show --status wrong_result` on %s says why",
                  r->variant, r->size, r->count[CUTUNE_STATUS_OK], r->nvalid,
                  r->count[CUTUNE_STATUS_WRONG_RESULT], r->count[CUTUNE_STATUS_LAUNCH_ERROR],
                  r->count[CUTUNE_STATUS_SKIPPED_RESOURCES], r->count[CUTUNE_STATUS_COMPILE_ERROR],
                  db_path);
        CHECK_MSG(r->best_gbps > 0, "%s %s: no bandwidth recorded", r->variant, r->size);
    }
}

/* Each variant's best config at `size`, evaluated twice on one state: both must be ok. */
static void reevaluate_best(const char *op, const char *size, const CutuneDeviceInfo *dev,
                            const CutuneRegistry *reg)
{
    CutuneDb *db = NULL;
    CutuneError err = {0};
    CHECK_MSG(cutune_db_open(db_path, CUTUNE_DB_READONLY, &db, &err) == 0, "%s", err.msg);
    for (size_t i = 0; db && i < reg->nvariants; i++) {
        const CutuneVariantDef *pl = reg->variants[i];
        if (strcmp(pl->op_name, op))
            continue;
        CutuneProblem p;
        char canon[64];
        cutune_error_clear(&err);
        CHECK_MSG(cutune_variant_problem(pl, size, &p, &err) == 0, "%s", err.msg);
        cutune_problem_format(&p, canon, sizeof canon);
        CutuneBest b;
        if (cutune_db_best_of_variant(db, dev->uuid, op, canon, pl->name, pl->version, &b, &err) !=
            0) {
            CHECK_MSG(0, "%s %s: no best config: %s", pl->name, canon, err.msg);
            continue;
        }
        CutuneMeasureSettings ms;
        cutune_measure_defaults(&ms);
        ms.max_seconds = 0.05;
        CutuneEvalResult res[2];
        int rc = cutune_reevaluate(pl, dev, b.config, &p, 777, &ms, 2, res, &err);
        CHECK_MSG(rc == 0, "re-evaluating %s %s: %s", pl->name, b.config, err.msg);
        for (int t = 0; rc == 0 && t < 2; t++)
            CHECK_MSG(res[t].status == CUTUNE_STATUS_OK, "%s %s %s, evaluation %d: %s: %s",
                      pl->name, canon, b.config, t + 1, cutune_status_name(res[t].status),
                      res[t].message);
    }
    cutune_db_close(&db);
}

int main(void)
{
    CutuneDeviceInfo dev;
    int start = gpu_test_start("cutune-gpu-mem", &dev, db_path, sizeof db_path);
    if (start)
        return start;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CutuneTuneSummary sum;
        tune_op(&cases[i], &sum);
        cutune_tune_summary_free(&sum);
    }
    CutuneRegistry reg;
    CutuneError err = {0};
    CHECK_MSG(cutune_registry_load(&reg, &err) == 0, "%s", err.msg);
    reevaluate_best("matadd", "97x61", &dev, &reg);
    reevaluate_best("transpose", "131x257", &dev, &reg);
    reevaluate_best("reduce_sum", "1000003", &dev, &reg);
    reevaluate_best("histogram", "1000003x1x2", &dev, &reg);
    reevaluate_best("topk", "1000003x1024", &dev, &reg);
    cutune_registry_free(&reg);
    return gpu_test_end("gpu_memory");
}
