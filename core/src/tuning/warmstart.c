/* The warm start of a job: the configs most likely to win, measured first.
 *
 * In order: the job's own best configs that the database holds (free: already measured);
 * the configs that only trials imported from another tool hold here (unchecked, fastest of
 * their foreign times first);
 * the variant's best configs at this size on other devices of the same model, then at the
 * other sizes on this device or the same model, nearest size first; then the space's
 * shipped list of known-good configs (`<variant>.known` beside its INI file: one config per
 * line, `#` comments; a line that leaves parameters out stands for every valid config with
 * the values it gives, up to KNOWN_PER_LINE of them). */
#include "tune_int.h"
#include "util.h"
#include "variant_plugin.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    OWN_BEST = 4,
    DB_PER_PROBLEM = 3,
    KNOWN_PER_LINE = 4,
    DB_ROWS_MAX = 4096,
    WARM_MAX = 32, /* warm-start configs a variant measures first */
    /* a library variant's: its configs compile nothing and take a millisecond or so each,
     * and its shipped list may name the library's own ranking whole (matmul_cublaslt: 36) */
    WARM_MAX_LIBRARY = 64,
    PROBES = 8, /* what a variant with no warm start measures to show its level */
};

typedef struct WarmCand {
    char *config;
    int same_size, rank;
    double relative, distance;
} WarmCand;

typedef struct WarmList {
    TuneJob *j;
    size_t *out;
    size_t n, max;
    uint8_t *taken;
    int64_t *values;
    unsigned char *named;
    WarmCand *cands;
    size_t ncands;
} WarmList;

static void take(WarmList *w, size_t idx)
{
    if (w->n < w->max && !w->taken[idx]) {
        w->taken[idx] = 1;
        w->out[w->n++] = idx;
    }
}

static double size_distance(const CutuneProblem *a, const char *size)
{
    CutuneProblem b;
    if (cutune_problem_parse(size, &b, NULL) != 0 || b.ndims != a->ndims)
        return INFINITY;
    double d = 0;
    for (int i = 0; i < a->ndims; i++) {
        double x = log((double)a->dim[i]) - log((double)b.dim[i]);
        d += x * x;
    }
    return d;
}

static int db_row(const CutuneWarmRow *row, void *user)
{
    WarmList *w = user;
    if (w->ncands >= DB_ROWS_MAX)
        return 1;
    WarmCand *c = &w->cands[w->ncands];
    if (!(c->config = strdup(row->config)))
        return 1;
    c->same_size = strcmp(row->size, w->j->ts->size) == 0;
    c->rank = row->rank;
    c->relative = row->relative;
    c->distance = size_distance(&w->j->ts->prob, row->size);
    w->ncands++;
    return 0;
}

/* Same size first, then better ranks, closer times to their size's best, nearer sizes. */
static int cand_cmp(const void *pa, const void *pb)
{
    const WarmCand *a = pa, *b = pb;
    if (a->same_size != b->same_size)
        return b->same_size - a->same_size;
    if (a->rank != b->rank)
        return a->rank - b->rank;
    if (a->relative != b->relative)
        return a->relative < b->relative ? -1 : 1;
    return (a->distance > b->distance) - (a->distance < b->distance);
}

static void take_text(WarmList *w, const char *text)
{
    if (cutune_config_parse(w->j->tv->sp, text, w->values, NULL) != 0)
        return;
    long idx = cutune_config_index_find(&w->j->ix, w->values);
    if (idx >= 0)
        take(w, (size_t)idx);
}

/* The configs a known-list line stands for. */
static void take_partial(WarmList *w, const char *line)
{
    const CutuneSpace *sp = w->j->tv->sp;
    const CutuneConfigList *cl = &w->j->cl;
    if (cutune_config_parse_partial(sp, line, w->values, w->named, NULL) != 0)
        return;
    size_t found = 0;
    for (size_t c = 0; c < cl->nconfigs && found < KNOWN_PER_LINE && w->n < w->max; c++) {
        const int64_t *row = cl->values + c * cl->nparams;
        int match = 1;
        for (size_t i = 0; i < sp->nparams && match; i++)
            match = !w->named[i] || row[i] == w->values[i];
        if (match) {
            take(w, c);
            found++;
        }
    }
}

