/* Runs whose process is gone: cutune_db_open calls cutune_db_runs_reap_stale on every
 * read-write open (see db.h). It reaches the connection through db_int.h's struct alone, not
 * through db.c's helpers, so that db.c, which calls it, and this file do not need each other. */
#include "db_int.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <unistd.h>

#include <sqlite3.h>

void cutune_db_runs_reap_stale(CutuneDb *db)
{
    char host[256] = "";
    sqlite3 *h = db ? db->h : NULL;
    if (!h || gethostname(host, sizeof host - 1) != 0 || !host[0])
        return;
    sqlite3_stmt *st = NULL;
    int64_t stale[64];
    size_t n = 0;
    if (sqlite3_prepare_v2(h,
                           "SELECT id, pid FROM runs WHERE status = 'running' AND host = ?1"
                           " AND pid IS NOT NULL ORDER BY id",
                           -1, &st, NULL) == SQLITE_OK &&
        sqlite3_bind_text(st, 1, host, -1, SQLITE_STATIC) == SQLITE_OK) {
        while (n < sizeof stale / sizeof *stale && sqlite3_step(st) == SQLITE_ROW) {
            int64_t pid = sqlite3_column_int64(st, 1);
            /* EPERM: it exists under another user. A reused pid keeps a run alive: safe. */
            if (pid > 0 && pid <= INT32_MAX && pid != getpid() && kill((pid_t)pid, 0) != 0 &&
                errno == ESRCH)
                stale[n++] = sqlite3_column_int64(st, 0);
        }
    }
    sqlite3_finalize(st);
    if (n == 0 || sqlite3_exec(h, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
        return;
    static const char *const steps[] = {
        "UPDATE runs SET status = 'interrupted', finished_at = datetime('now')"
        " WHERE id = ?1 AND status = 'running'",
        "UPDATE searches SET status = 'interrupted', ended_at = datetime('now')"
        " WHERE run_id = ?1 AND status = 'running'",
        "UPDATE requests SET run_id = NULL WHERE run_id = ?1 AND status = 'pending'",
    };
    int rc = SQLITE_OK;
    for (size_t k = 0; k < sizeof steps / sizeof *steps && rc == SQLITE_OK; k++) {
        st = NULL;
        rc = sqlite3_prepare_v2(h, steps[k], -1, &st, NULL);
        for (size_t i = 0; i < n && rc == SQLITE_OK; i++) {
            sqlite3_reset(st);
            if ((rc = sqlite3_bind_int64(st, 1, stale[i])) == SQLITE_OK &&
                (rc = sqlite3_step(st)) == SQLITE_DONE)
                rc = SQLITE_OK;
        }
        sqlite3_finalize(st);
    }
    if ((rc != SQLITE_OK || sqlite3_exec(h, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) &&
        !sqlite3_get_autocommit(h))
        (void)sqlite3_exec(h, "ROLLBACK", NULL, NULL, NULL); /* best effort: nothing to report */
}
