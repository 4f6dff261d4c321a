/* The vendor yardstick recorded for a lookup's key (cutune/lookup.h): what an application
 * compares a tuned best with before it prefers cutune's kernel to the library's. */
#include "lookup_int.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

#include <sqlite3.h>

/* The newest yardstick of this GPU (?6) at this size (?7 op, ?8 size); else each other GPU
 * of its model's newest (?1 to ?5, cutune_lookup_bind_model), the fastest of them. */
static const char *const SQL_EXACT =
    "SELECT y.name, y.median_ms FROM yardsticks y JOIN devices d ON d.id = y.device_id"
    " JOIN problems p ON p.id = y.problem_id WHERE p.op = ?7 AND p.size = ?8 AND d.uuid = ?6"
    " ORDER BY y.id DESC LIMIT 1";
static const char *const SQL_MODEL =
    "SELECT y.name, y.median_ms FROM yardsticks y JOIN devices d ON d.id = y.device_id"
    " JOIN problems p ON p.id = y.problem_id WHERE p.op = ?7 AND p.size = ?8 AND d.uuid <> ?6"
    " AND d.name = ?1 AND d.cc_major = ?2 AND d.cc_minor = ?3 AND d.sm_count = ?4"
    " AND d.total_mem = ?5 AND y.id = (SELECT max(y2.id) FROM yardsticks y2"
    "  WHERE y2.device_id = y.device_id AND y2.problem_id = y.problem_id)"
    " ORDER BY y.median_ms, d.uuid LIMIT 1";

/* One step: 1 with *ms and name filled, 0 for no row, or a negative error. */
static int yardstick_step(CutuneLookup *h, const char *sql, const char *op, const char *size,
                          const char *uuid, const CutuneLookupModel *m, double *ms, char *name,
                          size_t name_len, CutuneError *err)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(cutune_db_sqlite(h->db), sql, -1, &st, NULL);
    if (rc == SQLITE_OK) /* SQL_EXACT reads none of the model's ?1 to ?5 */
        rc = cutune_lookup_bind_model(st, m, uuid, op);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_text(st, 8, size, -1, SQLITE_STATIC);
    int code = 0;
    if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        const unsigned char *n = sqlite3_column_text(st, 0);
        const char *text = n ? (const char *)n : "";
        *ms = sqlite3_column_double(st, 1);
        code = 1;
        if (name && name_len > strlen(text))
            memcpy(name, text, strlen(text) + 1);
        else if (name)
            code = cutune_error(err, CUTUNE_ERR_RANGE,
                                "%s: the yardstick name '%s' of %s %s does not fit %zu bytes; "
                                "pass a larger buffer (it is never cut)",
                                h->path, text, op, size, name_len);
    } else if (rc != SQLITE_DONE) {
        code = cutune_db_fail(h->db, err, rc, "reading a yardstick");
    }
    sqlite3_finalize(st);
    return code;
}

int cutune_lookup_yardstick(CutuneLookup *h, const CutuneDeviceInfo *dev, const char *op,
                            const char *size, double *median_ms, char *name, size_t name_len,
                            CutuneError *err)
{
    if (!h || !dev || !op || !*op || !size || !median_ms)
        return cutune_error(err, CUTUNE_ERR_INVALID,
                            "cutune_lookup_yardstick: a handle, a device, an op, a size and a "
                            "place for the time are needed");
    *median_ms = 0;
    if (name && name_len)
        name[0] = '\0';
    CutuneProblem want;
    char canon[64];
    int known = 1;
    int rc = cutune_lookup_size(h, op, size, &want, canon, sizeof canon, &known, err);
    if (rc)
        return rc;
    pthread_mutex_lock(&h->mu);
    CutuneLookupModel m;
    rc = cutune_lookup_model(h, dev, &m, err);
    int model = cutune_lookup_model_known(&m);
    if (rc == 0 && !dev->uuid[0] && !model)
        rc = cutune_error(err, CUTUNE_ERR_INVALID,
                          "cutune_lookup_yardstick: a device with its UUID, or a model (its "
                          "name, compute capability, SM count and memory), is needed");
    if (rc == 0 && dev->uuid[0])
        rc = yardstick_step(h, SQL_EXACT, op, canon, dev->uuid, &m, median_ms, name, name_len, err);
    if (rc == 0 && model)
        rc = yardstick_step(h, SQL_MODEL, op, canon, dev->uuid, &m, median_ms, name, name_len, err);
    pthread_mutex_unlock(&h->mu);
    if (rc == 0)
        return cutune_error(err, CUTUNE_ERR_NOT_FOUND,
                            "%s: no vendor yardstick recorded for %s %s on device %s or a GPU "
                            "of its model; a run of that size measures one: cutune run %s "
                            "--size %s",
                            h->path, op, canon, dev->uuid[0] ? dev->uuid : m.name, op, canon);
    return rc > 0 ? 0 : rc;
}
