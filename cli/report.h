/* What `cutune report` shows of one run, read from the database (report_data.c). */
#ifndef CUTUNE_CLI_REPORT_H
#define CUTUNE_CLI_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "db.h"

typedef struct ReportTrial {
    size_t group; /* index into Report.groups */
    char *config; /* "A=1,B=2" */
    int status;   /* CutuneStatus */
    double ms;    /* median: finite and > 0, else 0 (not recorded, or not a time) */
    double t;     /* seconds from the run's start to the trial's commit */
    char *message;
    /* the rest of the measurement, 0 where not recorded: the fastest sample, the samples'
     * standard deviation and count, and the rates the op's work gives (GFLOP/s, GB/s) */
    double min_ms, stddev_ms, gflops, gbps;
    int64_t samples;
} ReportTrial;

/* The trials of one variant (at one version) for one size, in the order they ran. */
typedef struct ReportGroup {
    char *variant, *version, *size;
    size_t *trials, n;
    double best_ms;                /* the fastest ok trial; 0 if none */
    size_t best;                   /* its index in Report.trials */
    int searched;                  /* the run recorded its search (migration 0003) */
    char strategy[96], status[16]; /* strategies " + "-joined; the last search's end */
    int64_t nvalid, evaluated;
    double seconds;
} ReportGroup;

/* A vendor library's time for a size, measured on the run's device. */
typedef struct ReportYardstick {
    char *size, *name;
    double ms;
} ReportYardstick;

typedef struct Report {
    int64_t run_id;
    char *started, *finished, *status, *op, *strategy, *argv, *device, *uuid;
    /* the device as the run recorded it (0 where unknown); versions as CUDA writes them
     * (13000 is 13.0) */
    int cc_major, cc_minor, sm_count, driver_version, runtime_version;
    int sm_clock_khz; /* the peak SM clock the run's device recorded (0: unknown) */
    int64_t total_mem;
    /* With no run asked for, the latest run that searched is reported; latest_run is then
     * the newest run of all when that one is another (a re-time only), else 0. */
    int64_t latest_run;
    ReportTrial *trials;
    size_t ntrials;
    ReportGroup *groups;
    size_t ngroups;
    char **sizes; /* the run's sizes, in the order first measured */
    size_t nsizes;
    char **variants; /* the run's variants, in the order first measured: their colours */
    size_t nvariants;
    ReportYardstick *yard;
    size_t nyard;
    /* Times that are no time (inf, zero, negative: a database anyone may have written), left
     * out of every figure and table, and counted so that the report says so: ok trials
     * (their ms set to 0) and yardstick rows (dropped). */
    size_t bad_trial_times, bad_yardstick_times;
} Report;

/* The dense compute peak, in TFLOP/s, of a matmul `size` of the run (its element type from
 * the size: "-bf16"/"-fp16", "-tf32", else FP32) on the run's device at its recorded peak
 * SM clock, and in *kind which units give it ("16-bit tensor-core", ...); 0 where the op is
 * not matmul, or the device's compute capability (8.0 and 9.0 are known), SM count or clock
 * is not recorded (report_peak.c). */
double report_peak_tflops(const Report *r, const char *size, const char **kind);

/* Read run `run_id` of db; 0: the latest run that searched (recorded a search other than a
 * re-time), else the latest with trials, else the latest. CUTUNE_ERR_NOT_FOUND when there
 * is no such run (the message says which runs there are). */
int report_load(CutuneDb *db, int64_t run_id, Report *r, CutuneError *err);
void report_free(Report *r);

#endif
