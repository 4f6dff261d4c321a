/* The tuning database (SQLite): devices, variants, problems, runs, trials and the best
 * verified config per (device, op, problem).
 *
 * The schema lives in db/migrations/NNNN_*.sql, embedded into the library at build time;
 * PRAGMA user_version holds the number of migrations applied. Opening read-write applies
 * the missing ones in one transaction each; a database from a newer cutune (user_version
 * larger than the migrations we know) is refused, never touched.
 *
 * Every trial is committed when it is inserted: an interrupted run loses nothing. The
 * database is in WAL mode so that readers (applications) never block a tuning run. */
#ifndef CUTUNE_DB_H
#define CUTUNE_DB_H

#include <stddef.h>
#include <stdint.h>

#include "cutune/cutune.h"

typedef struct CutuneDb CutuneDb;

enum { CUTUNE_DB_READONLY = 1 };

/* Open (creating the file and its directory when read-write) and migrate. */
int cutune_db_open(const char *path, int flags, CutuneDb **out, CutuneError *err);
/* Close and set *db to NULL; NULL and *db == NULL are fine. */
void cutune_db_close(CutuneDb **db);

/* The default location: $CUTUNE_DB if set, else $XDG_DATA_HOME/cutune/cutune.db, else
 * $HOME/.local/share/cutune/cutune.db. */
int cutune_db_default_path(char *buf, size_t len, CutuneError *err);

/* Number of migrations this build knows (the schema version it writes). */
int cutune_db_schema_latest(void);
/* The database's PRAGMA user_version. */
int cutune_db_schema_version(CutuneDb *db);

/* Get-or-create rows; *id receives the row id. Devices are keyed by UUID (other fields
 * are refreshed), variants by (name, version, source_hash), problems by (op, size). */
int cutune_db_device(CutuneDb *db, const CutuneDeviceInfo *d, int64_t *id, CutuneError *err);
int cutune_db_variant(CutuneDb *db, const char *op, const char *name, const char *version,
                      const char *source_hash, int64_t *id, CutuneError *err);
int cutune_db_problem(CutuneDb *db, const char *op, const char *size, int64_t *id,
                      CutuneError *err);

typedef struct CutuneRunInfo {
    const char *argv; /* the command line, joined by spaces */
    const char *op;
    const char *strategy;
    int64_t budget;      /* evaluations; 0 = none */
    double time_limit_s; /* 0 = none */
    uint64_t seed;
    int64_t device_id;
} CutuneRunInfo;

/* A run starts with status 'running'; end it with 'done', 'interrupted' or 'failed'. */
int cutune_db_run_begin(CutuneDb *db, const CutuneRunInfo *r, int64_t *run_id, CutuneError *err);
int cutune_db_run_end(CutuneDb *db, int64_t run_id, const char *status, CutuneError *err);
/* The most recent run's id, CUTUNE_ERR_NOT_FOUND if there is none. */
int cutune_db_last_run(CutuneDb *db, int64_t *run_id, CutuneError *err);

typedef struct CutuneTrialRecord {
    int64_t run_id, device_id, variant_id, problem_id;
    const char *config; /* canonical "TILE=16,PAD=1" */
    CutuneStatus status;
    double median_ms, min_ms, mean_ms, stddev_ms; /* 0 unless status is ok */
    int samples;
    double gflops, gbps; /* 0 when not applicable */
    double error;        /* the check's error measure; 0 when not checked */
    double compile_ms, measure_ms;
    const char *message; /* why it failed; may be NULL */
    uint64_t seed;
    int cut_short; /* ok, but its timing stopped early: it was far slower than the best */
    int unchecked; /* measured elsewhere (an imported file) and never checked by cutune on
                      this device: recorded, never a best, measured again by a run */
} CutuneTrialRecord;

/* Insert a trial and, in the same transaction, make it the best of its (device, op,
 * problem) when its status is ok, cutune checked it (not unchecked) and it is faster than
 * the current best (or there is none). An ok trial first takes the best away from its variant's other versions: when the
 * best is one of them, it becomes the fastest trial of the problem that is not. *is_best
 * (may be NULL) tells whether the trial is the best afterwards. */
int cutune_db_trial_insert(CutuneDb *db, const CutuneTrialRecord *t, int64_t *trial_id,
                           int *is_best, CutuneError *err);

typedef struct CutuneBest {
    int64_t trial_id;
    char device_uuid[64];
    char device_name[256];
    char op[64];
    char size[64];
    char variant[64];
    char variant_version[32];
    char config[512];
    double median_ms, min_ms, gflops, gbps, error;
    int samples;
    char updated_at[32]; /* "YYYY-MM-DD HH:MM:SS" UTC */
} CutuneBest;

