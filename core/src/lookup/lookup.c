/* Lookups for applications (cutune/lookup.h): the handle, the fallback ladder over the
 * database's best configs, the in-memory cache, and recording misses as requests. */
#include "lookup_int.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

/* Columns of every ladder query, read by read_row in this order. */
/* Column 9: the ragged size near p.size at which the config passed its check on that
 * device (migration 0004), NULL when it did not or was never checked so. */
#define ROW_COLUMNS \
    "t.id, d.uuid, d.name, p.size, v.name, v.version, t.config, t.median_ms, t.gflops," \
    " (SELECT r.ragged_size FROM ragged_checks r WHERE r.device_id = b.device_id" \
    "  AND r.variant_id = t.variant_id AND r.problem_id = b.problem_id" \
    "  AND r.config = t.config AND r.passed = 1)"
#define ROW_FROM \
    " FROM best b JOIN devices d ON d.id = b.device_id" \
    " JOIN problems p ON p.id = b.problem_id JOIN trials t ON t.id = b.trial_id" \
    " JOIN variants v ON v.id = t.variant_id"

/* The other GPUs of a model (migration 0005): name, compute capability, SM count and memory
 * equal, the asking GPU (?6) left out. */
#define MODEL_WHERE \
    "d.name = ?1 AND d.cc_major = ?2 AND d.cc_minor = ?3 AND d.sm_count = ?4" \
    " AND d.total_mem = ?5 AND d.uuid <> ?6 AND p.op = ?7"

void cutune_lookup_default_settings(CutuneLookupSettings *s)
{
    memset(s, 0, sizeof *s);
    s->plugin_distance = 1;
}

const char *cutune_match_name(CutuneMatch m)
{
    switch (m) {
    case CUTUNE_MATCH_NONE: return "none";
    case CUTUNE_MATCH_EXACT: return "exact";
    case CUTUNE_MATCH_NEAREST: return "nearest";
    case CUTUNE_MATCH_SAME_ARCH: return "same_arch";
    case CUTUNE_MATCH_SAME_MODEL: return "same_model";
    }
    return "unknown";
}

static const char *col(sqlite3_stmt *st, int i)
{
    const unsigned char *s = sqlite3_column_text(st, i);
    return s ? (const char *)s : "";
}

/* A row into out; CUTUNE_ERR_RANGE when a text does not fit its field (never cut). */
static int read_row(CutuneLookup *h, sqlite3_stmt *st, CutuneLookupResult *out, CutuneError *err)
{
    const char *bad = NULL;
    out->trial_id = sqlite3_column_int64(st, 0);
    lookup_put(out->device_uuid, sizeof out->device_uuid, col(st, 1), "device_uuid", &bad);
    lookup_put(out->device_name, sizeof out->device_name, col(st, 2), "device_name", &bad);
    lookup_put(out->tuned_size, sizeof out->tuned_size, col(st, 3), "tuned_size", &bad);
    lookup_put(out->variant, sizeof out->variant, col(st, 4), "variant", &bad);
    lookup_put(out->variant_version, sizeof out->variant_version, col(st, 5), "variant_version",
               &bad);
    lookup_put(out->config, sizeof out->config, col(st, 6), "config", &bad);
    out->median_ms = sqlite3_column_double(st, 7);
    out->gflops = sqlite3_column_double(st, 8);
    lookup_put(out->checked_size, sizeof out->checked_size, col(st, 9), "checked_size", &bad);
    if (bad)
        return cutune_error(err, CUTUNE_ERR_RANGE,
                            "%s: the best config of trial %lld has a %s too long for "
                            "CutuneLookupResult; it is not answered rather than cut",
                            h->path, (long long)out->trial_id, bad);
    return 0;
}

/* ---- open and close ---------------------------------------------------------------- */

static int prepare(CutuneLookup *h, const char *sql, sqlite3_stmt **st, CutuneError *err)
{
    int rc = sqlite3_prepare_v3(cutune_db_sqlite(h->db), sql, -1, SQLITE_PREPARE_PERSISTENT, st,
                                NULL);
    return rc == SQLITE_OK ? 0 : cutune_db_fail(h->db, err, rc, "preparing the lookup queries");
}

