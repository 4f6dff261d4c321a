/* Inside the tuning loop: the run, its lanes (one per GPU, each with its own worker process
 * and database connection), the sizes it tunes and the (variant, size) jobs of each.
 *
 * A run takes one time budget for everything it tunes. It works size by size: each size is
 * set up once per variant in a lane's worker, its vendor yardstick is timed, every variant
 * first measures its warm start (what the database and the space's known-good list say is
 * likely to win) and a few probes, then the size's share of the budget goes to the variants
 * that can still win (schedule.c): a space that fits its share is measured whole, a larger
 * one is searched. What the database already holds is never measured again, unless the run
 * retunes; a size whose every variant was tuned before only has its best re-timed. */
#ifndef CUTUNE_TUNE_INT_H
#define CUTUNE_TUNE_INT_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "compile.h"
#include "db.h"
#include "pool.h"
#include "registry.h"
#include "schedule.h"
#include "space.h"
#include "strategy.h"
#include "tune.h"
#include "worker_client.h"

typedef struct TuneJob TuneJob;
typedef struct TuneSize TuneSize;
typedef struct TuneLane TuneLane;

/* One variant's space, loaded once for every size of the run. */
typedef struct TuneVariant {
    const CutuneVariantDef *p;
    CutuneSpace *sp;
    CutuneGeometry *geo;       /* its launch, evaluated per config on the tuner's side */
    const char **names;        /* the space's parameter names, for CutuneConfig */
    char known_path[PATH_MAX]; /* the space's known-good list, "" when it has none */
    double last_rel;           /* its best over the size's best at the last size done (0:
                                  none yet), to measure the likely winner first */
} TuneVariant;

/* One problem size of the op and the variants that tune it. */
struct TuneSize {
    char op[64];
    char size[64]; /* canonical */
    CutuneProblem prob;
    TuneVariant **variants; /* the variants whose space takes this size */
    size_t nvariants;
    double flops, bytes; /* work of one launch (from the first variant's op) */
    int state;           /* TUNE_SIZE_WAITING, _RUNNING, _DONE */
    int planned;         /* its warm phases' compiles are queued ahead (compile_ahead.c) */
    double est_eval_s;   /* the cost model's time of one evaluation here */
    TuneLane *lane;      /* the lane that tunes it (set when it is taken) */
    double judged_s;     /* several GPUs: its share as one GPU would have judged it, in
                            seconds of one GPU's time (0: none), which the sizes beside it
                            leave for it */
    double work_s;       /* once done: the seconds it took */
    CutuneTuneSize *out; /* its line of the summary */
};

enum { TUNE_SIZE_WAITING, TUNE_SIZE_RUNNING, TUNE_SIZE_DONE };

/* The state every lane shares. Fields below `mu` change during the run and are read and
 * written under it. */
typedef struct TuneRun {
    const CutuneTuneOptions *o;
    CutuneRegistry reg;
    CutunePool *pool;
    int window; /* proposals in flight per job: compile threads + 2 */
    char cache_dir[PATH_MAX];
    int64_t run_id;
    double started;  /* cutune_now() at the start */
    double deadline; /* cutune_now() limit of the whole run; 0: none */
    TuneVariant *variants;
    size_t nvariants;
    TuneSize *sizes;
    size_t nsizes;
    TuneLane *lanes; /* one per GPU; lanes[0] also begins and ends the run */
    int nlanes;
    double lanes_started; /* cutune_now() when the lanes began */
    pthread_mutex_t mu;
    pthread_cond_t changed; /* a size's state changed, or a lane ended (under mu) */
    CutuneTuneSummary *sum;
    size_t row_cap; /* rows allocated in sum->rows: one per (variant, size) */
    CutuneCostModel cost;
    int searching; /* lanes inside tune_job_run now */
    int progress_drawn;
    double last_draw;
    _Atomic long long ahead_compiled, ahead_us; /* compiles ahead that ran: configs, NVRTC us */
    char **pending_op; /* --pending: the device's requests, as parallel lists */
    char **pending_size;
    size_t npending;
} TuneRun;

