/* The tuning loop: for each variant of an op and each problem size, enumerate the space,
 * let a strategy propose configs, compile them ahead on the CPU, evaluate them on the GPU,
 * and commit every trial to the database as it finishes. */
#ifndef CUTUNE_TUNE_H
#define CUTUNE_TUNE_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "cutune/cutune.h"
#include "measure.h"
#include "worker_client.h"

typedef struct CutuneTuneOptions {
    const char *op;
    const char *variant;            /* NULL: every variant of the op */
    const char *const *sizes;       /* NULL: each space's default problems */
    size_t nsizes;
    const char *strategy;           /* NULL: "exhaustive", unless a budget smaller than the
                                     * space or a time limit is set: then the default search
                                     * strategy (strategy.h), announced on `log` */
    const char *const *where;       /* partial configs ("BM=128,BK=8"): tune only the
                                     * configs matching one of them */
    size_t nwhere;
    size_t budget;                  /* evaluations per (variant, size); 0: no limit */
    double time_limit_s;            /* per (variant, size); 0: no limit */
    uint64_t seed;                  /* inputs and the strategy */
    int device;
    const char *db_path;            /* NULL: the default location */
    const char *argv_text;          /* recorded with the run */
    int resume;                     /* skip configs the database already holds for the key */
    int pending;                    /* tune the device's pending requests (sizes ignored;
                                       op may be NULL: every op), then mark them done */
    int progress;                   /* draw a progress line on `log` */
    int compile_threads;            /* 0: one per CPU */
    CutuneMeasureSettings measure;
    CutuneWorkerLimits worker;      /* evaluation deadlines in the worker process */
    FILE *log;                      /* progress and notes (stderr) */
    volatile sig_atomic_t *stop;    /* set asynchronously (SIGINT) to stop after the trial */
} CutuneTuneOptions;

void cutune_tune_defaults(CutuneTuneOptions *o);

typedef struct CutuneTuneRow {
    char variant[64];
    char size[64];
    size_t nvalid;        /* valid configs in the space for this problem */
    size_t evaluated;     /* trials recorded in this run */
    size_t count[CUTUNE_STATUS_COUNT];
    size_t compiled, cached;
    double compile_s;     /* NVRTC time summed over the compile threads */
    double measure_s;     /* GPU evaluation time */
    double wall_s;
    double best_ms, best_gflops, best_gbps;  /* this run's best verified trial */
    char best_config[512];
    char strategy[32];    /* the strategy used */
} CutuneTuneRow;

typedef struct CutuneTuneSummary {
    CutuneTuneRow *rows;
    size_t nrows;
    int64_t run_id;
    char device_name[256];
    char db_path[4096];
    int interrupted;
} CutuneTuneSummary;

/* Run. Returns 0 when the run completed (some trials may have failed: that is data), or a
 * negative code with err set. The summary is filled as far as the run went either way. */
int cutune_tune(const CutuneTuneOptions *o, CutuneTuneSummary *sum, CutuneError *err);
void cutune_tune_summary_free(CutuneTuneSummary *sum);

#endif