int cutune_open(CutuneLookup **out, const CutuneLookupSettings *s, CutuneError *err)
{
    if (!out)
        return cutune_error(err, CUTUNE_ERR_INVALID, "cutune_open: no place for the handle");
    *out = NULL;
    CutuneLookup *h = calloc(1, sizeof *h);
    if (!h)
        return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory opening the tuning database");
    if (s)
        h->s = *s;
    else
        cutune_lookup_default_settings(&h->s);
    int rc;
    char path[4096];
    if (h->s.db_path)
        cutune_copy_str(path, sizeof path, h->s.db_path);
    else if ((rc = cutune_db_default_path(path, sizeof path, err))) {
        free(h);
        return rc;
    }
    h->s.db_path = NULL; /* the caller's string need not outlive cutune_open */
    if (pthread_mutex_init(&h->mu, NULL) != 0) {
        free(h);
        return cutune_error(err, CUTUNE_ERR_NOMEM, "cannot create the lookup handle's mutex");
    }
    if (!(h->path = strdup(path))) {
        rc = cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory opening the tuning database");
        goto fail;
    }
    if ((rc = cutune_db_open(path, CUTUNE_DB_READONLY, &h->db, err)) ||
        (rc = prepare(h,
                      "SELECT " ROW_COLUMNS ROW_FROM
                      " WHERE d.uuid = ?1 AND p.op = ?2 AND p.size = ?3",
                      &h->q_exact, err)) ||
        (rc = prepare(h, "SELECT " ROW_COLUMNS ROW_FROM " WHERE d.uuid = ?1 AND p.op = ?2",
                      &h->q_device, err)) ||
        (rc = prepare(h,
                      "SELECT " ROW_COLUMNS ROW_FROM
                      " WHERE d.cc_major = ?1 AND d.cc_minor = ?2 AND d.uuid <> ?3"
                      " AND p.op = ?4",
                      &h->q_arch, err)) ||
        (rc = prepare(h,
                      "SELECT name, cc_major, cc_minor, sm_count, total_mem FROM devices"
                      " WHERE uuid = ?1",
                      &h->q_dev, err)) ||
        (rc = prepare(h,
                      "SELECT " ROW_COLUMNS ROW_FROM " WHERE " MODEL_WHERE
                      " AND p.size = ?8 ORDER BY t.median_ms, t.id LIMIT 1",
                      &h->q_model_exact, err)) ||
        (rc = prepare(h, "SELECT " ROW_COLUMNS ROW_FROM " WHERE " MODEL_WHERE, &h->q_model, err)))
        goto fail;
    *out = h;
    return 0;
fail:
    cutune_close(&h);
    return rc;
}

void cutune_close(CutuneLookup **hp)
{
    if (!hp || !*hp)
        return;
    CutuneLookup *h = *hp;
    cutune_lookup_kernels_free(h);
    if (h->reg_state == 1)
        cutune_registry_free(&h->reg);
    sqlite3_finalize(h->q_exact);
    sqlite3_finalize(h->q_device);
    sqlite3_finalize(h->q_arch);
    sqlite3_finalize(h->q_dev);
    sqlite3_finalize(h->q_model_exact);
    sqlite3_finalize(h->q_model);
    cutune_db_close(&h->db);
    cutune_db_close(&h->rw);
    cutune_lookup_cache_free(&h->cache);
    pthread_mutex_destroy(&h->mu);
    free(h->path);
    free(h);
    *hp = NULL;
}

int cutune_lookup_registry(CutuneLookup *h, CutuneError *err)
{
    if (h->reg_state == 0) {
        CutuneError e = {0};
        h->reg_state = cutune_registry_load(&h->reg, &e) == 0 ? 1 : -1;
        if (h->reg_state < 0)
            return cutune_error(err, e.code, "%s", e.msg);
    }
    return h->reg_state == 1 ? 0
                             : cutune_error(err, CUTUNE_ERR_PLUGIN,
                                            "the cutune plugins could not be loaded earlier in "
                                            "this handle; close it and open another");
}

/* ---- the ladder ---------------------------------------------------------------------- */

typedef double (*DistanceFn)(const CutuneProblem *a, const CutuneProblem *b);

/* sqrt(sum_i (ln a_i - ln b_i)^2): a size twice as large is as far as one half as large. */
static double log_distance(const CutuneProblem *a, const CutuneProblem *b)
{
    double sum = 0;
    for (int i = 0; i < a->ndims; i++) {
        double d = log((double)a->dim[i]) - log((double)b->dim[i]);
        sum += d * d;
    }
    return sqrt(sum);
}

