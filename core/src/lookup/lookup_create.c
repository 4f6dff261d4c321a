/* An empty tuning database for an application that records what it meets before anything
 * was tuned (Python's cutune.record()): cutune_open opens only an existing database, so that
 * a mistyped path is an error rather than a new file. */
#include "db.h"
#include "util.h"

#include "cutune/lookup.h"

int cutune_db_create(const char *path, CutuneError *err)
{
    char def[4096];
    int rc;
    if (!path || !*path) {
        if ((rc = cutune_db_default_path(def, sizeof def, err)))
            return rc;
        path = def;
    }
    CutuneDb *db = NULL;
    if ((rc = cutune_db_open(path, 0, &db, err)))
        return rc;
    cutune_db_close(&db);
    return 0;
}
