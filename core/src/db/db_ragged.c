/* Configs checked at a ragged size near the size they were tuned for (migration 0004): the
 * record that lets a best answer other sizes (see db.h). */
#include "db_int.h"

#include <string.h>

#include <sqlite3.h>

static int ragged_row(sqlite3_stmt *st, void *user)
{
    CutuneRaggedCheck *out = user;
    out->found = 1;
    out->passed = sqlite3_column_int(st, 0);
    out->error = sqlite3_column_double(st, 1);
    (void)db_col_copy(out->ragged_size, sizeof out->ragged_size, st, 2);
    return 1;
}

int cutune_db_ragged_find(CutuneDb *db, int64_t device_id, int64_t variant_id, int64_t problem_id,
                          const char *config, CutuneRaggedCheck *out, CutuneError *err)
{
    if (!db || !config || !out)
        return cutune_error(err, CUTUNE_ERR_INVALID, "cutune_db_ragged_find: missing argument");
    memset(out, 0, sizeof *out);
    return db_each_row_of(db,
                          "SELECT passed, error, ragged_size FROM ragged_checks"
                          " WHERE device_id = ?1 AND variant_id = ?2 AND problem_id = ?3"
                          " AND config = ?4",
                          ragged_row, out, "reading a ragged-size check", err, "iiit", device_id,
                          variant_id, problem_id, config);
}

int cutune_db_ragged_add(CutuneDb *db, const CutuneRaggedRecord *r, CutuneError *err)
{
    if (!db || !r || !r->config || !r->ragged_size)
        return cutune_error(err, CUTUNE_ERR_INVALID, "cutune_db_ragged_add: missing argument");
    return db_exec(
        db, err, "recording a ragged-size check",
        "INSERT INTO ragged_checks (run_id, device_id, variant_id, problem_id, config,"
        " ragged_size, passed, error, message) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"
        " ON CONFLICT (device_id, variant_id, problem_id, config) DO UPDATE SET"
        " run_id = excluded.run_id, ragged_size = excluded.ragged_size,"
        " passed = excluded.passed, error = excluded.error,"
        " message = excluded.message, created_at = datetime('now')",
        "Iiiittidt", r->run_id, r->device_id, r->variant_id, r->problem_id, r->config,
        r->ragged_size, (int64_t)(r->passed ? 1 : 0), r->error, r->message);
}