/* The op's own distance when asked for and provided, else the log distance. */
static DistanceFn distance_for(CutuneLookup *h, const char *op)
{
    if (!h->s.plugin_distance || cutune_lookup_registry(h, NULL) != 0)
        return log_distance;
    CutuneDistanceFn fn = cutune_op_distance(cutune_registry_op(&h->reg, op));
    return fn ? fn : log_distance;
}

/* The best candidate so far of a nearest or same-arch step. */
typedef struct Candidate {
    int found;
    int own;          /* tuned on the asking GPU itself */
    size_t unchecked; /* bests of other sizes skipped: never checked at a ragged size */
    double distance;
    CutuneProblem p;
    CutuneLookupResult r;
} Candidate;

/* Is (d, p) tuned on `uuid` (`own`: the asking GPU) in `median_ms` better than the
 * candidate? Deterministic: distance, then the smaller dimensions in order; at one size,
 * the asking GPU's own best, then the faster (GPUs of one model), then the device UUID. */
static int better(const Candidate *c, double d, const CutuneProblem *p, const char *uuid, int own,
                  double median_ms)
{
    if (!c->found)
        return 1;
    /* Equal within rounding: ln 2048 - ln 1024 and ln 4096 - ln 2048 may differ in the
     * last bit, and a tie must not be decided by that. */
    double tol = 1e-12 * (d > c->distance ? d : c->distance);
    if (d < c->distance - tol)
        return 1;
    if (d > c->distance + tol)
        return 0;
    for (int i = 0; i < p->ndims; i++)
        if (p->dim[i] != c->p.dim[i])
            return p->dim[i] < c->p.dim[i];
    if (own != c->own)
        return own;
    if (median_ms != c->r.median_ms)
        return median_ms < c->r.median_ms;
    return strcmp(uuid, c->r.device_uuid) < 0;
}

/* Step a bound ladder query over its rows, keeping the nearest to `want` (canonical
 * `size`); `own`: its rows are the asking GPU's. A config tuned at another size is a
 * candidate only when it passed its check at a ragged size near its own (ragged.c in the
 * tuner); c->unchecked counts the others. Resets st. */
static int scan_nearest(CutuneLookup *h, sqlite3_stmt *st, const CutuneProblem *want,
                        const char *size, DistanceFn dist, int own, Candidate *c, CutuneError *err)
{
    int rc, code = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        CutuneProblem p;
        if (cutune_problem_parse(col(st, 3), &p, NULL) != 0 || p.ndims != want->ndims ||
            p.dtype != want->dtype || p.layout != want->layout || p.epilogue != want->epilogue)
            continue; /* another shape, element type, layout or epilogue: not an answer */
        if (strcmp(col(st, 3), size) != 0 && sqlite3_column_type(st, 9) == SQLITE_NULL) {
            c->unchecked++;
            continue;
        }
        double d = dist(want, &p);
        if (!(d >= 0)) /* NaN or negative from a plugin: not a usable answer */
            continue;
        if (better(c, d, &p, col(st, 1), own, sqlite3_column_double(st, 7))) {
            c->found = 1;
            c->own = own;
            c->distance = d;
            c->p = p;
            if ((code = read_row(h, st, &c->r, err)))
                break;
            if (strcmp(col(st, 3), size) == 0) /* its own size: checked there */
                cutune_copy_str(c->r.checked_size, sizeof c->r.checked_size, size);
        }
    }
    if (code == 0 && rc != SQLITE_DONE)
        code = cutune_db_fail(h->db, err, rc, "looking up a config");
    sqlite3_reset(st);
    return code;
}

/* A model with its SM count and memory known has other GPUs; one without (a device recorded
 * by an older cutune with zeros, or given by a UUID alone and never tuned) is its own:
 * its name and compute capability alone do not tell two models apart. */
int cutune_lookup_model_known(const CutuneLookupModel *m)
{
    return m->name[0] && m->cc_major > 0 && m->sm_count > 0 && m->total_mem > 0;
}