static int known_line(const char *config, int line, void *user)
{
    (void)line;
    WarmList *w = user;
    take_partial(w, config);
    return w->n >= w->max;
}

int tune_warm_start(TuneLane *l, TuneJob *j, size_t max, CutuneError *err)
{
    TuneRun *r = l->run;
    const CutuneVariantDef *v = j->tv->p;
    size_t n = j->cl.nconfigs, np = j->tv->sp->nparams ? j->tv->sp->nparams : 1;
    free(j->warm);
    j->warm = NULL;
    j->nwarm = 0;
    if (n == 0 || max == 0)
        return 0;
    WarmList w = {.j = j, .max = max < n ? max : n};
    w.out = calloc(w.max, sizeof *w.out);
    w.taken = calloc(n, 1);
    w.values = calloc(np, sizeof *w.values);
    w.named = calloc(np, 1);
    w.cands = calloc(DB_ROWS_MAX, sizeof *w.cands);
    int rc = 0;
    if (!w.out || !w.taken || !w.values || !w.named || !w.cands) {
        rc = cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
        goto out;
    }
    /* the job's own best measurements, fastest first */
    for (int k = 0; k < OWN_BEST; k++) {
        long best = -1;
        for (size_t i = 0; i < n; i++)
            if (j->kstatus[i] == 1 + CUTUNE_STATUS_OK && !w.taken[i] &&
                (best < 0 || j->kms[i] < j->kms[best]))
                best = (long)i;
        if (best < 0)
            break;
        take(&w, (size_t)best);
    }
    /* what another tool measured here: never an answer until checked, and likely good */
    for (size_t i = 0; i < j->nimported; i++)
        take(&w, j->imported[i]);
    if (r->o->warm_db) {
        rc = cutune_db_warm_configs(l->db, v->op_name, v->name, v->version, l->dev.uuid,
                                    l->dev.name, j->ts->size, DB_PER_PROBLEM, db_row, &w, err);
        if (rc)
            goto out;
        qsort(w.cands, w.ncands, sizeof *w.cands, cand_cmp);
        for (size_t i = 0; i < w.ncands && w.n < w.max; i++)
            take_text(&w, w.cands[i].config);
    }
    if (r->o->warm_known && j->tv->known_path[0])
        rc = cutune_known_read(j->tv->known_path, known_line, &w, err);
out:
    for (size_t i = 0; i < w.ncands; i++)
        free(w.cands[i].config);
    free(w.cands);
    free(w.taken);
    free(w.values);
    free(w.named);
    if (rc == 0) {
        j->warm = w.out;
        j->nwarm = w.n;
    } else {
        free(w.out);
    }
    return rc;
}

int tune_warm_list(TuneLane *l, TuneJob *j, size_t **out, size_t *nout, CutuneError *err)
{
    *out = NULL;
    *nout = 0;
    int rc = tune_warm_start(l, j, cutune_variant_library(j->tv->p) ? WARM_MAX_LIBRARY : WARM_MAX,
                             err);
    if (rc)
        return rc;
    size_t n = j->cl.nconfigs, fresh = 0;
    for (size_t i = 0; i < j->nwarm; i++)
        fresh += j->kstatus[j->warm[i]] == 0;
    /* probes: random configs not known, so that the variant shows its level */
    size_t *list = malloc((j->nwarm + PROBES) * sizeof *list);
    if (!list)
        return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
    memcpy(list, j->warm, j->nwarm * sizeof *list);
    size_t nlist = j->nwarm;
    uint64_t x = l->run->o->seed * 0x9e3779b97f4a7c15ULL + (uint64_t)j->variant_id;
    for (size_t tries = 0;
         fresh + (nlist - j->nwarm) < PROBES && j->nknown + nlist < n && tries < 64 * PROBES;
         tries++) {
        size_t idx = (size_t)cutune_splitmix64_below(&x, n);
        int dup = j->kstatus[idx] != 0;
        for (size_t k = 0; k < nlist && !dup; k++)
            dup = list[k] == idx;
        if (!dup)
            list[nlist++] = idx;
    }
    *out = list;
    *nout = nlist;
    return 0;
}
