/* The tuning loop: tune the variants of an op for its problem sizes within one time budget
 * for the whole run, compiling configs ahead on the CPU, evaluating them on the GPU in a
 * worker process, and committing every trial to the database as it finishes (see
 * tune_int.h for how the budget is spent). */
#ifndef CUTUNE_TUNE_H
#define CUTUNE_TUNE_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "cutune/cutune.h"
#include "measure.h"
#include "shard.h"
#include "worker_client.h"

/* The budget of a run when none is given: 10 minutes. */
#define CUTUNE_DEFAULT_TIME_S 600.0
/* Below this a run cannot set up and measure anything useful. */
#define CUTUNE_MIN_TIME_S 10.0

/* What the loop tells its caller as it goes (for `run --json` and dashboards). */
typedef enum CutuneTuneEventType {
    CUTUNE_EVENT_TRIAL,  /* a config was measured and recorded */
    CUTUNE_EVENT_SEARCH, /* a (variant, size) search ended */
    CUTUNE_EVENT_SIZE,   /* a size is done */
} CutuneTuneEventType;

typedef struct CutuneTuneEvent {
    CutuneTuneEventType type;
    double elapsed_s, budget_s;      /* since the run started; the run's budget (0: none) */
    const char *op, *size, *variant; /* variant NULL for a size */
    const char *phase;               /* trial: "warm start", "search" or "re-time" */
    const char *config, *status;     /* trial: the config and its status */
    const char *message;             /* trial: why it failed; search: how it ended */
    double median_ms, gflops, gbps;  /* trial: its time (0 unless ok); size: the best */
    int cut_short;                   /* trial: timing stopped early (far slower than best) */
    double compile_ms, measure_ms;   /* trial: its NVRTC compile (0: from the kernel cache)
                                      * and its time in the worker, as the scheduler's cost
                                      * model learns them */
    int64_t trial_id;
    int device;               /* trial: the ordinal of the GPU that measured it */
    size_t evaluated, nvalid; /* search: measured in this run / valid configs */
    const char *strategy;     /* search */
    double yardstick_ms;      /* size: the vendor library's time (0: none) */
    const char *yardstick;
    double vs_yardstick; /* size: cutune_tune_size_ratio of it (0: no yardstick) */
    /* size: the scheduler's cost model when the size began: its estimate of one evaluation
     * here (what a whole space's need is counted in) and the compile time it had learned */
    double est_eval_s, est_compile_s;
} CutuneTuneEvent;

typedef struct CutuneTuneOptions {
    const char *op;
    const char *variant;      /* NULL: every variant of the op */
    const char *const *sizes; /* NULL: each space's default problems */
    size_t nsizes;
    int dtype, layout;        /* >= 0: every size in this element type / layout (CutuneDtype,
                          CutuneLayout), whatever it says; -1: as each size is written */
    int epilogue;             /* >= 0: every size with this epilogue (CutuneEpilogue); -1: as
                                 each size is written */
    const char *strategy;     /* NULL: chosen per space and share of the budget */
    const char *const *where; /* partial configs ("BM=128,BK=8"): tune only the
                                     * configs matching one of them */
    size_t nwhere;
    size_t budget;       /* evaluations per (variant, size); 0: no limit */
    double time_limit_s; /* the whole run; 0: no limit */
    double job_time_s;   /* at most this per (variant, size); 0: no limit */
    int retune;          /* search again where the database says it is tuned, and
                                     * measure again what it holds */
    int warm_db;         /* warm start from the database's earlier bests */
    int warm_known;      /* warm start from the spaces' known-good lists */
    CutuneShard shard;   /* only this shard's (variant, size) jobs (shard.h);
                                     * count 0: every job */
    uint64_t seed;       /* inputs and the strategy */
    int device;
    const int *devices; /* several GPUs (ndevices > 0): one lane each; the
                                     * (variant, size) jobs are shared out between them */
    size_t ndevices;
    const char *db_path;   /* NULL: the default location */
    const char *argv_text; /* recorded with the run */
    int pending;           /* tune the device's pending requests (sizes ignored;
                                       op may be NULL: every op), then mark them done */
    int progress;          /* draw a progress line on `log` (a terminal) */
    int compile_threads;   /* 0: one per CPU */
    CutuneMeasureSettings measure;
    CutuneWorkerLimits worker;   /* evaluation deadlines in the worker process */
    FILE *log;                   /* progress and notes (stderr) */
    volatile sig_atomic_t *stop; /* set asynchronously (SIGINT) to stop after the trial */
    void (*on_event)(const CutuneTuneEvent *e, void *user);
    void *event_user;
} CutuneTuneOptions;

/* Every variant and size, default sizes, a budget of CUTUNE_DEFAULT_TIME_S, warm starts on. */
void cutune_tune_defaults(CutuneTuneOptions *o);

