/* The tuning database: one SQLite file in WAL mode, its schema built by the migrations
 * embedded from db/migrations (see db.h for the contract). This file opens, migrates and
 * closes it and holds the helpers its other files share (db_int.h); db_rows.c the devices,
 * variants, problems and runs; db_trials.c the trials, the best configs and their queries.
 *
 * Style: every statement is prepared with bound parameters; every sqlite3 return code is
 * checked; each function has one `fail:` path that finalizes what it prepared. */
#include "db_int.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

/* Generated from db/migrations/NNNN_*.sql by tools/embed.c. */
extern const char *const cutune_migrations[];
extern const char *const cutune_migrations_names[];
extern const int cutune_migrations_count;

enum { BUSY_TIMEOUT_MS = 10000 };
/* How long a reader waits for a database that another process is creating. */
enum { CREATE_WAIT_MS = 3000, CREATE_POLL_MS = 20 };

/* ---- errors ---------------------------------------------------------------------- */

/* What a person can do about a failure, by SQLite's primary result code. */
static const char *hint(int rc)
{
    switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return "; another process kept it locked for more than 10 s: retry when it is done";
    case SQLITE_READONLY:
        return "; it is open read-only, or the file or its directory is not writable";
    case SQLITE_FULL: return "; the disk is full: free some space and retry";
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB: return "; the file is damaged: move it away or pass --db with another path";
    case SQLITE_IOERR:
    case SQLITE_CANTOPEN:
    case SQLITE_PERM:
        return "; check that the file and its directory exist and are readable and writable, "
               "and that the disk is not full";
    case SQLITE_CONSTRAINT:
        return "; a row id or value given to cutune_db is invalid (a bug in the caller)";
    }
    return "";
}

/* Record the last SQLite failure on db: call it before anything else touches the
 * connection (a ROLLBACK or finalize would replace the message). */
int cutune_db_fail(CutuneDb *db, CutuneError *err, int rc, const char *what)
{
    int code = (rc & 0xff) == SQLITE_NOMEM ? CUTUNE_ERR_NOMEM : CUTUNE_ERR_DB;
    /* a write that failed for lack of room reads as a plain I/O error: say what it was */
    int sys = db->h ? sqlite3_system_errno(db->h) : 0;
    const char *h = (rc & 0xff) == SQLITE_IOERR && (sys == ENOSPC || sys == EFBIG || sys == EDQUOT)
                        ? "; the disk is full (or a quota or file size limit was reached): free "
                          "some space and retry; every trial committed so far is kept"
                        : hint(rc);
    char how[240] = "";
    if ((rc & 0xff) == SQLITE_CORRUPT || (rc & 0xff) == SQLITE_NOTADB) { /* say how */
        snprintf(how, sizeof how, " (");
        cutune_db_file_damage(db->path, how + 2, sizeof how - 3);
        strcat(how, ")");
    }
    return cutune_error(err, code, "database %s: %s: %s%s%s%s%s%s", db->path, what,
                        db->h ? sqlite3_errmsg(db->h) : sqlite3_errstr(rc), sys ? " (" : "",
                        sys ? strerror(sys) : "", sys ? ")" : "", how, h);
}

/* ---- small statement helpers -------------------------------------------------------- */

/* Bind parameters 1, 2, ... by a format: 't' const char * (NULL binds NULL), 'i' int64_t,
 * 'I' int64_t bound as NULL when <= 0 (an optional id or count), 'd' double, 'D' double
 * bound as NULL when 0 (not applicable). Strings are not copied: they must outlive the
 * statement's last step. Returns a SQLite result code. */
static int db_vbind(sqlite3_stmt *st, const char *fmt, va_list ap)
{
    int rc = SQLITE_OK;
    for (int i = 1; *fmt && rc == SQLITE_OK; fmt++, i++) {
        switch (*fmt) {
        case 't': {
            const char *s = va_arg(ap, const char *);
            rc = s ? sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC) : sqlite3_bind_null(st, i);
            break;
        }
        case 'i':
        case 'I': {
            int64_t v = va_arg(ap, int64_t);
            rc = (*fmt == 'I' && v <= 0) ? sqlite3_bind_null(st, i) : sqlite3_bind_int64(st, i, v);
            break;
        }
        default: {
            double v = va_arg(ap, double);
            rc = (*fmt == 'D' && v == 0) ? sqlite3_bind_null(st, i) : sqlite3_bind_double(st, i, v);
        }
        }
    }
    return rc;
}