int cutune_lookup_model(CutuneLookup *h, const CutuneDeviceInfo *dev, CutuneLookupModel *m,
                        CutuneError *err)
{
    memset(m, 0, sizeof *m);
    cutune_copy_str(m->name, sizeof m->name, dev->name);
    m->cc_major = dev->cc_major;
    m->cc_minor = dev->cc_minor;
    m->sm_count = dev->sm_count;
    m->total_mem = (int64_t)dev->total_mem;
    if (cutune_lookup_model_known(m) || !dev->uuid[0])
        return 0;
    int rc = sqlite3_bind_text(h->q_dev, 1, dev->uuid, -1, SQLITE_STATIC);
    if (rc == SQLITE_OK && (rc = sqlite3_step(h->q_dev)) == SQLITE_ROW) {
        if (dev->cc_major <= 0) { /* a compute capability given wins, as it always did */
            m->cc_major = sqlite3_column_int(h->q_dev, 1);
            m->cc_minor = sqlite3_column_int(h->q_dev, 2);
        }
        cutune_copy_str(m->name, sizeof m->name, col(h->q_dev, 0));
        m->sm_count = sqlite3_column_int(h->q_dev, 3);
        m->total_mem = sqlite3_column_int64(h->q_dev, 4);
        rc = SQLITE_DONE;
    }
    int code = rc == SQLITE_DONE ? 0 : cutune_db_fail(h->db, err, rc, "looking up the device");
    sqlite3_reset(h->q_dev);
    return code;
}

int cutune_lookup_bind_model(sqlite3_stmt *st, const CutuneLookupModel *m, const char *uuid,
                             const char *op)
{
    int rc = sqlite3_bind_text(st, 1, m->name, -1, SQLITE_STATIC);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int(st, 2, m->cc_major);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int(st, 3, m->cc_minor);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int(st, 4, m->sm_count);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(st, 5, m->total_mem);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_text(st, 6, uuid, -1, SQLITE_STATIC);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_text(st, 7, op, -1, SQLITE_STATIC);
    return rc;
}

/* An exact size from a query bound through ?7 (q_exact's ?1 to ?3 likewise): 1 with out
 * filled, 0 for no row, or a negative error. Resets st. */
static int exact_size(CutuneLookup *h, sqlite3_stmt *st, int rc, int size_param, CutuneMatch match,
                      CutuneLookupResult *out, CutuneError *err)
{
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_text(st, size_param, out->size, -1, SQLITE_STATIC);
    int code = 0;
    if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        code = read_row(h, st, out, err);
        cutune_copy_str(out->checked_size, sizeof out->checked_size, out->size);
        out->match = code == 0 ? match : CUTUNE_MATCH_NONE;
        code = code == 0 ? 1 : code;
    } else if (rc != SQLITE_DONE) {
        code = cutune_db_fail(h->db, err, rc, "looking up a config");
    }
    sqlite3_reset(st);
    return code;
}

/* Nothing on any step: CUTUNE_ERR_NOT_FOUND saying where it looked. */
static int ladder_miss(CutuneLookup *h, const CutuneDeviceInfo *dev, const CutuneLookupModel *m,
                       const char *op, const char *size, const Candidate *c, CutuneError *err)
{
    char cc[128] = "an unknown compute capability (pass cc_major or tune this device once)";
    if (m->cc_major > 0)
        snprintf(cc, sizeof cc, "compute capability %d.%d", m->cc_major, m->cc_minor);
    char skipped[200] = "";
    if (c->unchecked)
        snprintf(skipped, sizeof skipped,
                 " (%zu configs tuned at other sizes were never checked at a ragged size "
                 "near theirs, so they answer only their own: a run of those sizes checks "
                 "them)",
                 c->unchecked);
    return cutune_error(err, CUTUNE_ERR_NOT_FOUND,
                        "%s: no verified config for %s %s on device %s, at any size on it or "
                        "on a GPU of its model, or on another device of %s%s; tune it on that "
                        "device: cutune run %s --size %s",
                        h->path, op, size, dev->uuid[0] ? dev->uuid : m->name, cc, skipped, op,
                        size);
}

/* Walk the ladder for a canonical size. 0 with out filled, NOT_FOUND, or an error. A device
 * without a UUID is a model (cutune_device_find of a name that several GPUs of one model
 * share): its first step is the second, over every GPU of the model. */