/* A config checked at a ragged size near the size it was tuned for (dimensions that are
 * multiples of no tile): only a best whose config passed may answer other sizes. */
typedef struct CutuneRaggedRecord {
    int64_t run_id, device_id, variant_id, problem_id; /* problem: the size it was tuned for */
    const char *config;
    const char *ragged_size; /* canonical; equal to the problem's when that is ragged */
    int passed;
    double error;        /* the check's error measure */
    const char *message; /* why it did not pass; may be NULL */
} CutuneRaggedRecord;
/* Record (or replace) the check of (device, variant, problem, config). */
int cutune_db_ragged_add(CutuneDb *db, const CutuneRaggedRecord *r, CutuneError *err);

typedef struct CutuneRaggedCheck {
    int found, passed;
    double error;
    char ragged_size[64];
} CutuneRaggedCheck;
/* The check of (device, variant, problem, config): out->found 0 when there is none. */
int cutune_db_ragged_find(CutuneDb *db, int64_t device_id, int64_t variant_id, int64_t problem_id,
                          const char *config, CutuneRaggedCheck *out, CutuneError *err);

/* The best verified trial for (device uuid, op, size); CUTUNE_ERR_NOT_FOUND if none. */
int cutune_db_best(CutuneDb *db, const char *device_uuid, const char *op, const char *size,
                   CutuneBest *out, CutuneError *err);

/* The fastest verified trial of one variant at one version (NULL: any version) for
 * (device uuid, op, size), from any run; CUTUNE_ERR_NOT_FOUND if none. updated_at is the
 * trial's time. Pass the installed plugin's version to get a config it can run: another
 * version's config may lack or misname parameters. */
int cutune_db_best_of_variant(CutuneDb *db, const char *device_uuid, const char *op,
                              const char *size, const char *variant, const char *version,
                              CutuneBest *out, CutuneError *err);
/* The same over every device of one model (devices.name, e.g. "NVIDIA H200"); the row's
 * device_uuid says which device it was measured on. */
int cutune_db_best_of_variant_model(CutuneDb *db, const char *device_name, const char *op,
                                    const char *size, const char *variant, const char *version,
                                    CutuneBest *out, CutuneError *err);

/* Resolve a device recorded in the database by UUID (exact) or by a case-insensitive
 * substring of its name; CUTUNE_ERR_NOT_FOUND, or CUTUNE_ERR_INVALID when the pattern
 * matches several devices (the message lists them). */
int cutune_db_find_device(CutuneDb *db, const char *pattern, char *uuid, size_t uuid_len,
                          CutuneError *err);

/* A GPU model (migration 0005): GPUs whose name, compute capability, SM count and memory
 * are equal share their results. A device whose SM count or memory is unknown (0) is a
 * model of its own. */
typedef struct CutuneDbModel {
    char uuid[64]; /* the GPU the pattern named (its UUID, or a name only it has); "" when
                    * the pattern named the model of several GPUs */
    char name[256];
    int cc_major, cc_minor, sm_count;
    int64_t total_mem;
    int gpus; /* GPUs of this model in the database */
} CutuneDbModel;

/* Resolve a UUID (exact) or a case-insensitive part of a name to one GPU or to one model:
 * a name that every matching GPU shares with the same model answers that model (uuid "").
 * CUTUNE_ERR_NOT_FOUND; CUTUNE_ERR_INVALID when the matches are several models, the message
 * listing them with their SM counts and memory, and saying to give a UUID. */
int cutune_db_find_model(CutuneDb *db, const char *pattern, CutuneDbModel *out, CutuneError *err);

/* The fastest best of (op, size) over the GPUs of model m other than exclude_uuid (NULL or
 * "": none excluded): the model's best, from checked trials only (best holds no other);
 * out->device_uuid says which GPU measured it. CUTUNE_ERR_NOT_FOUND if none. */
int cutune_db_best_model(CutuneDb *db, const CutuneDbModel *m, const char *exclude_uuid,
                         const char *op, const char *size, CutuneBest *out, CutuneError *err);

/* For each name that GPUs of more than one model share (same-named GPUs whose compute
 * capability, SM count or memory differ), fn(name, models, gpus, user), by name; fn returns
 * non-zero to stop. */
int cutune_db_split_names(CutuneDb *db,
                          int (*fn)(const char *name, int models, int gpus, void *user), void *user,
                          CutuneError *err);

