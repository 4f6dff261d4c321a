/* Merging tuning databases: the shards of a run (shard.h), or databases of other machines,
 * joined into one.
 *
 * Every input, and OUT when it exists, is checked before anything is written: it must
 * exist, be a cutune database no newer than this cutune, and pass PRAGMA quick_check. An input of an older schema is
 * upgraded in a copy in memory; the input files are only ever read.
 *
 * Rows are matched by what identifies them in any database, never by their ids: devices by
 * UUID, variants by (name, version, source hash), problems by (op, size), runs by their
 * UUID, trials by their run and their own fields (device, variant, problem, config, status,
 * time, seed, when), searches by (run, device, variant, problem, start), yardsticks by
 * (run, device, problem, name, time, when), requests by (device UUID, op, size). A row
 * already present is not added again, so merging the same input twice changes nothing. A
 * row present on both sides keeps its most final state: a run or search 'running' on one
 * side and ended on the other takes the end; a request done on either side is done, with
 * the larger count and the wider first/last times.
 *
 * Runs of a schema older than migration 0003 had no UUID; the one they are given here is a
 * hash of the run's own fields (device, start, command line, seed, id), so that merging such
 * an input twice, or two copies of it, adds its runs once.
 *
 * The best per (device, problem) is recomputed for every key that received a verified
 * trial: among the verified trials of the versions in force, the fastest. A variant's
 * version in force at a key is that of its latest verified trial there (the newest version
 * takes the best from its older ones, as the tuner's own commits do); same-named variants of
 * other versions stay in the database, apart.
 *
 * OUT is built from cutune's own schema (the migrations, as cutune_db_open applies them) and
 * only rows are copied into it, table by table: a trigger, table, view or index that someone
 * added to an input never reaches OUT.
 *
 * OUT is written atomically. A new OUT is built in a temporary file in its folder, synced
 * and renamed into place. The temporary files are named for the process that writes them
 * (outfile.h): those of a merge that was killed (SIGKILL), as large as what it merged, are
 * removed by the next merge into the same OUT; a live merge's are left alone. An existing OUT is changed in one SQLite transaction: the inputs
 * are first joined in a temporary file beside it, then added in one commit; a tuner or an
 * application using OUT meanwhile keeps working (a rename would leave a tuner writing into
 * a deleted file). Either way a failure (a full disk, a damaged input) leaves OUT as it was
 * and removes the temporary files. An OUT of an older schema is upgraded first, as any
 * command that writes it would. */
#ifndef CUTUNE_MERGE_H
#define CUTUNE_MERGE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "cutune/cutune.h"

/* Rows of each table: read from an input, or added to OUT. */
typedef struct CutuneMergeCounts {
    int64_t devices, variants, problems, runs, trials, searches, yardsticks, requests;
} CutuneMergeCounts;

typedef struct CutuneMergeInput {
    const char *path;
    int schema;             /* the input's schema version, before any upgrade */
    CutuneMergeCounts rows; /* rows it holds */
} CutuneMergeInput;

typedef struct CutuneMergeResult {
    int created;             /* OUT did not exist before */
    CutuneMergeCounts added; /* rows new to OUT */
    int64_t runs_ended;      /* runs of OUT that were 'running' and took an input's end */
    int64_t searches_ended;  /* the same for searches */
    int64_t requests_updated;
    int64_t best_keys;    /* (device, problem) keys whose best was recomputed */
    int64_t best_changed; /* of which the best trial is another (or new) */
    int stale_removed;    /* temporary files beside OUT left by a merge that was killed */
    double seconds;
} CutuneMergeResult;

/* Merge inputs[0..n-1] (paths) into the database at out (created when missing). in[] (n
 * entries, may be NULL) receives what each input held; res (may be NULL) what changed. A
 * *stop (may be NULL) set asynchronously (SIGINT) ends the writing within milliseconds,
 * with CUTUNE_ERR_INTERRUPTED, OUT as it was and the temporary files removed.
 * Returns 0, or: CUTUNE_ERR_INVALID when out is one of the inputs (by device and inode, or
 * an input's journal file); CUTUNE_ERR_NOT_FOUND when an input does not exist;
 * CUTUNE_ERR_DB for an input or OUT that is damaged, not a cutune database or newer, or
 * databases that disagree on what a variant is; CUTUNE_ERR_IO when writing fails. err names the file and the problem; OUT is
 * unchanged on any failure. */
int cutune_db_merge(const char *out, const char *const *inputs, size_t n,
                    volatile sig_atomic_t *stop, CutuneMergeInput *in, CutuneMergeResult *res,
                    CutuneError *err);

/* ---- the SQL steps (merge_copy.c, merge_sql.c), for merge.c ---------------------------- */

struct sqlite3;
/* Inside an open write transaction on h, whose main database has the latest schema: add
 * the rows of the database attached as "src" (the latest schema too) to main, as described
 * above, table by table (merge_copy.c lists them), each with the columns of main's schema
 * that src has too; `label` and `main_label` name src and main in messages. Counts what was
 * added into *added and the ended runs, searches and updated requests into res. Returns a
 * SQLite code, or -1 with err set (CUTUNE_ERR_DB) when the databases disagree on a variant;
 * other failures are left to the caller to report (the connection holds the message). A
 * table of main that is not listed (someone's own, in an existing OUT) is left alone. */
int cutune_merge_attached(struct sqlite3 *h, const char *label, const char *main_label,
                          CutuneMergeCounts *added, CutuneMergeResult *res, CutuneError *err);
/* On a database that cutune's migrations just made: every table of its schema is copied by
 * cutune_merge_attached or chosen again (the best), and each is copied after the tables its
 * foreign keys name. SQLITE_OK, or -1 with err set naming the table (a migration added a
 * table the merge was not told about). */
int cutune_merge_check_schema(struct sqlite3 *h, CutuneError *err);
/* src and main agree on every variant they share (one name, version and source hash is one
 * op's): SQLITE_OK, or -1 with err set naming it. */
int cutune_merge_check_variants(struct sqlite3 *h, const char *label, const char *main_label,
                                CutuneError *err);
/* Inside an open write transaction: recompute the best of every (device, problem) that has a
 * verified trial with an id above since_trial (every key when since_trial is 0). Returns a
 * SQLite code. */
int cutune_merge_best(struct sqlite3 *h, int64_t since_trial, int64_t *keys, int64_t *changed);
/* Give the runs of database `schema` ("src", or "main") that have no UUID, or all when
 * `all` (a schema before 0003, whose upgrade drew random ones), the UUID derived from their
 * own fields. Returns a SQLite code. */
int cutune_merge_run_uuids(struct sqlite3 *h, const char *schema, int all);
/* Run one statement without parameters to its end; *changes (may be NULL) gets the rows it
 * changed. Returns a SQLite code. */
int cutune_merge_exec(struct sqlite3 *h, const char *sql, int64_t *changes);
/* The first column of the first row of a query without parameters, into *v. Returns a
 * SQLite code. */
int cutune_merge_scalar(struct sqlite3 *h, const char *sql, int64_t *v);
/* The rows of each counted table of the database attached as `schema`. Returns a SQLite
 * code. */
int cutune_merge_count(struct sqlite3 *h, const char *schema, CutuneMergeCounts *c);

#endif
