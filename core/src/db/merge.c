/* `cutune merge`: check every input, then build or change OUT (see merge.h for what is
 * matched and kept; merge_sql.c holds the SQL). */
#include "merge.h"
#include "db.h"
#include "outfile.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

/* The migration that gave runs their UUID (0003_searches.sql). */
enum { RUN_UUID_SCHEMA = 3 };

/* A SQLite failure while writing, for a person: what failed, why, and that OUT is as it
 * was. Call before anything else touches h (a rollback would replace the message). */
static int write_fail(sqlite3 *h, int rc, const char *out, const char *what, CutuneError *err)
{
    int sys = h ? sqlite3_system_errno(h) : 0;
    /* a write cut short reaches us as SQLITE_FULL, or as a write error whose errno SQLite
     * did not keep */
    int full = (rc & 0xff) == SQLITE_FULL || sys == ENOSPC || sys == EDQUOT || sys == EFBIG ||
               (h && sqlite3_extended_errcode(h) == SQLITE_IOERR_WRITE && sys == 0);
    if ((rc & 0xff) == SQLITE_INTERRUPT)
        return cutune_error(err, CUTUNE_ERR_INTERRUPTED,
                            "merging into %s: interrupted while %s; %s is as it was", out, what,
                            out);
    int code = (rc & 0xff) == SQLITE_NOMEM           ? CUTUNE_ERR_NOMEM
               : full || (rc & 0xff) == SQLITE_IOERR ? CUTUNE_ERR_IO
                                                     : CUTUNE_ERR_DB;
    return cutune_error(err, code, "merging into %s: %s: %s%s%s%s%s; %s is as it was", out, what,
                        h ? sqlite3_errmsg(h) : sqlite3_errstr(rc), sys ? " (" : "",
                        sys ? strerror(sys) : "", sys ? ")" : "",
                        full ? "; the disk is full (or a quota or file size limit was "
                               "reached): free some space and retry"
                             : "",
                        out);
}

/* The schema version of the file as it is, before any upgrade; -1 when it cannot be read
 * (the open that follows says why). */