/* One GPU: its worker, its database connection, what it has set up. */
struct TuneLane {
    TuneRun *run;
    int device;
    CutuneDb *db;
    CutuneWorker *worker;
    CutuneDeviceInfo dev;
    CutuneLimits limits;
    int arch;
    int64_t device_id;
    char setup_path[PATH_MAX]; /* the plugin and size the worker holds now ("" none) */
    char setup_size[64];
    int rc; /* the error that stopped the lane, 0 if none */
    CutuneError err;
    char doing[120];  /* what it measures now, for the progress line (under mu) */
    uint8_t *retimed; /* per size: its winner was re-timed here (several lanes only) */
    /* where its time went (written by its own thread; see CutuneTuneGpu) */
    double t_active;       /* taking sizes and re-timing winners */
    double t_measure;      /* in the worker: trials of the search, yardsticks */
    double t_retime;       /* in the worker: re-timing winners and bests */
    double t_compile_wait; /* waiting for its configs' compiles */
    double t_setup;        /* setting problems up in its worker (inputs, reference), the ragged
                       checks' included */
    double t_compile_cpu;  /* NVRTC seconds of those compiles, summed over threads */
    _Atomic long long abandoned_us; /* NVRTC microseconds of its compiles that a search
                                       gave up in flight (pipeline.h), added by the pool */
    size_t nsizes, trials, crashed;
};

/* One variant at one size, on one lane. */
struct TuneJob {
    TuneSize *ts;
    TuneVariant *tv;
    int64_t variant_id, problem_id;
    CutuneConfigList cl; /* the valid configs for this size and device */
    CutuneConfigIndex ix;
    uint8_t *kstatus; /* per config: 0 unknown, else 1 + its CutuneStatus */
    double *kms;      /* its time when ok */
    size_t nknown;    /* configs with a known result */
    int tuned_before; /* an earlier search of this key ended done or spent */
    double best_ms;   /* the variant's best known time here (0: none) */
    long best_idx;
    size_t *warm; /* warm-start configs, most promising first */
    size_t nwarm;
    size_t *imported; /* configs only imported (unchecked) trials hold, fastest first: they
                         are measured before anything else (never a best unchecked) */
    size_t nimported;
    int64_t search_id;
    double spent_s;
    int finished;      /* the search ended by itself: nothing more to measure */
    size_t since_gain; /* measurements without a gain as its last tune_job_run ended */
    CutuneTuneRow *row;
};

/* How a job's pipeline run ended. */
typedef enum TuneEnd {
    TUNE_END_DONE,    /* the strategy had nothing more to propose */
    TUNE_END_EVALS,   /* the evaluation cap was reached */
    TUNE_END_TIME,    /* the deadline passed */
    TUNE_END_STOPPED, /* the user stopped the run */
    TUNE_END_STALLED, /* `patience` measurements in a row did not improve the best */
} TuneEnd;

typedef struct TuneLimits {
    double deadline;      /* cutune_now() time; 0: none */
    size_t max_evals;     /* new measurements; 0: none */
    size_t patience;      /* end after this many measurements without a better best (by
                             more than STALL_GAIN); 0: never */
    size_t late_patience; /* with a deadline: the patience taken up, where patience is 0 or
                             longer, once the rest of the space will not be measured by the
                             deadline at the rate this phase measures (cutune_schedule_late: a
                             whole space the cost model misjudged); 0: never */
    size_t since_gain;    /* measurements without a better best that count already: those
                             of the same search in an earlier round or phase */
    const char *phase;    /* "warm start", "search", "re-time" (events and progress) */
} TuneLimits;

/* tune_plan.c: the sizes and variants of the run, checked before anything is measured. */
int tune_plan_build(TuneRun *r, const CutuneLimits *lim, CutuneError *err);
void tune_plan_free(TuneRun *r);

/* tune_job.c */
int tune_job_open(TuneLane *l, TuneSize *ts, TuneVariant *tv, TuneJob *j, CutuneError *err);
/* As tune_job_open, without a row of the summary (j->row NULL) or a note: a look at the job
 * ahead of its size (prefetch.c). A variant this device cannot run gets no configs. */
