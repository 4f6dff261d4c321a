/* The tuning database: one SQLite file in WAL mode, its schema built by the migrations
 * embedded from db/migrations (see db.h for the contract).
 *
 * Style: every statement is prepared with bound parameters; every sqlite3 return code is
 * checked; each function has one `fail:` path that finalizes what it prepared. */
#include "db.h"
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

struct CutuneDb {
    sqlite3 *h;
    char *path;
};

enum { BUSY_TIMEOUT_MS = 10000, BUSY_RETRIES = 4 };
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
    case SQLITE_FULL:
        return "; the disk is full: free some space and retry";
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
        return "; the file is damaged: move it away or pass --db with another path";
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
static int db_error(CutuneDb *db, CutuneError *err, int rc, const char *what)
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
static int bind(sqlite3_stmt *st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
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
    va_end(ap);
    return rc;
}

static const char *col_text(sqlite3_stmt *st, int i)
{
    const unsigned char *s = sqlite3_column_text(st, i);
    return s ? (const char *)s : "";
}

/* Copy column i into dst[n]; -1 if it does not fit. */
static int col_copy(char *dst, size_t n, sqlite3_stmt *st, int i)
{
    const char *s = col_text(st, i);
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

/* Roll back the open transaction, if any, after a failure already reported. */
static void rollback(CutuneDb *db)
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
        code = cutune_error(err, CUTUNE_ERR_IO, "%s (for the database %s); create it yourself "
                            "or pass --db with another path", made.msg, path);
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
        db_error(db, err, rc, what);
        rollback(db);
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
        db_error(db, err, rc, "reading the schema version");
    rollback(db);
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
        db_error(db, err, rc, "copying an older schema into memory to read it");
        sqlite3_close(mem);
        return err ? err->code : CUTUNE_ERR_DB;
    }
    sqlite3_close(db->h);
    db->h = mem;
    if ((rc = sqlite3_extended_result_codes(db->h, 1)) != SQLITE_OK)
        return db_error(db, err, rc, "configuring the connection");
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
        code = db_error(db, err, rc, "opening");
        goto fail;
    }
    if ((rc = sqlite3_extended_result_codes(db->h, 1)) != SQLITE_OK ||
        (rc = sqlite3_busy_timeout(db->h, BUSY_TIMEOUT_MS)) != SQLITE_OK) {
        code = db_error(db, err, rc, "configuring the connection");
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
        code = db_error(db, err, rc, "switching to WAL journal mode");
        goto fail;
    }
    rc = sqlite3_exec(db->h, "PRAGMA foreign_keys=ON; PRAGMA synchronous=NORMAL", NULL, NULL,
                      NULL);
    if (rc != SQLITE_OK) {
        code = db_error(db, err, rc, "setting pragmas");
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
    const char *env;
    int n;
    if ((env = getenv("CUTUNE_DB")) && *env)
        n = snprintf(buf, len, "%s", env);
    else if ((env = getenv("XDG_DATA_HOME")) && *env == '/') /* relative: ignored (XDG) */
        n = snprintf(buf, len, "%s/cutune/cutune.db", env);
    else if ((env = getenv("HOME")) && *env)
        n = snprintf(buf, len, "%s/.local/share/cutune/cutune.db", env);
    else
        return cutune_error(err, CUTUNE_ERR_NOT_FOUND,
                            "no place for the tuning database: HOME is not set; set "
                            "CUTUNE_DB or HOME, or pass --db with a path");
    if (n < 0 || (size_t)n >= len)
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

/* ---- rows ------------------------------------------------------------------------------ */

/* Run one statement that returns the id wanted in its first column (0 rows: NOT_FOUND);
 * with text_out, a copy of its second column too (NULL when out of memory). */
static int step_id(CutuneDb *db, sqlite3_stmt *st, int64_t *id, const char **text_out,
                   const char *what, CutuneError *err)
{
    int rc = sqlite3_step(st);
    if (rc == SQLITE_DONE)
        return cutune_error(err, CUTUNE_ERR_NOT_FOUND, "database %s: %s: no row", db->path, what);
    if (rc != SQLITE_ROW)
        return db_error(db, err, rc, what);
    *id = sqlite3_column_int64(st, 0);
    if (text_out)
        *text_out = strdup(col_text(st, 1));
    /* A statement with RETURNING commits (outside a transaction) only when it runs to its
     * end: step once more, or its commit's failure (a full disk) would go unseen and the
     * row later look like a bad id. */
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        ;
    return rc == SQLITE_DONE ? 0 : db_error(db, err, rc, what);
}

int cutune_db_device(CutuneDb *db, const CutuneDeviceInfo *d, int64_t *id, CutuneError *err)
{
    if (!db || !d || !id || !d->uuid[0])
        return cutune_error(err, CUTUNE_ERR_INVALID, "cutune_db_device: no device or no UUID");
    sqlite3_stmt *st = NULL;
    int code, rc = sqlite3_prepare_v2(
        db->h,
        "INSERT INTO devices (uuid, name, cc_major, cc_minor, sm_count, total_mem,"
        " driver_version, runtime_version) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (uuid) DO UPDATE SET name = excluded.name, cc_major = excluded.cc_major,"
        " cc_minor = excluded.cc_minor, sm_count = excluded.sm_count,"
        " total_mem = excluded.total_mem, driver_version = excluded.driver_version,"
        " runtime_version = excluded.runtime_version, last_seen = datetime('now')"
        " RETURNING id",
        -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = bind(st, "ttiiiiii", d->uuid, d->name, (int64_t)d->cc_major, (int64_t)d->cc_minor,
                  (int64_t)d->sm_count, (int64_t)d->total_mem, (int64_t)d->driver_version,
                  (int64_t)d->runtime_version);
    code = rc == SQLITE_OK ? step_id(db, st, id, NULL, "recording the device", err)
                           : db_error(db, err, rc, "recording the device");
    sqlite3_finalize(st);
    return code;
}

/* Insert-if-missing then look up: rows are never deleted, so no transaction is needed.
 * Both statements take the same text parameters; the lookup returns (id, op). */
static int get_or_create(CutuneDb *db, const char *insert, const char *select, const char *fmt,
                         const char *a, const char *b, const char *c, const char *d,
                         const char *what, int64_t *id, const char **op_out, CutuneError *err)
{
    sqlite3_stmt *ins = NULL, *sel = NULL;
    int code = 0;
    int rc = sqlite3_prepare_v2(db->h, insert, -1, &ins, NULL);
    if (rc == SQLITE_OK && (rc = bind(ins, fmt, a, b, c, d)) == SQLITE_OK &&
        (rc = sqlite3_step(ins)) == SQLITE_DONE &&
        (rc = sqlite3_prepare_v2(db->h, select, -1, &sel, NULL)) == SQLITE_OK &&
        (rc = bind(sel, fmt, a, b, c, d)) == SQLITE_OK) {
        code = step_id(db, sel, id, op_out, what, err);
    } else {
        code = db_error(db, err, rc, what);
    }
    sqlite3_finalize(ins);
    sqlite3_finalize(sel);
    return code;
}

int cutune_db_variant(CutuneDb *db, const char *op, const char *name, const char *version,
                      const char *source_hash, int64_t *id, CutuneError *err)
{
    if (!db || !op || !name || !id)
        return cutune_error(err, CUTUNE_ERR_INVALID, "cutune_db_variant: no op or name");
    const char *have = NULL;
    int code = get_or_create( /* the lookup ignores ?1 (op): checked below */
        db,
        "INSERT INTO variants (op, name, version, source_hash) VALUES (?1, ?2, ?3, ?4)"
        " ON CONFLICT DO NOTHING",
        "SELECT id, op FROM variants WHERE name = ?2 AND version = ?3 AND source_hash = ?4",
        "tttt", op, name, version ? version : "", source_hash ? source_hash : "",
        "recording the variant", id, &have, err);
    if (code == 0 && !have)
        code = cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
    else if (code == 0 && strcmp(have, op) != 0)
        code = cutune_error(err, CUTUNE_ERR_INVALID,
                            "database %s: variant %s version %s (same source) is recorded for "
                            "op %s, not %s; give the variant another name or version",
                            db->path, name, version ? version : "", have, op);
    free((char *)have);
    return code;
}

int cutune_db_problem(CutuneDb *db, const char *op, const char *size, int64_t *id,
                      CutuneError *err)
{
    if (!db || !op || !size || !id)
        return cutune_error(err, CUTUNE_ERR_INVALID, "cutune_db_problem: no op or size");
    return get_or_create(db,
                         "INSERT INTO problems (op, size) VALUES (?1, ?2) ON CONFLICT DO NOTHING",
                         "SELECT id, op FROM problems WHERE op = ?1 AND size = ?2", "tt", op,
                         size, NULL, NULL, "recording the problem", id, NULL, err);
}

int cutune_db_run_begin(CutuneDb *db, const CutuneRunInfo *r, int64_t *run_id, CutuneError *err)
{
    if (!db || !r || !run_id)
        return cutune_error(err, CUTUNE_ERR_INVALID, "cutune_db_run_begin: no run");
    sqlite3_stmt *st = NULL;
    int code, rc = sqlite3_prepare_v2(
        db->h,
        "INSERT INTO runs (argv, op, strategy, budget, time_limit_s, seed, device_id, status,"
        " uuid, pid, host)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, 'running', lower(hex(randomblob(16))), ?, ?)"
        " RETURNING id",
        -1, &st, NULL);
    char host[256] = "";
    if (gethostname(host, sizeof host - 1) != 0)
        host[0] = '\0';
    if (rc == SQLITE_OK)
        rc = bind(st, "tttidiIit", r->argv ? r->argv : "", r->op, r->strategy, r->budget,
                  r->time_limit_s, (int64_t)r->seed, r->device_id, (int64_t)getpid(),
                  host[0] ? host : NULL);
    code = rc == SQLITE_OK ? step_id(db, st, run_id, NULL, "recording the run", err)
                           : db_error(db, err, rc, "recording the run");
    sqlite3_finalize(st);
    return code;
}

int cutune_db_run_end(CutuneDb *db, int64_t run_id, const char *status, CutuneError *err)
{
    if (!db || !status ||
        (strcmp(status, "done") && strcmp(status, "interrupted") && strcmp(status, "failed")))
        return cutune_error(err, CUTUNE_ERR_INVALID,
                            "cutune_db_run_end: status '%s' is not done, interrupted or failed",
                            status ? status : "(null)");
    sqlite3_stmt *st = NULL;
    int code = 0, rc = sqlite3_prepare_v2(
        db->h, "UPDATE runs SET status = ?, finished_at = datetime('now') WHERE id = ?", -1, &st,
        NULL);
    if (rc == SQLITE_OK && (rc = bind(st, "ti", status, run_id)) == SQLITE_OK)
        rc = sqlite3_step(st);
    if (rc != SQLITE_DONE)
        code = db_error(db, err, rc, "ending the run");
    else if (sqlite3_changes(db->h) == 0)
        code = cutune_error(err, CUTUNE_ERR_NOT_FOUND, "database %s has no run %lld", db->path,
                            (long long)run_id);
    sqlite3_finalize(st);
    if (code == 0) /* requests it claimed and did not tune are free for the next run */
        code = cutune_db_requests_release(db, run_id, err);
    return code;
}

int cutune_db_last_run(CutuneDb *db, int64_t *run_id, CutuneError *err)
{
    if (!db || !run_id)
        return cutune_error(err, CUTUNE_ERR_INVALID, "cutune_db_last_run: no output");
    sqlite3_stmt *st = NULL;
    int code = 0, rc = sqlite3_prepare_v2(db->h, "SELECT id FROM runs ORDER BY id DESC LIMIT 1",
                                          -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *run_id = sqlite3_column_int64(st, 0);
    else if (rc == SQLITE_DONE)
        code = cutune_error(err, CUTUNE_ERR_NOT_FOUND,
                            "database %s has no runs yet; tune with `cutune run <op>` first", db->path);
    else
        code = db_error(db, err, rc, "finding the last run");
    sqlite3_finalize(st);
    return code;
}

/* ---- trials and the best ---------------------------------------------------------------- */

/* One attempt: the whole transaction. Returns a SQLite code; the message goes to e. */
static int trial_once(CutuneDb *db, const CutuneTrialRecord *t, int64_t *id, int *is_best,
                      CutuneError *e)
{
    int ok = t->status == CUTUNE_STATUS_OK;
    sqlite3_stmt *ins = NULL, *best = NULL;
    const char *what = "starting a transaction";
    int rc = sqlite3_exec(db->h, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    if (rc != SQLITE_OK)
        goto fail;
    what = "inserting a trial";
    rc = sqlite3_prepare_v2(
        db->h,
        "INSERT INTO trials (run_id, device_id, variant_id, problem_id, config, status,"
        " median_ms, min_ms, mean_ms, stddev_ms, samples, gflops, gbps, error, compile_ms,"
        " measure_ms, message, seed, cut_short)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        -1, &ins, NULL);
    if (rc != SQLITE_OK)
        goto fail;
    rc = bind(ins, "Iiiittddddi" "DDdddtii", t->run_id, t->device_id, t->variant_id,
              t->problem_id, t->config, cutune_status_name(t->status), t->median_ms, t->min_ms,
              t->mean_ms, t->stddev_ms, (int64_t)t->samples, t->gflops, t->gbps, t->error,
              t->compile_ms, t->measure_ms, t->message, (int64_t)t->seed,
              (int64_t)(ok && t->cut_short ? 1 : 0));
    /* The timings of a failed trial mean nothing: NULL (read back as 0). */
    for (int i = 7; i <= 13 && !ok && rc == SQLITE_OK; i++)
        rc = sqlite3_bind_null(ins, i);
    if (rc != SQLITE_OK || (rc = sqlite3_step(ins)) != SQLITE_DONE)
        goto fail;
    *id = sqlite3_last_insert_rowid(db->h);
    *is_best = 0;
    if (ok && t->median_ms > 0 && isfinite(t->median_ms)) {
        what = "updating the best config";
        /* A best of this variant at another version is superseded (the installed plugin
         * may not run its config): the best becomes the fastest trial that is not of this
         * variant at another version (this one, at the least). Then the usual race, and
         * whether this trial is the best now. */
        static const struct {
            const char *sql, *fmt; /* the binds: ?1 device, ?2 problem, ?3 trial, ?4 its
                                      time, ?5 its variant (up to the last one used) */
        } steps[] = {
            {"UPDATE best SET updated_at = datetime('now'), trial_id = ("
            "  SELECT t.id FROM trials t JOIN variants v ON v.id = t.variant_id"
            "  WHERE t.device_id = ?1 AND t.problem_id = ?2 AND t.status = 'ok'"
            "  AND t.median_ms > 0 AND (v.name != (SELECT name FROM variants WHERE id = ?5)"
            "  OR v.version = (SELECT version FROM variants WHERE id = ?5))"
            "  ORDER BY t.median_ms, t.id LIMIT 1)"
            " WHERE device_id = ?1 AND problem_id = ?2 AND ("
            "  SELECT v.name = n.name AND v.version != n.version"
            "  FROM trials t JOIN variants v ON v.id = t.variant_id, variants n"
            "  WHERE t.id = best.trial_id AND n.id = ?5)",
             "iiidi"},
            {"INSERT INTO best (device_id, problem_id, trial_id) VALUES (?1, ?2, ?3)"
            " ON CONFLICT (device_id, problem_id) DO UPDATE SET trial_id = excluded.trial_id,"
            " updated_at = datetime('now')"
            " WHERE ?4 < (SELECT median_ms FROM trials WHERE id = best.trial_id)",
             "iiid"},
            {"SELECT trial_id = ?3 FROM best WHERE device_id = ?1 AND problem_id = ?2", "iii"},
        };
        rc = SQLITE_OK;
        for (size_t i = 0; i < sizeof steps / sizeof *steps && rc == SQLITE_OK; i++) {
            sqlite3_finalize(best);
            best = NULL;
            if ((rc = sqlite3_prepare_v2(db->h, steps[i].sql, -1, &best, NULL)) != SQLITE_OK ||
                (rc = bind(best, steps[i].fmt, t->device_id, t->problem_id, *id, t->median_ms,
                           t->variant_id)) != SQLITE_OK)
                break;
            rc = sqlite3_step(best);
            if (rc == SQLITE_ROW)
                *is_best = sqlite3_column_int(best, 0);
            if (rc == SQLITE_ROW || rc == SQLITE_DONE)
                rc = SQLITE_OK;
        }
        if (rc != SQLITE_OK)
            goto fail;
    }
    what = "committing a trial";
    if ((rc = sqlite3_exec(db->h, "COMMIT", NULL, NULL, NULL)) != SQLITE_OK)
        goto fail;
    sqlite3_finalize(ins);
    sqlite3_finalize(best);
    return SQLITE_OK;
fail:
    db_error(db, e, rc, what);
    sqlite3_finalize(ins);
    sqlite3_finalize(best);
    rollback(db);
    return rc;
}

int cutune_db_trial_insert(CutuneDb *db, const CutuneTrialRecord *t, int64_t *trial_id,
                           int *is_best, CutuneError *err)
{
    if (!db || !t || !t->config || (int)t->status < 0 || t->status >= CUTUNE_STATUS_COUNT)
        return cutune_error(err, CUTUNE_ERR_INVALID, "cutune_db_trial_insert: no config or "
                                                     "an unknown status");
    for (int attempt = 0;; attempt++) {
        CutuneError e = {0};
        int64_t id = 0;
        int best = 0;
        int rc = trial_once(db, t, &id, &best, &e);
        if (rc == SQLITE_OK) {
            if (trial_id)
                *trial_id = id;
            if (is_best)
                *is_best = best;
            return 0;
        }
        if ((rc & 0xff) == SQLITE_BUSY && attempt < BUSY_RETRIES) {
            sqlite3_sleep(50 << attempt);
            continue;
        }
        return cutune_error(err, e.code, "%s", e.msg);
    }
}

/* Columns read by read_best, in this order. */
#define BEST_COLUMNS                                                                        \
    "t.id, d.uuid, d.name, p.op, p.size, v.name, v.version, t.config, t.median_ms, "       \
    "t.min_ms, t.gflops, t.gbps, t.error, t.samples"

/* Step a prepared best-config query and copy its row (updated_at in column 14). */
static int read_best(CutuneDb *db, sqlite3_stmt *st, const char *what, CutuneBest *out,
                     CutuneError *err)
{
    int code = 0, rc = sqlite3_step(st);
    if (rc == SQLITE_DONE)
        return cutune_error(err, CUTUNE_ERR_NOT_FOUND,
                            "database %s has no verified config for %s; tune it on that device "
                            "first",
                            db->path, what);
    if (rc != SQLITE_ROW)
        return db_error(db, err, rc, "reading the best config");
    memset(out, 0, sizeof *out);
    out->trial_id = sqlite3_column_int64(st, 0);
    if (col_copy(out->device_uuid, sizeof out->device_uuid, st, 1) ||
        col_copy(out->device_name, sizeof out->device_name, st, 2) ||
        col_copy(out->op, sizeof out->op, st, 3) || col_copy(out->size, sizeof out->size, st, 4) ||
        col_copy(out->variant, sizeof out->variant, st, 5) ||
        col_copy(out->variant_version, sizeof out->variant_version, st, 6) ||
        col_copy(out->config, sizeof out->config, st, 7) ||
        col_copy(out->updated_at, sizeof out->updated_at, st, 14))
        code = cutune_error(err, CUTUNE_ERR_RANGE,
                            "database %s: the best config for %s (trial %lld) has a field too "
                            "long for CutuneBest",
                            db->path, what, (long long)out->trial_id);
    out->median_ms = sqlite3_column_double(st, 8);
    out->min_ms = sqlite3_column_double(st, 9);
    out->gflops = sqlite3_column_double(st, 10);
    out->gbps = sqlite3_column_double(st, 11);
    out->error = sqlite3_column_double(st, 12);
    out->samples = sqlite3_column_int(st, 13);
    return code;
}

int cutune_db_best(CutuneDb *db, const char *device_uuid, const char *op, const char *size,
                   CutuneBest *out, CutuneError *err)
{
    if (!db || !device_uuid || !op || !size || !out)
        return cutune_error(err, CUTUNE_ERR_INVALID, "cutune_db_best: missing argument");
    sqlite3_stmt *st = NULL;
    char what[256];
    snprintf(what, sizeof what, "%s %s on device %s", op, size, device_uuid);
    int code, rc = sqlite3_prepare_v2(
        db->h,
        "SELECT " BEST_COLUMNS ", b.updated_at"
        " FROM best b JOIN devices d ON d.id = b.device_id"
        " JOIN problems p ON p.id = b.problem_id JOIN trials t ON t.id = b.trial_id"
        " JOIN variants v ON v.id = t.variant_id"
        " WHERE d.uuid = ? AND p.op = ? AND p.size = ?",
        -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = bind(st, "ttt", device_uuid, op, size);
    code = rc == SQLITE_OK ? read_best(db, st, what, out, err)
                           : db_error(db, err, rc, "reading the best config");
    sqlite3_finalize(st);
    return code;
}

/* The fastest verified trial of a variant (at `version`, or any when NULL) on the devices
 * whose `device_column` (uuid or name) is `device`. */
static int best_of_variant(CutuneDb *db, const char *device_column, const char *device,
                           const char *op, const char *size, const char *variant,
                           const char *version, CutuneBest *out, CutuneError *err)
{
    if (!db || !device || !op || !size || !variant || !out)
        return cutune_error(err, CUTUNE_ERR_INVALID, "cutune_db_best_of_variant: missing argument");
    sqlite3_stmt *st = NULL;
    char what[400], sql[640];
    snprintf(what, sizeof what, "%s %s variant %s%s%s on device %s", op, size, variant,
             version ? " version " : "", version ? version : "", device);
    snprintf(sql, sizeof sql,
             "SELECT " BEST_COLUMNS ", t.created_at"
             " FROM trials t JOIN devices d ON d.id = t.device_id"
             " JOIN problems p ON p.id = t.problem_id JOIN variants v ON v.id = t.variant_id"
             " WHERE d.%s = ?1 AND p.op = ?2 AND p.size = ?3 AND v.name = ?4"
             " AND (?5 IS NULL OR v.version = ?5) AND t.status = 'ok'"
             " AND t.median_ms > 0 ORDER BY t.median_ms, t.id LIMIT 1",
             device_column);
    int code, rc = sqlite3_prepare_v2(db->h, sql, -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = bind(st, "ttttt", device, op, size, variant, version);
    code = rc == SQLITE_OK ? read_best(db, st, what, out, err)
                           : db_error(db, err, rc, "reading the best config of a variant");
    sqlite3_finalize(st);
    return code;
}

int cutune_db_best_of_variant(CutuneDb *db, const char *device_uuid, const char *op,
                              const char *size, const char *variant, const char *version,
                              CutuneBest *out, CutuneError *err)
{
    return best_of_variant(db, "uuid", device_uuid, op, size, variant, version, out, err);
}

int cutune_db_best_of_variant_model(CutuneDb *db, const char *device_name, const char *op,
                                    const char *size, const char *variant, const char *version,
                                    CutuneBest *out, CutuneError *err)
{
    return best_of_variant(db, "name", device_name, op, size, variant, version, out, err);
}

int cutune_db_find_device(CutuneDb *db, const char *pattern, char *uuid, size_t uuid_len,
                          CutuneError *err)
{
    if (!db || !pattern || !uuid || uuid_len == 0)
        return cutune_error(err, CUTUNE_ERR_INVALID, "cutune_db_find_device: missing argument");
    sqlite3_stmt *st = NULL;
    char list[640] = "";
    size_t used = 0;
    int n = 0, code = 0;
    int rc = sqlite3_prepare_v2(db->h,
                                "SELECT uuid, name, uuid = ?1 AS exact FROM devices"
                                " WHERE uuid = ?1 OR instr(lower(name), lower(?1)) > 0"
                                " ORDER BY exact DESC, id",
                                -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = bind(st, "t", pattern);
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        rc = SQLITE_OK;
        if (n == 0 && col_copy(uuid, uuid_len, st, 0) != 0) {
            code = cutune_error(err, CUTUNE_ERR_RANGE, "device UUID %s is too long",
                                col_text(st, 0));
            goto out;
        }
        if (n == 0 && sqlite3_column_int(st, 2)) /* an exact UUID wins */
            goto out;
        if (used < sizeof list) {
            int w = snprintf(list + used, sizeof list - used, "%s%s (%s)", n ? ", " : "",
                             col_text(st, 1), col_text(st, 0));
            used += w > 0 ? (size_t)w : 0;
        }
        n++;
    }
    if (rc != SQLITE_DONE)
        code = db_error(db, err, rc, "looking up the device");
    else if (n == 0)
        code = cutune_error(err, CUTUNE_ERR_NOT_FOUND,
                            "database %s has no device with UUID or name matching '%s'; list "
                            "them with: sqlite3 %s 'SELECT name, uuid FROM devices'",
                            db->path, pattern, db->path);
    else if (n > 1)
        code = cutune_error(err, CUTUNE_ERR_INVALID,
                            "'%s' matches %d devices in %s: %s%s; give the UUID or more of "
                            "the name",
                            pattern, n, db->path, list, used >= sizeof list ? "..." : "");
out:
    if (code != 0 || n > 1)
        uuid[0] = '\0';
    sqlite3_finalize(st);
    return code;
}

int cutune_db_trials_foreach(CutuneDb *db, int64_t run_id,
                             int (*fn)(const CutuneTrialRow *row, void *user), void *user,
                             CutuneError *err)
{
    if (!db || !fn)
        return cutune_error(err, CUTUNE_ERR_INVALID, "cutune_db_trials_foreach: no callback");
    sqlite3_stmt *st = NULL;
    int code = 0, rc = sqlite3_prepare_v2(
        db->h,
        "SELECT t.id, t.run_id, v.name, v.version, p.op, p.size, t.config, t.status, t.message,"
        " t.median_ms, t.min_ms, t.mean_ms, t.stddev_ms, t.gflops, t.gbps, t.error,"
        " t.compile_ms, t.measure_ms, t.samples, t.seed, t.created_at"
        " FROM trials t JOIN variants v ON v.id = t.variant_id"
        " JOIN problems p ON p.id = t.problem_id WHERE t.run_id = ? ORDER BY t.id",
        -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = bind(st, "i", run_id);
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        CutuneTrialRow r = {
            .id = sqlite3_column_int64(st, 0),
            .run_id = sqlite3_column_int64(st, 1),
            .variant = col_text(st, 2),
            .variant_version = col_text(st, 3),
            .op = col_text(st, 4),
            .size = col_text(st, 5),
            .config = col_text(st, 6),
            .status = col_text(st, 7),
            .message = sqlite3_column_type(st, 8) == SQLITE_NULL ? NULL : col_text(st, 8),
            .median_ms = sqlite3_column_double(st, 9),
            .min_ms = sqlite3_column_double(st, 10),
            .mean_ms = sqlite3_column_double(st, 11),
            .stddev_ms = sqlite3_column_double(st, 12),
            .gflops = sqlite3_column_double(st, 13),
            .gbps = sqlite3_column_double(st, 14),
            .error = sqlite3_column_double(st, 15),
            .compile_ms = sqlite3_column_double(st, 16),
            .measure_ms = sqlite3_column_double(st, 17),
            .samples = sqlite3_column_int(st, 18),
            .seed = (uint64_t)sqlite3_column_int64(st, 19),
            .created_at = col_text(st, 20),
        };
        if (fn(&r, user) != 0) {
            rc = SQLITE_DONE;
            break;
        }
        rc = SQLITE_OK;
    }
    if (rc != SQLITE_DONE)
        code = db_error(db, err, rc, "reading the trials");
    sqlite3_finalize(st);
    return code;
}

int cutune_db_configs_done(CutuneDb *db, int64_t device_id, int64_t variant_id, int64_t problem_id,
                           int (*fn)(const char *config, const char *status, double median_ms,
                                     void *user),
                           void *user, CutuneError *err)
{
    if (!db || !fn)
        return cutune_error(err, CUTUNE_ERR_INVALID, "cutune_db_configs_done: no callback");
    sqlite3_stmt *st = NULL;
    int code = 0, rc = sqlite3_prepare_v2(
        db->h,
        "SELECT config, status, median_ms FROM trials WHERE id IN"
        " (SELECT max(id) FROM trials WHERE device_id = ? AND variant_id = ? AND problem_id = ?"
        " GROUP BY config) ORDER BY id",
        -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = bind(st, "iii", device_id, variant_id, problem_id);
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (fn(col_text(st, 0), col_text(st, 1), sqlite3_column_double(st, 2), user) != 0) {
            rc = SQLITE_DONE;
            break;
        }
        rc = SQLITE_OK;
    }
    if (rc != SQLITE_DONE)
        code = db_error(db, err, rc, "reading the configs already measured");
    sqlite3_finalize(st);
    return code;
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

int cutune_db_fail(CutuneDb *db, CutuneError *err, int rc, const char *what)
{
    return db_error(db, err, rc, what);
}