static int ladder(CutuneLookup *h, const CutuneDeviceInfo *dev, const char *op,
                  const CutuneProblem *want, CutuneLookupResult *out, CutuneError *err)
{
    sqlite3_stmt *st = h->q_exact;
    int rc;
    if (dev->uuid[0]) { /* 1: this GPU, this size */
        rc = sqlite3_bind_text(st, 1, dev->uuid, -1, SQLITE_STATIC);
        if (rc == SQLITE_OK)
            rc = sqlite3_bind_text(st, 2, op, -1, SQLITE_STATIC);
        if ((rc = exact_size(h, st, rc, 3, CUTUNE_MATCH_EXACT, out, err)) != 0)
            return rc > 0 ? 0 : rc;
    }
    CutuneLookupModel m;
    if ((rc = cutune_lookup_model(h, dev, &m, err)))
        return rc;
    int known = cutune_lookup_model_known(&m);
    if (known) { /* 2: another GPU of its model, this size: the fastest of them */
        rc = cutune_lookup_bind_model(h->q_model_exact, &m, dev->uuid, op);
        rc = exact_size(h, h->q_model_exact, rc, 8, CUTUNE_MATCH_SAME_MODEL, out, err);
        if (rc != 0)
            return rc > 0 ? 0 : rc;
    }

    /* 3: the nearest size on this GPU or its model */
    DistanceFn dist = distance_for(h, op);
    Candidate c = {0};
    st = h->q_device;
    if (dev->uuid[0]) {
        if ((rc = sqlite3_bind_text(st, 1, dev->uuid, -1, SQLITE_STATIC)) != SQLITE_OK ||
            (rc = sqlite3_bind_text(st, 2, op, -1, SQLITE_STATIC)) != SQLITE_OK)
            return cutune_db_fail(h->db, err, rc, "looking up a config");
        if ((rc = scan_nearest(h, st, want, out->size, dist, 1, &c, err)))
            return rc;
    }
    if (known) {
        if ((rc = cutune_lookup_bind_model(h->q_model, &m, dev->uuid, op)) != SQLITE_OK)
            return cutune_db_fail(h->db, err, rc, "looking up a config");
        if ((rc = scan_nearest(h, h->q_model, want, out->size, dist, 0, &c, err)))
            return rc;
    }
    CutuneMatch match = CUTUNE_MATCH_NEAREST;
    if (!c.found && m.cc_major > 0) { /* 4: the same architecture */
        st = h->q_arch;
        if ((rc = sqlite3_bind_int(st, 1, m.cc_major)) != SQLITE_OK ||
            (rc = sqlite3_bind_int(st, 2, m.cc_minor)) != SQLITE_OK ||
            (rc = sqlite3_bind_text(st, 3, dev->uuid, -1, SQLITE_STATIC)) != SQLITE_OK ||
            (rc = sqlite3_bind_text(st, 4, op, -1, SQLITE_STATIC)) != SQLITE_OK)
            return cutune_db_fail(h->db, err, rc, "looking up a config");
        if ((rc = scan_nearest(h, st, want, out->size, dist, 0, &c, err)))
            return rc;
        match = CUTUNE_MATCH_SAME_ARCH;
    }
    if (!c.found) /* 5: a miss */
        return ladder_miss(h, dev, &m, op, out->size, &c, err);
    char size[64];
    cutune_copy_str(size, sizeof size, out->size);
    *out = c.r;
    cutune_copy_str(out->op, sizeof out->op, op);
    cutune_copy_str(out->size, sizeof out->size, size);
    out->match = match;
    out->distance = c.distance;
    return 0;
}

/* Add the key to `requests` through the read-write connection (opened on first use).
 * Returns 1 when recorded; a failure is not the lookup's. */
static int record_request(CutuneLookup *h, const CutuneDeviceInfo *dev, const char *op,
                          const char *size, CutuneMatch match)
{
    if (!h->rw && !h->rw_failed && cutune_db_open(h->path, 0, &h->rw, NULL) != 0)
        h->rw_failed = 1;
    if (!h->rw)
        return 0;
    CutuneRequest r = {
        .device_uuid = dev->uuid,
        .device_name = dev->name,
        .cc_major = dev->cc_major,
        .cc_minor = dev->cc_minor,
        .op = op,
        .size = size,
        .answered_by = cutune_match_name(match),
    };
    return cutune_db_request_add(h->rw, &r, NULL) == 0;
}

/* The op's own size rules, as `cutune run` and `cutune query` apply them (matmul's "4096"
 * is 4096x4096x4096), where the plugins load. A size the op refuses is an error; *known is
 * 0 for an op that no installed plugin implements: neither may become a request, which
 * `cutune run --pending` could never tune. Without plugins the size is as written. */