/* Record a device's peak clocks (kHz; 0: unknown, left as it was), shown beside its model. */
int cutune_db_device_clocks(CutuneDb *db, int64_t device_id, int sm_clock_khz, int mem_clock_khz,
                            CutuneError *err);

typedef struct CutuneTrialRow {
    int64_t id, run_id;
    const char *variant, *variant_version, *op, *size, *config, *status, *message;
    double median_ms, min_ms, mean_ms, stddev_ms, gflops, gbps, error, compile_ms, measure_ms;
    int samples;
    uint64_t seed;
    const char *created_at;
} CutuneTrialRow;

/* Call fn for each trial of a run, in insertion order; fn returns non-zero to stop.
 * The row's strings live only for the call. */
int cutune_db_trials_foreach(CutuneDb *db, int64_t run_id,
                             int (*fn)(const CutuneTrialRow *row, void *user), void *user,
                             CutuneError *err);

/* What the two functions below call on each config they read; non-zero stops them. */
typedef int CutuneConfigRowFn(const char *config, const char *status, double median_ms, void *user);
/* Ids of the configs already measured and checked for (device, variant, problem) with any
 * status, for resuming; fn is called once per distinct config text. Unchecked (imported)
 * trials are left out: a run measures their configs again. */
int cutune_db_configs_done(CutuneDb *db, int64_t device_id, int64_t variant_id, int64_t problem_id,
                           CutuneConfigRowFn *fn, void *user, CutuneError *err);
/* The configs of (device, variant, problem) that only unchecked (imported) ok trials hold,
 * fastest of their recorded times first: a run measures them before anything else. */
int cutune_db_configs_unchecked(CutuneDb *db, int64_t device_id, int64_t variant_id,
                                int64_t problem_id, CutuneConfigRowFn *fn, void *user,
                                CutuneError *err);

/* ---- for the other files of the database layer (lookup.c, requests.c) ---------------- */

struct sqlite3;
/* The connection and the file path; both owned by db. */
struct sqlite3 *cutune_db_sqlite(CutuneDb *db);
const char *cutune_db_path(const CutuneDb *db);
/* Record a SQLite failure (rc) of `what` on db in err, with a hint; returns the code. */
int cutune_db_fail(CutuneDb *db, CutuneError *err, int rc, const char *what);

/* One snapshot for several reads (an export's two passes, a lookup's ladder): begin a read
 * transaction before the first and end it after the last; writers are not blocked (WAL).
 * cutune_db_read_end is safe without a begin. */
int cutune_db_read_begin(CutuneDb *db, CutuneError *err);
void cutune_db_read_end(CutuneDb *db);

/* ---- the file itself (db_file.c) ----------------------------------------------------- */

struct stat;
/* 0 when st (of an existing path) is a regular file; else CUTUNE_ERR_DB saying what it is
 * (a FIFO would hang SQLite's open). */
int cutune_db_file_check(const char *path, const struct stat *st, CutuneError *err);
/* How a file SQLite calls damaged is damaged, from its header and size, for a person:
 * "it is truncated: 4096 bytes, where its header says 26 pages of 4096 bytes ...". */
void cutune_db_file_damage(const char *path, char *buf, size_t len);
/* sqlite3_open_v2 for reading. A WAL database needs its -shm file, which a reader creates
 * when missing; in a folder that cannot be written (a read-only mount, another user's
 * folder), with no -shm and no non-empty -wal there (so no process has it open and all of
 * it is in the main file), the file is opened immutable: read as it is, without locks.
 * Returns a SQLite code; *h is set as by sqlite3_open_v2. */
int cutune_db_file_open_readonly(const char *path, struct sqlite3 **h);
/* Seconds since the file or its -wal last changed (huge when neither exists). */
double cutune_db_file_age(const char *path);
/* Remove the file and its -wal and -shm files, where they exist (the end of a test or a
 * benchmark that made a database). */
void cutune_db_file_remove(const char *path);

/* ---- runs whose process is gone (db_stale.c) ----------------------------------------- */

/* Mark 'interrupted' every run left 'running' by a process of this host that no longer
 * exists, with its searches, and let go of its claims on requests. Best effort (a busy or
 * read-only database is left as it is): cutune_db_open calls it on every read-write open. */
void cutune_db_runs_reap_stale(CutuneDb *db);

/* ---- requests: keys applications looked up without an exact answer (migration 0002) -- */

typedef struct CutuneRequest {
    const char *device_uuid;
    const char *device_name; /* may be NULL */
    int cc_major, cc_minor;  /* 0: unknown (stored as NULL) */
    const char *op, *size;
    const char *answered_by; /* "nearest", "same_arch" or "none" */
} CutuneRequest;