/* One (variant, size) of the run. */
typedef struct CutuneTuneRow {
    char variant[64];
    char size[64];
    size_t nvalid;    /* valid configs in the space for this problem */
    size_t evaluated; /* trials recorded in this run */
    size_t known;     /* configs the database already held (not measured again) */
    size_t count[CUTUNE_STATUS_COUNT];
    size_t compiled, cached;
    double compile_s; /* NVRTC time summed over the compile threads */
    double measure_s; /* GPU evaluation time */
    double wall_s;
    double best_ms, best_gflops, best_gbps; /* the variant's best verified time known here */
    char best_config[512];
    char strategy[32]; /* how it was searched: "exhaustive", a strategy, "warm start",
                             "tuned before" */
    char ended[16];    /* "done", "spent", "interrupted", "failed" or "" */
} CutuneTuneRow;

/* One size of the run: its best config on this device after the run, and the yardstick. */
typedef struct CutuneTuneSize {
    char op[64];
    char size[64];
    char variant[64];
    char config[512];
    double best_ms, gflops, gbps; /* 0: nothing verified */
    double retimed_ms;            /* the best measured again in this run, just before the
                                     yardstick (0: not re-timed) */
    char yardstick[64];
    double yardstick_ms; /* its latest time in this run, just after the re-time (0: none) */
    double done_s;       /* seconds from the run's start to this size's end */
    int tuned_before;    /* every variant of it was tuned by an earlier run */
} CutuneTuneSize;

/* Where one GPU's wall time went. measure_s + retime_s + compile_wait_s + setup_s + other_s is the
 * time its lane worked (busy), idle_s the rest of the run's wall time: starting up, and
 * waiting at the end for sizes other GPUs were still tuning. compile_s is CPU time, not a
 * part of the wall time: the NVRTC seconds of its configs, summed over the compile
 * threads. */
typedef struct CutuneTuneGpu {
    int device;
    char name[256];
    double measure_s;      /* in its worker: the trials of warm starts and searches, the
                              yardsticks */
    double retime_s;       /* in its worker: re-timing winners and bests */
    double compile_wait_s; /* waiting for compiles of its configs */
    double setup_s;        /* setting problems up in its worker (inputs and reference: a
                              size's own, and its best's ragged check) */
    double other_s;        /* the rest of its work: the database, the scheduler */
    double idle_s;
    double compile_s;
    size_t sizes, trials, crashed; /* sizes it tuned, trials it recorded, of them crashed */
    int lost;                      /* it stopped before the end of the run */
} CutuneTuneGpu;

typedef struct CutuneTuneSummary {
    CutuneTuneRow *rows;
    size_t nrows;
    CutuneTuneSize *sizes;
    size_t nsizes;
    int64_t run_id;
    char device_name[256];
    char db_path[4096];
    double budget_s, wall_s;
    int interrupted;
    int ngpus;           /* GPUs the run used */
    CutuneTuneGpu *gpus; /* one per GPU the run used, ngpus_rows of them */
    size_t ngpus_rows;
    int compile_threads;     /* the compile pool that every GPU of the run shares */
    size_t ahead_compiled;   /* configs compiled ahead of need, on compile threads no GPU
                                needed then: the warm phases of the sizes next in line */
    double ahead_s;          /* their NVRTC seconds (CPU time, in no GPU's compile_s) */
    double start_s;          /* seconds from the run's start until the GPUs began work: their
                                workers started, the plan made (idle in each GPU's row) */
    size_t lanes_failed;     /* GPUs lost during the run (the others went on) */
    size_t variants_refused; /* variant files of the op that were refused and left out (the
                                run went on with the others) */
} CutuneTuneSummary;

/* The checks of the options alone, before anything is loaded: the strategy is known, --where
 * comes with a variant, --pending without sizes, and each size parses. 0, or
 * CUTUNE_ERR_INVALID / CUTUNE_ERR_PARSE / CUTUNE_ERR_RANGE with err saying what to change
 * (a command line reports it as a usage error). cutune_tune makes them first too. */
int cutune_tune_check_options(const CutuneTuneOptions *o, CutuneError *err);

/* Run. Returns 0 when the run completed (some trials may have failed: that is data), or a
 * negative code with err set. The summary is filled as far as the run went either way. */
int cutune_tune(const CutuneTuneOptions *o, CutuneTuneSummary *sum, CutuneError *err);
/* A size's yardstick time over its best's (> 1: faster than the vendor): over the best
 * re-timed just before it where the run re-timed it, both then timed back to back on a
 * warm GPU, else over the best recorded; 0 without both. */
double cutune_tune_size_ratio(const CutuneTuneSize *z);
void cutune_tune_summary_free(CutuneTuneSummary *sum);

#endif
