/* What the files of the database layer share: the connection and the statement helpers
 * (db.c). Every function returning an int here returns a SQLite result code unless it says
 * otherwise. */
#ifndef CUTUNE_DB_INT_H
#define CUTUNE_DB_INT_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "db.h"

struct CutuneDb {
    sqlite3 *h;
    char *path;
};

/* How often a write that met a busy database is tried again (after SQLite's own wait). */
enum { DB_BUSY_RETRIES = 4 };

/* Bind parameters 1, 2, ... by a format: 't' const char * (NULL binds NULL), 'i' int64_t,
 * 'I' int64_t bound as NULL when <= 0 (an optional id or count), 'd' double, 'D' double
 * bound as NULL when 0 (not applicable). Strings are not copied: they must outlive the
 * statement's last step. */
int db_bind(sqlite3_stmt *st, const char *fmt, ...);
/* Prepare sql on db's connection into *st and bind its parameters by fmt as db_bind does.
 * The caller finalizes *st (NULL when the statement did not compile), whatever this returns. */
int db_prepare(CutuneDb *db, sqlite3_stmt **st, const char *sql, const char *fmt, ...);
/* Prepare sql, bind by fmt, step it once and finalize it: for statements that write, or
 * whose rows are not read. Returns 0, or the CUTUNE_ERR_* of a failure with err saying what
 * was being done (what). */
int db_exec(CutuneDb *db, CutuneError *err, const char *what, const char *sql, const char *fmt,
            ...);
/* Column i as text; "" for NULL. */
const char *db_col_text(sqlite3_stmt *st, int i);
/* Copy column i into dst[n]; -1 if it does not fit. */
int db_col_copy(char *dst, size_t n, sqlite3_stmt *st, int i);
/* Step st (prepared and bound; rc is the result so far) through its rows, calling
 * row(st, user) on each until one returns non-zero, then finalize st. Returns 0, or the
 * CUTUNE_ERR_* of a failure with err saying what was being read (what). */
int db_each_row(CutuneDb *db, sqlite3_stmt *st, int rc, int (*row)(sqlite3_stmt *st, void *user),
                void *user, const char *what, CutuneError *err);
/* db_prepare, then db_each_row: the rows of sql with its parameters bound by fmt. */
int db_each_row_of(CutuneDb *db, const char *sql, int (*row)(sqlite3_stmt *st, void *user),
                   void *user, const char *what, CutuneError *err, const char *fmt, ...);
/* Roll back the open transaction, if any, after a failure already reported. */
void db_rollback(CutuneDb *db);

#endif