/* Add the key, or count one more lookup of it (its answer and time are refreshed; a done
 * request stays done). */
int cutune_db_request_add(CutuneDb *db, const CutuneRequest *r, CutuneError *err);
/* Call fn(op, size) for each pending request of a device (of one op, or all when op is
 * NULL), ordered by op then size; fn returns non-zero to stop. */
int cutune_db_requests_pending(CutuneDb *db, const char *device_uuid, const char *op,
                               int (*fn)(const char *op, const char *size, void *user), void *user,
                               CutuneError *err);
/* Claim the pending requests of a device (of one op, or all when op is NULL) for run_id,
 * in one write transaction, then call fn(op, size) for each, ordered by op then size. A
 * request claimed by another run that is still 'running' is left to it, so that runs of
 * --pending side by side never tune the same request. A claim ends when the request is
 * marked done, or when its run ends (cutune_db_run_end releases what is left) or is found
 * stale. */
int cutune_db_requests_claim(CutuneDb *db, const char *device_uuid, const char *op, int64_t run_id,
                             int (*fn)(const char *op, const char *size, void *user), void *user,
                             CutuneError *err);
/* Let go of the requests run_id claimed and did not mark done. */
int cutune_db_requests_release(CutuneDb *db, int64_t run_id, CutuneError *err);
/* Mark a pending request done by run_id. Not an error when there is none. */
int cutune_db_request_done(CutuneDb *db, const char *device_uuid, const char *op, const char *size,
                           int64_t run_id, CutuneError *err);

/* ---- every best config, for `cutune export` ---------------------------------------- */

typedef struct CutuneBestRow {
    const char *device_uuid, *device_name;
    int cc_major, cc_minor;
    const char *op, *size, *variant, *variant_version, *config, *updated_at;
    double median_ms, min_ms, gflops, gbps, error;
    int samples;
    int64_t trial_id;
} CutuneBestRow;

/* Call fn for each best config (of one device UUID and/or one op when non-NULL), ordered
 * by device UUID, op and size; fn returns non-zero to stop. Strings live for the call. */
int cutune_db_best_foreach(CutuneDb *db, const char *device_uuid, const char *op,
                           int (*fn)(const CutuneBestRow *row, void *user), void *user,
                           CutuneError *err);

/* ---- searches and yardsticks (migration 0003; db_searches.c) ------------------------- */

typedef struct CutuneSearchInfo {
    int64_t run_id, device_id, variant_id, problem_id;
    const char *strategy;
    size_t nvalid;
} CutuneSearchInfo;
/* A search starts 'running'; end it with 'done', 'spent', 'interrupted' or 'failed', and
 * the strategy it ended with (NULL or "": the one it began with). */
int cutune_db_search_begin(CutuneDb *db, const CutuneSearchInfo *s, int64_t *search_id,
                           CutuneError *err);
int cutune_db_search_end(CutuneDb *db, int64_t search_id, const char *status, const char *strategy,
                         size_t evaluated, double seconds, CutuneError *err);
/* Whether (device, variant version, problem) has a search that ended 'done' or 'spent':
 * a later run treats it as tuned. */
int cutune_db_search_tuned(CutuneDb *db, int64_t device_id, int64_t variant_id, int64_t problem_id,
                           int *tuned, CutuneError *err);
/* Record a vendor library's time for a problem on a device. */
int cutune_db_yardstick_add(CutuneDb *db, int64_t run_id, int64_t device_id, int64_t problem_id,
                            const char *name, double median_ms, int samples, CutuneError *err);
/* The newest yardstick of (device, problem): *found 0 when there is none. */
int cutune_db_yardstick_latest(CutuneDb *db, int64_t device_id, int64_t problem_id, char *name,
                               size_t name_len, double *median_ms, int *found, CutuneError *err);

/* The fastest configs of one variant version on a device or on any device of the same
 * model (devices.name), at every size of the op but those checked at `size` on that very
 * device (so an imported, unchecked trial of this key is a candidate here): up to
 * `per_problem` configs for each (device, size), each with its rank there (1 = fastest) and
 * its time relative to that size's fastest of the variant. The warm start of a search. */
typedef struct CutuneWarmRow {
    const char *config, *size, *device_uuid;
    double median_ms, relative; /* relative >= 1 */
    int rank;
} CutuneWarmRow;
int cutune_db_warm_configs(CutuneDb *db, const char *op, const char *variant, const char *version,
                           const char *device_uuid, const char *device_name, const char *size,
                           int per_problem, int (*fn)(const CutuneWarmRow *row, void *user),
                           void *user, CutuneError *err);

#endif
