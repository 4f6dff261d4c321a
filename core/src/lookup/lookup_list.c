/* What a lookup handle's database holds, for applications and bindings that list it
 * (cutune/lookup.h): a recorded device by UUID or name, and every best config. */
#include "lookup_int.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

/* The mutex held. A name of several GPUs of one model gives the model: uuid "". */
static int find_device(CutuneLookup *h, const char *pattern, CutuneDeviceInfo *out,
                       CutuneError *err)
{
    memset(out, 0, sizeof *out);
    out->index = -1; /* not an ordinal of this process */
    CutuneDbModel m;
    int rc = cutune_db_find_model(h->db, pattern, &m, err);
    if (rc)
        return rc;
    cutune_copy_str(out->uuid, sizeof out->uuid, m.uuid);
    cutune_copy_str(out->name, sizeof out->name, m.name);
    out->cc_major = m.cc_major;
    out->cc_minor = m.cc_minor;
    out->sm_count = m.sm_count;
    out->total_mem = (uint64_t)m.total_mem;
    if (!m.uuid[0])
        return 0; /* a model: its GPUs' drivers may differ */
    sqlite3_stmt *st = NULL;
    int s =
        sqlite3_prepare_v2(cutune_db_sqlite(h->db),
                           "SELECT driver_version, runtime_version FROM devices WHERE uuid = ?1",
                           -1, &st, NULL);
    if (s == SQLITE_OK)
        s = sqlite3_bind_text(st, 1, out->uuid, -1, SQLITE_STATIC);
    if (s == SQLITE_OK && (s = sqlite3_step(st)) == SQLITE_ROW) {
        out->driver_version = sqlite3_column_int(st, 0);
        out->runtime_version = sqlite3_column_int(st, 1);
        s = SQLITE_DONE;
    }
    rc = s == SQLITE_DONE ? 0 : cutune_db_fail(h->db, err, s, "reading the device");
    sqlite3_finalize(st);
    return rc;
}

int cutune_device_find(CutuneLookup *h, const char *pattern, CutuneDeviceInfo *out,
                       CutuneError *err)
{
    if (!h || !pattern || !*pattern || !out)
        return cutune_error(err, CUTUNE_ERR_INVALID,
                            "cutune_device_find: a handle, a UUID or name, and a result are "
                            "needed");
    pthread_mutex_lock(&h->mu);
    int rc = find_device(h, pattern, out, err);
    pthread_mutex_unlock(&h->mu);
    return rc;
}

typedef struct List {
    CutuneLookupResult *r;
    size_t n, cap;
    int nomem;
    const char *too_long; /* the field a text did not fit (lookup_put) */
    int64_t too_long_trial;
    /* a model's name: only its GPUs' rows (every GPU of that name is of the model, or
     * cutune_db_find_model would have refused the pattern) */
    const char *model_name;
} List;

static int add_best(const CutuneBestRow *row, void *user)
{
    List *l = user;
    if (l->model_name && strcmp(row->device_name, l->model_name) != 0)
        return 0;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        CutuneLookupResult *r = realloc(l->r, cap * sizeof *r);
        if (!r) {
            l->nomem = 1;
            return 1;
        }
        l->r = r;
        l->cap = cap;
    }
    CutuneLookupResult *r = &l->r[l->n++];
    memset(r, 0, sizeof *r);
    r->match = CUTUNE_MATCH_EXACT;
    const char *bad = NULL;
    lookup_put(r->op, sizeof r->op, row->op, "op", &bad);
    lookup_put(r->size, sizeof r->size, row->size, "size", &bad);
    lookup_put(r->tuned_size, sizeof r->tuned_size, row->size, "tuned_size", &bad);
    lookup_put(r->checked_size, sizeof r->checked_size, row->size, "checked_size", &bad);
    lookup_put(r->device_uuid, sizeof r->device_uuid, row->device_uuid, "device_uuid", &bad);
    lookup_put(r->device_name, sizeof r->device_name, row->device_name, "device_name", &bad);
    lookup_put(r->variant, sizeof r->variant, row->variant, "variant", &bad);
    lookup_put(r->variant_version, sizeof r->variant_version, row->variant_version,
               "variant_version", &bad);
    lookup_put(r->config, sizeof r->config, row->config, "config", &bad);
    if (bad) {
        l->too_long = bad;
        l->too_long_trial = row->trial_id;
        l->n--;
        return 1;
    }
    r->median_ms = row->median_ms;
    r->gflops = row->gflops;
    r->trial_id = row->trial_id;
    return 0;
}

int cutune_best_list(CutuneLookup *h, const char *device, const char *op, CutuneLookupResult **list,
                     size_t *count, CutuneError *err)
{
    if (list)
        *list = NULL;
    if (count)
        *count = 0;
    if (!h || !list || !count)
        return cutune_error(err, CUTUNE_ERR_INVALID,
                            "cutune_best_list: a handle, a list and a count are needed");
    List l = {0};
    CutuneDeviceInfo dev;
    int rc = 0;
    pthread_mutex_lock(&h->mu);
    if (device && *device)
        rc = find_device(h, device, &dev, err);
    if (rc == 0) {
        if (device && *device && !dev.uuid[0])
            l.model_name = dev.name;
        rc = cutune_db_best_foreach(h->db, device && *device && dev.uuid[0] ? dev.uuid : NULL,
                                    op && *op ? op : NULL, add_best, &l, err);
        if (rc == 0 && l.nomem)
            rc = cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory listing the best configs");
        if (rc == 0 && l.too_long)
            rc = cutune_error(err, CUTUNE_ERR_RANGE,
                              "%s: the best config of trial %lld has a %s too long for "
                              "CutuneLookupResult; it is not listed rather than cut",
                              h->path, (long long)l.too_long_trial, l.too_long);
    }
    pthread_mutex_unlock(&h->mu);
    if (rc) {
        free(l.r);
        return rc;
    }
    *list = l.r;
    *count = l.n;
    return 0;
}

void cutune_best_list_free(CutuneLookupResult **list)
{
    if (!list)
        return;
    free(*list);
    *list = NULL;
}
