/* GPU models (migration 0005): which recorded GPUs share their results, found by a name or
 * a UUID, and a model's best config (see db.h). */
#include "db_int.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

#include <sqlite3.h>

/* The columns that make a model, in this order, after the UUID (column 0). */
#define MODEL_COLUMNS "uuid, name, cc_major, cc_minor, sm_count, total_mem"

static void model_from_row(sqlite3_stmt *st, CutuneDbModel *m)
{
    memset(m, 0, sizeof *m);
    (void)db_col_copy(m->uuid, sizeof m->uuid, st, 0);
    (void)db_col_copy(m->name, sizeof m->name, st, 1);
    m->cc_major = sqlite3_column_int(st, 2);
    m->cc_minor = sqlite3_column_int(st, 3);
    m->sm_count = sqlite3_column_int(st, 4);
    m->total_mem = sqlite3_column_int64(st, 5);
}

/* Same model: every field equal, and known (a GPU of unknown SM count or memory is its own). */
static int same_model(const CutuneDbModel *a, const CutuneDbModel *b)
{
    return a->sm_count > 0 && a->total_mem > 0 && strcmp(a->name, b->name) == 0 &&
           a->cc_major == b->cc_major && a->cc_minor == b->cc_minor && a->sm_count == b->sm_count &&
           a->total_mem == b->total_mem;
}

/* How many GPUs of the database are m's model (1 for a model of unknown fields). */
static int model_gpus(CutuneDb *db, CutuneDbModel *m, CutuneError *err)
{
    if (m->sm_count <= 0 || m->total_mem <= 0) {
        m->gpus = 1;
        return 0;
    }
    sqlite3_stmt *st = NULL;
    int rc = db_prepare(db, &st,
                        "SELECT count(*) FROM devices WHERE name = ?1 AND cc_major = ?2"
                        " AND cc_minor = ?3 AND sm_count = ?4 AND total_mem = ?5",
                        "tiiii", m->name, (int64_t)m->cc_major, (int64_t)m->cc_minor,
                        (int64_t)m->sm_count, m->total_mem);
    if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        m->gpus = sqlite3_column_int(st, 0);
        rc = SQLITE_DONE;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : cutune_db_fail(db, err, rc, "counting a model's GPUs");
}

/* Append "NAME (UUID, N SMs, X GiB)" to list[len] at *used. */
static void list_gpu(char *list, size_t len, size_t *used, const CutuneDbModel *m, int first)
{
    if (*used >= len)
        return;
    int w = snprintf(list + *used, len - *used, "%s%s (%s, %d SMs, %.1f GiB)", first ? "" : ", ",
                     m->name, m->uuid, m->sm_count, (double)m->total_mem / (1 << 30));
    *used += w > 0 ? (size_t)w : 0;
}

int cutune_db_find_model(CutuneDb *db, const char *pattern, CutuneDbModel *out, CutuneError *err)
{
    if (!db || !pattern || !out)
        return cutune_error(err, CUTUNE_ERR_INVALID, "cutune_db_find_model: missing argument");
    memset(out, 0, sizeof *out);
    sqlite3_stmt *st = NULL;
    char list[1024] = "";
    size_t used = 0;
    int n = 0, models = 0, names_differ = 0, exact = 0;
    int rc = db_prepare(db, &st,
                        "SELECT " MODEL_COLUMNS ", uuid = ?1 AS exact FROM devices"
                        " WHERE uuid = ?1 OR instr(lower(name), lower(?1)) > 0"
                        " ORDER BY exact DESC, uuid",
                        "t", pattern);
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        rc = SQLITE_OK;
        CutuneDbModel m;
        model_from_row(st, &m);
        if (n == 0) {
            *out = m;
            exact = sqlite3_column_int(st, 6);
            models = 1;
        } else if (!same_model(out, &m)) {
            models++; /* a count of rows unlike the first: enough to say "several" */
            names_differ |= strcmp(out->name, m.name) != 0;
        }
        list_gpu(list, sizeof list, &used, &m, n == 0);
        if (n++ == 0 && exact) { /* an exact UUID wins */
            rc = SQLITE_DONE;
            break;
        }
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return cutune_db_fail(db, err, rc, "looking up the device");
    if (n == 0)
        return cutune_error(err, CUTUNE_ERR_NOT_FOUND,
                            "database %s has no device with UUID or name matching '%s'; list "
                            "them with: sqlite3 %s 'SELECT * FROM device_models'",
                            db->path, pattern, db->path);
    if (models > 1) {
        const char *why =
            names_differ ? "they have different names: give more of the name, or a UUID"
                         : "GPUs with one name but a different SM count or memory are separate "
                           "models, whose results are kept apart: give the UUID of one";
        int code = cutune_error(err, CUTUNE_ERR_INVALID,
                                "'%s' matches %d GPUs of more than one model in %s: %s%s; %s "
                                "(e.g. --device %s)",
                                pattern, n, db->path, list, used >= sizeof list ? "..." : "", why,
                                out->uuid);
        memset(out, 0, sizeof *out);
        return code;
    }
    if (n > 1)
        out->uuid[0] = '\0'; /* the model, not one of its GPUs */
    return model_gpus(db, out, err);
}

int cutune_db_device_clocks(CutuneDb *db, int64_t device_id, int sm_clock_khz, int mem_clock_khz,
                            CutuneError *err)
{
    if (sm_clock_khz <= 0 && mem_clock_khz <= 0)
        return 0;
    return db_exec(db, err, "recording the device's clocks",
                   "UPDATE devices SET sm_clock_khz = coalesce(?2, sm_clock_khz),"
                   " mem_clock_khz = coalesce(?3, mem_clock_khz) WHERE id = ?1",
                   "iII", device_id, (int64_t)sm_clock_khz, (int64_t)mem_clock_khz);
}

typedef struct SplitCallback {
    int (*fn)(const char *name, int models, int gpus, void *user);
    void *user;
} SplitCallback;

static int split_row(sqlite3_stmt *st, void *user)
{
    const SplitCallback *cb = user;
    return cb->fn(db_col_text(st, 0), sqlite3_column_int(st, 1), sqlite3_column_int(st, 2),
                  cb->user);
}

int cutune_db_split_names(CutuneDb *db,
                          int (*fn)(const char *name, int models, int gpus, void *user), void *user,
                          CutuneError *err)
{
    if (!db || !fn)
        return cutune_error(err, CUTUNE_ERR_INVALID, "cutune_db_split_names: no callback");
    SplitCallback cb = {fn, user};
    return db_each_row_of(db,
                          "SELECT name, count(DISTINCT model_id), count(*) FROM device_models"
                          " GROUP BY name HAVING count(DISTINCT model_id) > 1 ORDER BY name",
                          split_row, &cb, "reading the GPU models", err, "");
}
