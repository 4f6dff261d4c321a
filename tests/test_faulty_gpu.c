/* The tuner survives its kernels, on a real GPU (exit 77 without one): tune the faulting
 * matmul variant (tests/faulty/), whose configs write to an illegal address, store through
 * a misaligned pointer, never finish, or compute the wrong result, before three correct
 * ones. Each bad config must be recorded with its status (crashed, crashed, timeout,
 * wrong_result) and the CUDA error that ended it, the run must complete (the correct
 * configs after them measured by replacement workers), and the best must be a correct one.
 * A second run with --resume must measure nothing again.
 *
 * With --compile-only (a CPU test) every config is compiled with NVRTC for sm_90 instead,
 * so that the kernels are known to compile before they reach a GPU. */
#include "check.h"
#include "gpu_test.h"
#include "compile.h"
#include "db.h"
#include "device.h"
#include "registry.h"
#include "tune.h"
#include "util.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const want_status[] = {"crashed", "crashed", "timeout", "wrong_result",
                                          "ok",      "ok",      "ok"};
#define NFAULT 7

static int compile_only(void)
{
    CutuneRegistry reg;
    CutuneError err = {0};
    CHECK_MSG(cutune_registry_load(&reg, &err) == 0, "%s", err.msg);
    const CutuneVariantDef *p = cutune_registry_find(&reg, "matmul_faulty");
    CHECK_MSG(p != NULL, "matmul_faulty is not on CUTUNE_PLUGIN_PATH");
    for (int f = 0; p && f < NFAULT; f++) {
        char def[32];
        snprintf(def, sizeof def, "FAULT=%d", f);
        const char *defs[] = {def};
        CutuneKernelBinary b = {0};
        cutune_error_clear(&err);
        int rc = cutune_nvrtc_compile(p->source, p->kernel_name, defs, 1, 90, NULL, &b, &err);
        CHECK_MSG(rc == 0 && b.cubin && b.size > 0, "FAULT=%d does not compile: %s", f, err.msg);
        cutune_kernel_binary_free(&b);
    }
    cutune_registry_free(&reg);
    return check_result("faulty_compiles");
}

typedef struct {
    int seen[NFAULT];
    char status[NFAULT][32];
    char message[NFAULT][512];
    double median[NFAULT];
    int rows;
} Trials;

static int collect(const CutuneTrialRow *r, void *user)
{
    Trials *t = user;
    int f = -1;
    t->rows++;
    if (sscanf(r->config, "FAULT=%d", &f) != 1 || f < 0 || f >= NFAULT)
        return 0;
    t->seen[f]++;
    snprintf(t->status[f], sizeof t->status[f], "%s", r->status);
    snprintf(t->message[f], sizeof t->message[f], "%s", r->message ? r->message : "");
    t->median[f] = r->median_ms;
    return 0;
}

static int tune(const char *db_path, CutuneTuneSummary *sum)
{
    static const char *const sizes[] = {"97x75x61"};
    CutuneTuneOptions o = gpu_tune_options("matmul", "matmul_faulty", sizes, 1, db_path, 0.2);
    o.seed = (uint64_t)getpid();
    o.strategy = "exhaustive";
    o.time_limit_s = 0;
    o.worker.timeout_floor_s = 1; /* the hang costs (2 + 4) x 1 + 0.2 + 1 s */
    o.argv_text = "test_faulty_gpu";
    return gpu_tune(&o, sum);
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--compile-only"))
        return compile_only();
    CutuneError err = {0};
    char db_path[PATH_MAX / 2];
    int start = gpu_test_start("cutune-faulty", NULL, db_path, sizeof db_path);
    if (start)
        return start;

    CutuneTuneSummary sum;
    double t0 = cutune_now();
    tune(db_path, &sum);
    double took = cutune_now() - t0;
    printf("first run: %.1f s, %zu rows\n", took, sum.nrows);
    CHECK(sum.nrows == 1);
    int best = -1; /* the best config: re-timed twice beside the yardstick at the end */
    if (sum.nrows == 1) {
        const CutuneTuneRow *r = &sum.rows[0];
        CHECK_EQ_INT(r->nvalid, NFAULT);
        CHECK_EQ_INT(r->evaluated, NFAULT); /* the run completed */
        CHECK_EQ_INT(r->count[CUTUNE_STATUS_CRASHED], 2);
        CHECK_EQ_INT(r->count[CUTUNE_STATUS_TIMEOUT], 1);
        CHECK_EQ_INT(r->count[CUTUNE_STATUS_WRONG_RESULT], 1);
        CHECK_EQ_INT(r->count[CUTUNE_STATUS_OK], 3);
        CHECK_MSG(sscanf(r->best_config, "FAULT=%d", &best) == 1 && best >= 4,
                  "the best is '%s', not a correct config", r->best_config);
        printf("best: %s, %.4f ms\n", r->best_config, r->best_ms);
    }
    CHECK_MSG(took < 300, "the run took %.0f s: the hang was not cut short", took);
    cutune_tune_summary_free(&sum);

    /* what the database holds, config by config */
    CutuneDb *db = NULL;
    Trials t;
    memset(&t, 0, sizeof t);
    CHECK_MSG(cutune_db_open(db_path, CUTUNE_DB_READONLY, &db, &err) == 0, "%s", err.msg);
    CHECK_MSG(cutune_db_trials_foreach(db, 1, collect, &t, &err) == 0, "%s", err.msg);
    CHECK_EQ_INT(t.rows, NFAULT + 2);
    for (int f = 0; f < NFAULT; f++) {
        printf("  FAULT=%d  %-13s %8.4f ms  %s\n", f, t.status[f], t.median[f], t.message[f]);
        CHECK_MSG(t.seen[f] == (f == best ? 3 : 1), "FAULT=%d recorded %d times", f, t.seen[f]);
        CHECK_MSG(!strcmp(t.status[f], want_status[f]), "FAULT=%d is %s, want %s", f, t.status[f],
                  want_status[f]);
    }
    /* the reasons: the CUDA error of each fault, the limit of the hang, the wrong element */
    for (int f = 0; f < 2; f++) /* the CUDA error the worker saw, or the signal it died of */
        CHECK_MSG(strstr(t.message[f], "cudaError") || strstr(t.message[f], "signal"),
                  "FAULT=%d: '%s' names neither a CUDA error nor a signal", f, t.message[f]);
    CHECK_STR_CONTAINS(t.message[2], "no result within");
    CHECK_STR_CONTAINS(t.message[3], "elements wrong");
    CutuneDeviceInfo dev;
    CutuneBest b;
    CHECK_MSG(cutune_device_open(0, &dev, &err) == 0, "%s", err.msg);
    CHECK_MSG(cutune_db_best(db, dev.uuid, "matmul", "97x75x61", &b, &err) == 0, "%s", err.msg);
    best = -1;
    CHECK_MSG(sscanf(b.config, "FAULT=%d", &best) == 1 && best >= 4, "the database's best is '%s'",
              b.config);
    cutune_db_close(&db);

    /* the same run again: every config is recorded, crashed or not, so nothing runs again
     * but the best, re-timed once */
    tune(db_path, &sum);
    CHECK_MSG(sum.nrows == 1 && sum.rows[0].evaluated <= 1 && sum.rows[0].known == NFAULT,
              "second run: %zu rows, %zu measured, %zu known", sum.nrows,
              sum.nrows ? sum.rows[0].evaluated : 0, sum.nrows ? sum.rows[0].known : 0);
    cutune_tune_summary_free(&sum);

    return gpu_test_end("faulty_gpu");
}