static int file_version(const char *path)
{
    sqlite3 *h = NULL;
    sqlite3_stmt *st = NULL;
    int v = -1;
    if (cutune_db_file_open_readonly(path, &h) == SQLITE_OK &&
        sqlite3_prepare_v2(h, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(h);
    return v;
}

/* PRAGMA quick_check on an open database: 0, or CUTUNE_ERR_DB naming the damage (the file's
 * own description, and quick_check's first finding). */
static int quick_check(CutuneDb *db, const char *role, CutuneError *err)
{
    sqlite3 *h = cutune_db_sqlite(db);
    const char *path = cutune_db_path(db);
    sqlite3_stmt *st = NULL;
    char first[160] = "", how[240];
    int findings = 0, rc = sqlite3_prepare_v2(h, "PRAGMA quick_check(20)", -1, &st, NULL);
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        /* a row may hold several findings, one a line, after a "*** in database" line */
        const char *row = (const char *)sqlite3_column_text(st, 0);
        for (const char *p = row ? row : "?"; *p;) {
            size_t len = strcspn(p, "\n");
            if (strncmp(p, "*** in database", 15) != 0 && findings++ == 0)
                snprintf(first, sizeof first, "%.*s", (int)len, p);
            p += len + (p[len] == '\n');
        }
        rc = SQLITE_OK;
    }
    if (rc == SQLITE_DONE && findings == 1 && strcmp(first, "ok") == 0) {
        sqlite3_finalize(st);
        return 0;
    }
    if (rc != SQLITE_DONE) {
        snprintf(first, sizeof first, "%s", sqlite3_errmsg(h));
        findings = 1;
    }
    sqlite3_finalize(st);
    cutune_db_file_damage(path, how, sizeof how);
    return cutune_error(err, CUTUNE_ERR_DB,
                        "%s %s is damaged: %s (PRAGMA quick_check: %s%s); nothing was written. "
                        "Restore it from a copy, or merge without it",
                        role, path, how, first, findings > 1 ? ", and more" : "");
}

/* Everything about an input that can be known before writing: it exists, is a cutune
 * database no newer than us, reads whole, and what it holds. */
static int check_input(const char *path, CutuneMergeInput *mi, CutuneError *err)
{
    struct stat st;
    memset(mi, 0, sizeof *mi);
    mi->path = path;
    if (stat(path, &st) != 0)
        return cutune_error(err, errno == ENOENT ? CUTUNE_ERR_NOT_FOUND : CUTUNE_ERR_IO,
                            "input %s: %s; nothing was written", path, strerror(errno));
    int code = cutune_db_file_check(path, &st, err);
    if (code)
        return code;
    mi->schema = file_version(path);
    CutuneDb *db = NULL;
    if ((code = cutune_db_open(path, CUTUNE_DB_READONLY, &db, err)) == CUTUNE_ERR_NOT_FOUND) {
        cutune_error_clear(err); /* "nothing recorded yet" is no reason to merge it */
        return cutune_error(err, CUTUNE_ERR_DB,
                            "input %s holds no cutune schema (an empty file?); nothing was "
                            "written",
                            path);
    }
    if (code)
        return code;
    if ((code = quick_check(db, "input", err)) == 0) {
        int rc = cutune_merge_count(cutune_db_sqlite(db), "main", &mi->rows);
        if (rc != SQLITE_OK)
            code = cutune_db_fail(db, err, rc, "counting its rows");
    }
    cutune_db_close(&db);
    return code;
}

/* An existing OUT, before anything is written: a cutune database (or an empty file) this
 * cutune can write, not damaged. */
static int check_output(const char *out, CutuneError *err)
{
    struct stat st;
    CutuneDb *db = NULL;
    int code = stat(out, &st) == 0 ? cutune_db_file_check(out, &st, err) : 0;
    if (code == 0 && (code = cutune_db_open(out, CUTUNE_DB_READONLY, &db, err)) == 0)
        code = quick_check(db, "the output", err);
    cutune_db_close(&db);
    if (code == CUTUNE_ERR_NOT_FOUND) { /* empty: it is created there */
        cutune_error_clear(err);
        code = 0;
    }
    return code;
}

/* Remove a database file built here and the journal files SQLite may have left beside it. */
static void remove_db_files(const char *path)
{
    static const char *const side[] = {"-wal", "-shm", "-journal"};
    char buf[4200];
    for (size_t i = 0; i < sizeof side / sizeof *side; i++) {
        snprintf(buf, sizeof buf, "%s%s", path, side[i]);
        (void)unlink(buf); /* most are absent */
    }
}

/* Copy all of database `from` into schema `to` of h (SQLite's backup: page by page), for
 * reading its rows. */
static int copy_db(sqlite3 *h, const char *to, CutuneDb *from)
{
    sqlite3_backup *b = sqlite3_backup_init(h, to, cutune_db_sqlite(from), "main");
    if (!b)
        return sqlite3_errcode(h);
    int rc = sqlite3_backup_step(b, -1), fin = sqlite3_backup_finish(b);
    return rc == SQLITE_DONE ? fin : rc;
}

/* Add one input to target (a private file built from cutune's schema): the input, upgraded
 * in memory if older, is copied into a temporary database attached as "src", then its rows
 * are merged in one transaction. Only rows go from src to target, never src's schema. */
static int add_input(CutuneDb *target, const char *out, const CutuneMergeInput *mi,
                     CutuneMergeCounts *added, CutuneMergeResult *res, CutuneError *err)
{
    sqlite3 *h = cutune_db_sqlite(target);
    CutuneDb *in = NULL;
    int code = cutune_db_open(mi->path, CUTUNE_DB_READONLY, &in, err);
    if (code)
        return code;
    char what[4300];
    snprintf(what, sizeof what, "copying %s", mi->path);
    int attached = 0, rc = SQLITE_OK, legacy = mi->schema < RUN_UUID_SCHEMA;
    if ((rc = sqlite3_exec(h, "ATTACH '' AS src", NULL, NULL, NULL)) == SQLITE_OK) {
        attached = 1;
        rc = copy_db(h, "src", in);
    }
    cutune_db_close(&in);
    if (rc == SQLITE_OK) {
        snprintf(what, sizeof what, "merging %s", mi->path);
        rc = cutune_merge_run_uuids(h, "src", legacy);
    }
    if (rc == SQLITE_OK && (rc = sqlite3_exec(h, "BEGIN", NULL, NULL, NULL)) == SQLITE_OK &&
        (rc = cutune_merge_attached(h, mi->path, "the inputs before it", added, res, err)) ==
            SQLITE_OK)
        rc = sqlite3_exec(h, "COMMIT", NULL, NULL, NULL);
    if (rc > 0)
        code = write_fail(h, rc, out, what, err);
    else if (rc < 0)
        code = err ? err->code : CUTUNE_ERR_DB;
    if (!sqlite3_get_autocommit(h))
        (void)sqlite3_exec(h, "ROLLBACK", NULL, NULL, NULL); /* already reported */
    if (attached && sqlite3_exec(h, "DETACH src", NULL, NULL, NULL) != SQLITE_OK && !code)
        code = write_fail(h, SQLITE_ERROR, out, "detaching an input", err);
    return code;
}

/* SQLite calls this every few thousand steps of a statement: a non-zero answer ends the
 * statement with SQLITE_INTERRUPT. */
static int stopped(void *stop)
{
    return *(volatile sig_atomic_t *)stop != 0;
}

static void watch(CutuneDb *db, volatile sig_atomic_t *stop)
{
    if (stop)
        sqlite3_progress_handler(cutune_db_sqlite(db), 10000, stopped, (void *)stop);
}

/* Open a private database at path (an empty file: cutune_db_open gives it cutune's schema)
 * and add every input to it. The file is only ever seen by this process: no journal, no syncs (the caller syncs what it keeps), and no
 * foreign key checks (every id written is a parent's id by construction). */
static int build(const char *path, const char *out, const CutuneMergeInput *in, size_t n,
                 volatile sig_atomic_t *stop, CutuneDb **db, CutuneMergeCounts *added,
                 CutuneMergeResult *res, CutuneError *err)
{
    int code = cutune_db_open(path, 0, db, err);
    if (code)
        return code;
    watch(*db, stop);
    sqlite3 *h = cutune_db_sqlite(*db);
    int rc = sqlite3_exec(h,
                          "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
                          " PRAGMA cache_size=-65536; PRAGMA temp_store=MEMORY;"
                          " PRAGMA foreign_keys=OFF",
                          NULL, NULL, NULL);
    if (rc != SQLITE_OK)
        return write_fail(h, rc, out, "setting up a temporary file", err);
    /* cutune's schema as this build makes it: every table is copied, or chosen again */
    if ((rc = cutune_merge_check_schema(h, err)) != SQLITE_OK)
        return rc > 0 ? write_fail(h, rc, out, "reading cutune's schema", err)
                      : (err ? err->code : CUTUNE_ERR_DB);
    for (size_t i = 0; i < n && code == 0; i++)
        code = add_input(*db, out, &in[i], added, res, err);
    return code;
}

/* OUT does not exist: build it in a temporary file beside it, then rename it into place. */
static int merge_new(const char *out, const CutuneMergeInput *in, size_t n,
                     volatile sig_atomic_t *stop, CutuneMergeResult *res, CutuneError *err)
{
    CutuneOutFile of;
    CutuneDb *db = NULL;
    int code = cutune_outfile_open(&of, out, err);
    if (code)
        return code;
    code = build(of.tmp, out, in, n, stop, &db, &res->added, res, err);
    sqlite3 *h = cutune_db_sqlite(db);
    int rc = SQLITE_OK;
    if (code == 0 && (rc = sqlite3_exec(h, "BEGIN", NULL, NULL, NULL)) == SQLITE_OK &&
        (rc = cutune_merge_best(h, 0, &res->best_keys, &res->best_changed)) == SQLITE_OK)
        rc = sqlite3_exec(h, "COMMIT", NULL, NULL, NULL);
    /* readers and tuners expect WAL, as a database cutune created itself */
    if (code == 0 && rc == SQLITE_OK)
        rc = sqlite3_exec(h, "PRAGMA journal_mode=WAL", NULL, NULL, NULL);
    if (code == 0 && rc != SQLITE_OK)
        code = write_fail(h, rc, out, "choosing the best configs", err);
    cutune_db_close(&db);
    if (code == 0 && (code = cutune_outfile_commit(&of, err)) == 0)
        return 0;
    if (of.tmp)
        remove_db_files(of.tmp);
    cutune_outfile_abort(&of);
    return code;
}

/* OUT exists: join the inputs in a temporary file beside it, then add them to OUT in one
 * transaction. */
static int merge_existing(const char *out, const CutuneMergeInput *in, size_t n,
                          volatile sig_atomic_t *stop, CutuneMergeResult *res, CutuneError *err)
{
    char *staging = NULL;
    CutuneDb *sdb = NULL, *db = NULL;
    CutuneMergeCounts scratch = {0};
    CutuneMergeResult sres = {0};
    int code = cutune_outfile_temp(out, &staging, err);
    if (code)
        return code;
    code = build(staging, out, in, n, stop, &sdb, &scratch, &sres, err);
    cutune_db_close(&sdb);
    if (code == 0 && (code = cutune_db_open(out, 0, &db, err)) == 0)
        watch(db, stop);
    sqlite3 *h = cutune_db_sqlite(db);
    sqlite3_stmt *att = NULL;
    int64_t since = 0;
    int rc = SQLITE_OK, attached = 0;
    const char *what = "attaching the joined inputs";
    if (code == 0 &&
        (rc = sqlite3_prepare_v2(h, "ATTACH ?1 AS src", -1, &att, NULL)) == SQLITE_OK &&
        (rc = sqlite3_bind_text(att, 1, staging, -1, SQLITE_STATIC)) == SQLITE_OK)
        rc = sqlite3_step(att);
    /* finalized at once: a finalize after a later failure would reset its message */
    sqlite3_finalize(att);
    if (rc == SQLITE_DONE) {
        attached = 1;
        what = "adding the inputs";
        sqlite3_stmt *mx = NULL;
        /* every id written is a parent's id by construction: no check per row */
        rc = sqlite3_exec(h,
                          "PRAGMA foreign_keys=OFF; PRAGMA cache_size=-65536;"
                          " BEGIN IMMEDIATE",
                          NULL, NULL, NULL);
        if (rc == SQLITE_OK &&
            (rc = sqlite3_prepare_v2(h, "SELECT coalesce(max(id), 0) FROM main.trials", -1, &mx,
                                     NULL)) == SQLITE_OK &&
            (rc = sqlite3_step(mx)) == SQLITE_ROW) {
            since = sqlite3_column_int64(mx, 0);
            rc = SQLITE_OK;
        }
        sqlite3_finalize(mx);
        if (rc == SQLITE_OK)
            rc = cutune_merge_attached(h, "the inputs", out, &res->added, res, err);
        if (rc == SQLITE_OK)
            rc = cutune_merge_best(h, since, &res->best_keys, &res->best_changed);
        if (rc == SQLITE_OK)
            rc = sqlite3_exec(h, "COMMIT", NULL, NULL, NULL);
    }
    if (code == 0 && rc > 0 && rc != SQLITE_DONE)
        code = write_fail(h, rc, out, what, err);
    else if (code == 0 && rc < 0)
        code = err ? err->code : CUTUNE_ERR_DB;
    if (h && !sqlite3_get_autocommit(h))
        (void)sqlite3_exec(h, "ROLLBACK", NULL, NULL, NULL); /* already reported */
    if (attached)
        (void)sqlite3_exec(h, "DETACH src", NULL, NULL, NULL); /* the file goes anyway */
    cutune_db_close(&db);
    remove_db_files(staging);
    (void)unlink(staging);
    free(staging);
    return code;
}

/* OUT must not be an input, nor the journal of one (by device and inode). */
static int refuse_out(const char *out, const char *const *inputs, size_t n, CutuneError *err)
{
    static const char *const side[] = {"", "-wal", "-shm", "-journal"};
    char buf[4200];
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < sizeof side / sizeof *side; k++) {
            snprintf(buf, sizeof buf, "%s%s", inputs[i], side[k]);
            const char *one[] = {buf};
            if (cutune_outfile_refuse_input(out, one, 1, err))
                return CUTUNE_ERR_INVALID;
        }
    return 0;
}