int tune_job_peek(TuneLane *l, TuneSize *ts, TuneVariant *tv, TuneJob *j, CutuneError *err);
void tune_job_close(TuneJob *j);
/* Make the lane's worker hold this job's problem (a new setup only when it changes). */
int tune_lane_setup(TuneLane *l, const TuneJob *j, CutuneError *err);
/* Run a strategy over the job's configs through the compile pool and the worker, recording
 * every new measurement, until the strategy is done or a limit is met. Configs with a known
 * result are answered from it and cost nothing. */
int tune_job_run(TuneLane *l, TuneJob *j, const CutuneStrategyOps *ops, const CutuneStrategyArgs *a,
                 const TuneLimits *lim, TuneEnd *end, CutuneError *err);
/* Evaluate config cfg of variant v in the lane's worker: the kernel that c compiled,
 * launched with `launch` and given the tensor maps `maps` (cutune_geometry_eval's), or for a
 * library variant (which compiled nothing) its plugin's call. As cutune_worker_eval. */
int tune_eval(TuneLane *l, const CutuneVariantDef *v, const CutuneConfig *cfg,
              const CutuneCompileJob *c, const CutuneLaunch *launch, const CutuneTensorMaps *maps,
              double best_ms, const CutuneMeasureSettings *s, CutuneEvalResult *res,
              CutuneError *err);
/* A strategy that proposes the indices it is given (a->start), in order, then is done. */
extern const CutuneStrategyOps tune_list_strategy;

/* warmstart.c: fill j->warm with up to max configs (database, then the known-good list). */
int tune_warm_start(TuneLane *l, TuneJob *j, size_t max, CutuneError *err);
/* What a job's warm phase measures: its warm start (tune_warm_start), then random probes
 * (configs not known, seeded by the run's seed and the variant) up to a few fresh ones, so
 * that the variant shows its level. *list is malloc'd. The same for a job opened ahead of
 * its size (prefetch.c) as for the job itself, where the database has not changed. */
int tune_warm_list(TuneLane *l, TuneJob *j, size_t **list, size_t *nlist, CutuneError *err);

/* tune_lanes.c: the lanes' workers, one per GPU, started at once (tune_lanes_open: r->lanes
 * holds those that started, r->nlanes of them; an error when the first did not), a lane's
 * database connection (tune_lane_connect), and the lanes working through the sizes at once;
 * the run goes on as long as one lane does. tune_lanes_report fills the summary's per-GPU
 * rows once its wall_s is set. */
int tune_lanes_open(TuneRun *r, const int *devices, size_t n, CutuneError *err);
int tune_lane_connect(TuneRun *r, TuneLane *l, CutuneError *err);
void tune_lane_close(TuneLane *l);
int tune_lanes_run(TuneRun *r, CutuneError *err);
/* The size a lane takes next (r->mu held), NULL when none is left; unplanned: the next of
 * those not yet planned ahead (compile_ahead.c). */
TuneSize *tune_next_size(TuneRun *r, int unplanned);
/* Wait (r->mu held) until a size's state changes or a lane ends, or 200 ms pass (for the
 * caller to look at the stop flags). */
void tune_wait_changed(TuneRun *r);
void tune_lanes_report(TuneRun *r);

/* tune_size.c: everything one lane does for one size. */
int tune_size_run(TuneLane *l, TuneSize *ts, CutuneError *err);

/* ragged.c: check the size's best config on this device (when one of jobs' variants made
 * it and it has no check yet) at a ragged size near it, and record the verdict. Returns an
 * error only when the run cannot go on. */
int tune_ragged_check(TuneLane *l, TuneSize *ts, TuneJob *jobs, size_t njobs, CutuneError *err);

/* tune_progress.c: the progress line (terminal) and events (callback). Call with run->mu
 * not held. */
void tune_progress(TuneRun *r);
void tune_progress_clear(TuneRun *r);
void tune_note(TuneRun *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void tune_emit(TuneRun *r, const CutuneTuneEvent *e);

#endif