int db_bind(sqlite3_stmt *st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = db_vbind(st, fmt, ap);
    va_end(ap);
    return rc;
}

static int db_vprepare(CutuneDb *db, sqlite3_stmt **st, const char *sql, const char *fmt,
                       va_list ap)
{
    int rc = sqlite3_prepare_v2(db->h, sql, -1, st, NULL);
    return rc == SQLITE_OK ? db_vbind(*st, fmt, ap) : rc;
}

int db_prepare(CutuneDb *db, sqlite3_stmt **st, const char *sql, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = db_vprepare(db, st, sql, fmt, ap);
    va_end(ap);
    return rc;
}

int db_exec(CutuneDb *db, CutuneError *err, const char *what, const char *sql, const char *fmt, ...)
{
    sqlite3_stmt *st = NULL;
    va_list ap;
    va_start(ap, fmt);
    int rc = db_vprepare(db, &st, sql, fmt, ap);
    va_end(ap);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    int code = rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : cutune_db_fail(db, err, rc, what);
    sqlite3_finalize(st);
    return code;
}

const char *db_col_text(sqlite3_stmt *st, int i)
{
    const unsigned char *s = sqlite3_column_text(st, i);
    return s ? (const char *)s : "";
}

/* Copy column i into dst[n]; -1 if it does not fit. */
int db_col_copy(char *dst, size_t n, sqlite3_stmt *st, int i)
{
    const char *s = db_col_text(st, i);
    size_t len = strlen(s);
    if (len >= n)
        return -1;
    memcpy(dst, s, len + 1);
    return 0;
}

/* The integer in the first row of a fixed query (no user data). Returns a SQLite code. */
static int query_int(CutuneDb *db, const char *sql, int *value)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db->h, sql, -1, &st, NULL);
    if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        *value = sqlite3_column_int(st, 0);
        rc = SQLITE_OK;
    }
    sqlite3_finalize(st); /* its result only repeats the step's */
    return rc;
}

static int read_version(CutuneDb *db, int *version)
{
    return query_int(db, "PRAGMA user_version", version);
}

int db_each_row(CutuneDb *db, sqlite3_stmt *st, int rc, int (*row)(sqlite3_stmt *st, void *user),
                void *user, const char *what, CutuneError *err)
{
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW)
        rc = row(st, user) ? SQLITE_DONE : SQLITE_OK;
    int code = rc == SQLITE_DONE ? 0 : cutune_db_fail(db, err, rc, what);
    sqlite3_finalize(st);
    return code;
}

int db_each_row_of(CutuneDb *db, const char *sql, int (*row)(sqlite3_stmt *st, void *user),
                   void *user, const char *what, CutuneError *err, const char *fmt, ...)
{
    sqlite3_stmt *st = NULL;
    va_list ap;
    va_start(ap, fmt);
    int rc = db_vprepare(db, &st, sql, fmt, ap);
    va_end(ap);
    return db_each_row(db, st, rc, row, user, what, err);
}

/* Roll back the open transaction, if any, after a failure already reported. */
void db_rollback(CutuneDb *db)
{
    if (!sqlite3_get_autocommit(db->h))
        (void)sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL); /* nothing more to report */
}

/* ---- open, migrate, close ------------------------------------------------------------- */

/* Create the database's directory if missing and check that we can write in it. */
static int prepare_dir(const char *path, CutuneError *err)
{
    char *dir = strdup(path);
    if (!dir)
        return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
    int code = 0;
    char *slash = strrchr(dir, '/');
    if (!slash)
        strcpy(dir, ".");
    else
        slash[slash == dir] = '\0'; /* "/x.db" keeps "/" */
    CutuneError made = {0};
    if (cutune_mkdir_p(dir, &made) != 0)
        code = cutune_error(err, CUTUNE_ERR_IO,
                            "%s (for the database %s); create it yourself "
                            "or pass --db with another path",
                            made.msg, path);
    else if (access(dir, W_OK | X_OK) != 0)
        code = cutune_error(err, CUTUNE_ERR_IO,
                            "cannot write in directory %s (for the database %s): %s; fix its "
                            "permissions or pass --db with another path",
                            dir, path, strerror(errno));
    free(dir);
    return code;
}