int cutune_db_merge(const char *out, const char *const *inputs, size_t n,
                    volatile sig_atomic_t *stop, CutuneMergeInput *in, CutuneMergeResult *res,
                    CutuneError *err)
{
    CutuneMergeResult local;
    if (!res)
        res = &local;
    memset(res, 0, sizeof *res);
    double started = cutune_now();
    if (!out || !*out || !inputs || n == 0)
        return cutune_error(err, CUTUNE_ERR_INVALID, "cutune_db_merge: no output or no input");
    int code = refuse_out(out, inputs, n, err);
    if (code)
        return code;
    /* the temporary files of a merge into OUT that was killed (SIGKILL leaves them) */
    res->stale_removed = cutune_outfile_remove_stale(out);
    CutuneMergeInput *mi = in ? in : calloc(n, sizeof *mi);
    if (!mi)
        return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < n && code == 0; i++)
        code = check_input(inputs[i], &mi[i], err);
    struct stat st;
    res->created = stat(out, &st) != 0;
    if (code == 0 && !res->created)
        code = check_output(out, err);
    if (code == 0)
        code = res->created ? merge_new(out, mi, n, stop, res, err)
                            : merge_existing(out, mi, n, stop, res, err);
    if (mi != in)
        free(mi);
    res->seconds = cutune_now() - started;
    return code;
}
