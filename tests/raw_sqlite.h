/* Plain sqlite3 access for tests: build, tamper with and inspect databases behind
 * cutune's back. */
#ifndef CUTUNE_TESTS_RAW_SQLITE_H
#define CUTUNE_TESTS_RAW_SQLITE_H

#include <stdio.h>

#include <sqlite3.h>

/* A value from a plain sqlite3 connection (read-only), -999 on error. */
static inline long long raw_int(const char *path, const char *sql)
{
    sqlite3 *h = NULL;
    sqlite3_stmt *st = NULL;
    long long v = -999;
    if (sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(h);
    return v;
}

static inline void raw_text(const char *path, const char *sql, char *out, size_t len)
{
    sqlite3 *h = NULL;
    sqlite3_stmt *st = NULL;
    snprintf(out, len, "(error)");
    if (sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        snprintf(out, len, "%s",
                 sqlite3_column_type(st, 0) == SQLITE_NULL
                     ? "(null)"
                     : (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(h);
}

static inline int raw_exec(const char *path, const char *sql)
{
    sqlite3 *h = NULL;
    int rc = sqlite3_open_v2(path, &h, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(h, sql, NULL, NULL, NULL);
    sqlite3_close(h);
    return rc;
}

#endif