/* Apply migrations from..count-1, each in its own transaction that re-reads the version
 * (another process may have migrated meanwhile). */
static int migrate(CutuneDb *db, int from, CutuneError *err)
{
    /* Every pending migration in ONE transaction: a database appears whole or not at all, so
     * a reader never meets a half-migrated schema, and two processes creating the same file
     * cannot both apply a step (the version is read again under the write lock). */
    if (from >= cutune_migrations_count)
        return 0;
    char what[160] = "applying migrations", pragma[48];
    snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d", cutune_migrations_count);
    int v = 0;
    int rc = sqlite3_exec(db->h, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = read_version(db, &v);
    for (int i = v; rc == SQLITE_OK && i < cutune_migrations_count; i++) {
        snprintf(what, sizeof what, "applying migration %s", cutune_migrations_names[i]);
        rc = sqlite3_exec(db->h, cutune_migrations[i], NULL, NULL, NULL);
    }
    if (rc == SQLITE_OK && v < cutune_migrations_count)
        rc = sqlite3_exec(db->h, pragma, NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(db->h, "COMMIT", NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        cutune_db_fail(db, err, rc, what);
        db_rollback(db);
        return err ? err->code : CUTUNE_ERR_DB;
    }
    return 0;
}

/* A file SQLite cannot read as a database: say whether it is one at all, and if it is,
 * how it is damaged, and what to do. */
static int damaged(CutuneDb *db, CutuneError *err)
{
    char how[200];
    cutune_db_file_damage(db->path, how, sizeof how);
    if (strstr(how, "not a SQLite header"))
        return cutune_error(err, CUTUNE_ERR_DB,
                            "%s is not a cutune database (file is not a database: %s); move it "
                            "away or pass --db with another path",
                            db->path, how);
    return cutune_error(err, CUTUNE_ERR_DB,
                        "database %s is damaged: %s; it was not modified. Restore it from a "
                        "copy, move it away, or pass --db with another path",
                        db->path, how);
}

/* The version and the count of schema objects in one read transaction (another process
 * may commit the first migration between two separate reads, and tables without a version
 * would look like someone else's database). Returns a SQLite code; a failure is recorded
 * in err before the rollback, which would clear SQLite's message. */
static int read_schema(CutuneDb *db, int *version, int *objects, CutuneError *err)
{
    *objects = 0;
    int rc = sqlite3_exec(db->h, "BEGIN", NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = read_version(db, version);
    if (rc == SQLITE_OK && *version == 0)
        rc = query_int(db, "SELECT count(*) FROM sqlite_schema", objects);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(db->h, "COMMIT", NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        return rc;
    if ((rc & 0xff) == SQLITE_NOTADB || (rc & 0xff) == SQLITE_CORRUPT)
        damaged(db, err);
    else
        cutune_db_fail(db, err, rc, "reading the schema version");
    db_rollback(db);
    return rc;
}

/* After the file has been read: refuse what is not ours, or newer than us. A reader that
 * finds no schema yet waits while the file is being written (another process creating the
 * database commits all its migrations in one transaction), then says nothing is recorded:
 * CUTUNE_ERR_NOT_FOUND. */
static int check_version(CutuneDb *db, int ro, int *version, CutuneError *err)
{
    int latest = cutune_db_schema_latest();
    int objects = 0, rc;
    for (int waited_ms = 0;; waited_ms += CREATE_POLL_MS) {
        if ((rc = read_schema(db, version, &objects, err)) != SQLITE_OK)
            return err ? err->code : CUTUNE_ERR_DB;
        if (!ro || *version != 0 || objects != 0 || waited_ms >= CREATE_WAIT_MS ||
            cutune_db_file_age(db->path) > 2)
            break;
        usleep(CREATE_POLL_MS * 1000);
    }
    if (*version < 0)
        return cutune_error(err, CUTUNE_ERR_DB,
                            "%s is not a cutune database (its schema version is %d, and "
                            "cutune's are 1 and up); move it away or pass --db with another "
                            "path (the database was not modified)",
                            db->path, *version);
    if (*version > latest)
        return cutune_error(err, CUTUNE_ERR_DB,
                            "database %s has schema version %d, newer than the %d this cutune "
                            "(%s) knows; upgrade cutune, or pass --db with another path "
                            "(the database was not modified)",
                            db->path, *version, latest, CUTUNE_VERSION);
    if (objects > 0)
        return cutune_error(err, CUTUNE_ERR_DB,
                            "%s is not a cutune database (it has tables but no cutune schema "
                            "version); move it away or pass --db with another path",
                            db->path);
    if (ro && *version == 0)
        return cutune_error(err, CUTUNE_ERR_NOT_FOUND,
                            "database %s has nothing recorded yet (it is empty, or another "
                            "process is creating it); record results with `cutune run` first",
                            db->path);
    return 0;
}

/* PRAGMA journal_mode=WAL needs the file to itself for a moment, and SQLite answers
 * SQLITE_BUSY at once (without the busy handler) while another process holds it, as
 * happens when several tuners create one database together: retry with a short backoff,
 * for as long as the busy timeout. A filesystem without WAL keeps the old mode: that works. */
static int switch_to_wal(CutuneDb *db)
{
    int rc = SQLITE_BUSY;
    for (int waited_ms = 0, step = 1; waited_ms <= BUSY_TIMEOUT_MS; waited_ms += step) {
        sqlite3_stmt *wal = NULL;
        rc = sqlite3_prepare_v2(db->h, "PRAGMA journal_mode=WAL", -1, &wal, NULL);
        if (rc == SQLITE_OK && (rc = sqlite3_step(wal)) == SQLITE_ROW)
            rc = SQLITE_OK;
        sqlite3_finalize(wal);
        if ((rc & 0xff) != SQLITE_BUSY && (rc & 0xff) != SQLITE_LOCKED)
            break;
        usleep((useconds_t)step * 1000);
        step = step < 50 ? 2 * step : 50;
    }
    return rc;
}

/* An older schema opened for reading is upgraded in a private copy in memory: the file is
 * never written (the folder may be read-only, or this machine may never run `cutune run`),
 * and the reader sees the schema it knows. The copy is a snapshot of the file. */
static int migrate_in_memory(CutuneDb *db, int version, CutuneError *err)
{
    sqlite3 *mem = NULL;
    int rc = sqlite3_open_v2(":memory:", &mem, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
    sqlite3_backup *b = rc == SQLITE_OK ? sqlite3_backup_init(mem, "main", db->h, "main") : NULL;
    if (b) {
        rc = sqlite3_backup_step(b, -1);
        int fin = sqlite3_backup_finish(b);
        rc = rc == SQLITE_DONE ? fin : rc;
    } else if (rc == SQLITE_OK) {
        rc = sqlite3_errcode(mem);
    }
    if (rc != SQLITE_OK) {
        cutune_db_fail(db, err, rc, "copying an older schema into memory to read it");
        sqlite3_close(mem);
        return err ? err->code : CUTUNE_ERR_DB;
    }
    sqlite3_close(db->h);
    db->h = mem;
    if ((rc = sqlite3_extended_result_codes(db->h, 1)) != SQLITE_OK)
        return cutune_db_fail(db, err, rc, "configuring the connection");
    return migrate(db, version, err);
}

int cutune_db_open(const char *path, int flags, CutuneDb **out, CutuneError *err)
{
    if (out)
        *out = NULL;
    if (!path || !*path || !out)
        return cutune_error(err, CUTUNE_ERR_INVALID, "cutune_db_open: no database path given");
    int ro = (flags & CUTUNE_DB_READONLY) != 0;
    int memory = strcmp(path, ":memory:") == 0;
    int code = CUTUNE_ERR_NOMEM, rc, version = 0;
    CutuneDb *db = calloc(1, sizeof *db);
    if (!db || !(db->path = strdup(path))) {
        cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory opening the database %s", path);
        goto fail;
    }
    struct stat st;
    int exists = !memory && stat(path, &st) == 0;
    if (ro && !memory && !exists) {
        code = cutune_error(err, errno == ENOENT ? CUTUNE_ERR_NOT_FOUND : CUTUNE_ERR_IO,
                            "cannot open the database %s: %s; record some results first "
                            "(cutune run) or pass --db with another path",
                            path, strerror(errno));
        goto fail;
    }
    if (exists && (code = cutune_db_file_check(path, &st, err)) != 0)
        goto fail;
    if (!ro && !memory && (code = prepare_dir(path, err)) != 0)
        goto fail;
    code = CUTUNE_ERR_DB;
    rc = ro && !memory ? cutune_db_file_open_readonly(path, &db->h)
                       : sqlite3_open_v2(path, &db->h,
                                         ro ? SQLITE_OPEN_READONLY
                                            : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                                         NULL);
    if (rc != SQLITE_OK) {
        code = cutune_db_fail(db, err, rc, "opening");
        goto fail;
    }
    if ((rc = sqlite3_extended_result_codes(db->h, 1)) != SQLITE_OK ||
        (rc = sqlite3_busy_timeout(db->h, BUSY_TIMEOUT_MS)) != SQLITE_OK) {
        code = cutune_db_fail(db, err, rc, "configuring the connection");
        goto fail;
    }
    if (!ro && sqlite3_db_readonly(db->h, "main") == 1) {
        code = cutune_error(err, CUTUNE_ERR_DB,
                            "database %s is not writable; fix its permissions or pass --db "
                            "with another path",
                            path);
        goto fail;
    }
    /* Nothing is written before the version check: a newer database stays untouched. */
    if ((code = check_version(db, ro, &version, err)) != 0)
        goto fail;
    code = CUTUNE_ERR_DB;
    if (!ro && (rc = switch_to_wal(db)) != SQLITE_OK) {
        code = cutune_db_fail(db, err, rc, "switching to WAL journal mode");
        goto fail;
    }
    rc = sqlite3_exec(db->h, "PRAGMA foreign_keys=ON; PRAGMA synchronous=NORMAL", NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        code = cutune_db_fail(db, err, rc, "setting pragmas");
        goto fail;
    }
    if (ro && version < cutune_db_schema_latest() && (code = migrate_in_memory(db, version, err)))
        goto fail;
    if (!ro && (code = migrate(db, version, err)) != 0)
        goto fail;
    if (!ro && !memory)
        cutune_db_runs_reap_stale(db);
    *out = db;
    return 0;
fail:
    cutune_db_close(&db);
    return code;
}

void cutune_db_close(CutuneDb **db)
{
    if (!db || !*db)
        return;
    /* Every statement is finalized, so the close cannot be refused as busy. */
    (void)sqlite3_close((*db)->h);
    free((*db)->path);
    free(*db);
    *db = NULL;
}

int cutune_db_default_path(char *buf, size_t len, CutuneError *err)
{
    if (!buf || len == 0)
        return cutune_error(err, CUTUNE_ERR_INVALID, "cutune_db_default_path: no buffer");
    int rc = cutune_xdg_path("CUTUNE_DB", CUTUNE_XDG_DATA, "cutune.db", buf, len);
    if (rc == CUTUNE_ERR_NOT_FOUND)
        return cutune_error(err, CUTUNE_ERR_NOT_FOUND,
                            "no place for the tuning database: HOME is not set; set "
                            "CUTUNE_DB or HOME, or pass --db with a path");
    if (rc)
        return cutune_error(err, CUTUNE_ERR_RANGE,
                            "the database path from the environment is longer than %zu bytes; "
                            "set CUTUNE_DB to a shorter path or pass --db",
                            len - 1);
    return 0;
}

int cutune_db_schema_latest(void)
{
    return cutune_migrations_count;
}

int cutune_db_schema_version(CutuneDb *db)
{
    int v = -1;
    if (!db || read_version(db, &v) != SQLITE_OK)
        return -1;
    return v;
}

/* ---- for the other files of the database layer (lookup.c, requests.c) ------------------ */

struct sqlite3 *cutune_db_sqlite(CutuneDb *db)
{
    return db ? db->h : NULL;
}

const char *cutune_db_path(const CutuneDb *db)
{
    return db ? db->path : "";
}
