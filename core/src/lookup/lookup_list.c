/* What a lookup handle's database holds, for applications and bindings that list it
 * (cutune/lookup.h): a recorded device by UUID or name, and every best config. */
#include "lookup_int.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

/* The mutex held. */
static int find_device(CutuneLookup *h, const char *pattern, CutuneDeviceInfo *out,
                       CutuneError *err)
{
    memset(out, 0, sizeof *out);
    int rc = cutune_db_find_device(h->db, pattern, out->uuid, sizeof out->uuid, err);
    if (rc)
        return rc;
    sqlite3_stmt *st = NULL;
    int s = sqlite3_prepare_v2(cutune_db_sqlite(h->db),
                               "SELECT name, cc_major, cc_minor, sm_count, total_mem,"
                               " driver_version, runtime_version FROM devices WHERE uuid = ?1",
                               -1, &st, NULL);
    if (s == SQLITE_OK)
        s = sqlite3_bind_text(st, 1, out->uuid, -1, SQLITE_STATIC);
    if (s == SQLITE_OK && (s = sqlite3_step(st)) == SQLITE_ROW) {
        cutune_copy_str(out->name, sizeof out->name, (const char *)sqlite3_column_text(st, 0));
        out->cc_major = sqlite3_column_int(st, 1);
        out->cc_minor = sqlite3_column_int(st, 2);
        out->sm_count = sqlite3_column_int(st, 3);
        out->total_mem = (uint64_t)sqlite3_column_int64(st, 4);
        out->driver_version = sqlite3_column_int(st, 5);
        out->runtime_version = sqlite3_column_int(st, 6);
        out->index = -1; /* not an ordinal of this process */
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
} List;

static int add_best(const CutuneBestRow *row, void *user)
{
    List *l = user;
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
    cutune_copy_str(r->op, sizeof r->op, row->op);
    cutune_copy_str(r->size, sizeof r->size, row->size);
    cutune_copy_str(r->tuned_size, sizeof r->tuned_size, row->size);
    cutune_copy_str(r->device_uuid, sizeof r->device_uuid, row->device_uuid);
    cutune_copy_str(r->device_name, sizeof r->device_name, row->device_name);
    cutune_copy_str(r->variant, sizeof r->variant, row->variant);
    cutune_copy_str(r->variant_version, sizeof r->variant_version, row->variant_version);
    cutune_copy_str(r->config, sizeof r->config, row->config);
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
        rc = cutune_db_best_foreach(h->db, device && *device ? dev.uuid : NULL,
                                    op && *op ? op : NULL, add_best, &l, err);
        if (rc == 0 && l.nomem)
            rc = cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory listing the best configs");
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