static int op_size_rules(CutuneLookup *h, const char *op, const char *size, CutuneProblem *want,
                         int *known, CutuneError *err)
{
    *known = 1;
    pthread_mutex_lock(&h->mu); /* the registry loads once per handle */
    const CutuneOpDef *d = cutune_lookup_registry(h, NULL) == 0 ? cutune_registry_op(&h->reg, op)
                                                                : NULL;
    int loaded = h->reg_state == 1;
    pthread_mutex_unlock(&h->mu);
    char why[256] = "";
    if (loaded && !d)
        *known = 0;
    else if (d && cutune_op_problem_check(d->op, want, why, sizeof why) != 0)
        return cutune_error(err, CUTUNE_ERR_INVALID,
                            "cutune_lookup: '%s' is not a size of op %s: %s", size, op, why);
    return 0;
}

int cutune_lookup_size(CutuneLookup *h, const char *op, const char *size, CutuneProblem *want,
                       char *canonical, size_t len, int *known, CutuneError *err)
{
    int rc = cutune_problem_parse(size, want, err);
    if (rc || (rc = op_size_rules(h, op, size, want, known, err)))
        return rc;
    cutune_problem_format(want, canonical, len);
    return 0;
}

int cutune_lookup(CutuneLookup *h, const CutuneDeviceInfo *dev, const char *op, const char *size,
                  CutuneLookupResult *out, CutuneError *err)
{
    if (!out)
        return cutune_error(err, CUTUNE_ERR_INVALID, "cutune_lookup: no result to fill");
    memset(out, 0, sizeof *out);
    /* a device without a UUID is a model: its name, compute capability, SM count, memory */
    int model = dev && !dev->uuid[0] && dev->name[0] && dev->cc_major > 0 && dev->sm_count > 0 &&
                dev->total_mem > 0;
    if (!h || !dev || (!dev->uuid[0] && !model) || !op || !*op || !size)
        return cutune_error(err, CUTUNE_ERR_INVALID,
                            "cutune_lookup: a handle, a device with its UUID (or a model: its "
                            "name, compute capability, SM count and memory), an op and a size "
                            "are needed");
    CutuneProblem want;
    int known = 1;
    int rc = cutune_lookup_size(h, op, size, &want, out->size, sizeof out->size, &known, err);
    if (rc)
        return rc;
    cutune_copy_str(out->op, sizeof out->op, op);
    char key[512], who[400];
    if (model)
        snprintf(who, sizeof who, "model:%s:%d.%d:%d:%llu", dev->name, dev->cc_major, dev->cc_minor,
                 dev->sm_count, (unsigned long long)dev->total_mem);
    else
        cutune_copy_str(who, sizeof who, dev->uuid);
    if (!cutune_lookup_cache_key(key, sizeof key, who, op, out->size))
        return cutune_error(err, CUTUNE_ERR_RANGE, "cutune_lookup: device UUID or op too long");

    pthread_mutex_lock(&h->mu);
    const CutuneLookupCacheEntry *e = cutune_lookup_cache_get(&h->cache, key);
    if (e) {
        *out = e->result;
        out->recorded = 0; /* recorded once, by the lookup that filled the cache */
        rc = e->rc;
        pthread_mutex_unlock(&h->mu);
        if (rc == CUTUNE_ERR_NOT_FOUND)
            cutune_error(err, rc,
                         "%s: no verified config for %s %s on device %s, nearby or on "
                         "its architecture (answer cached by this handle)",
                         h->path, op, out->size, who);
        return rc;
    }
    CutuneError lerr = {0};
    /* the ladder's steps read one snapshot: a run committing meanwhile cannot make them
     * disagree; a failed begin leaves each step its own read */
    int snap = cutune_db_read_begin(h->db, NULL) == 0;
    rc = ladder(h, dev, op, &want, out, &lerr);
    if (snap)
        cutune_db_read_end(h->db);
    if (rc == 0 || rc == CUTUNE_ERR_NOT_FOUND) {
        if (rc != 0)
            out->match = CUTUNE_MATCH_NONE;
        /* an exact size from a GPU of the same model needs no tuning; a model has no UUID
         * to tune on */
        if (h->s.record_requests && known && !model && out->match != CUTUNE_MATCH_EXACT &&
            out->match != CUTUNE_MATCH_SAME_MODEL)
            out->recorded = record_request(h, dev, op, out->size, out->match);
        (void)cutune_lookup_cache_put(&h->cache, key, rc, out); /* no memory: just not cached */
    }
    pthread_mutex_unlock(&h->mu);
    if (rc)
        cutune_error(err, lerr.code, "%s", lerr.msg);
    return rc;
}
