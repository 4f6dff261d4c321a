/* The plan of a run: the variants it tunes (each space loaded once), the sizes (given, or
 * the union of the spaces' default problems, or the device's pending requests) and which
 * variants take each size. Everything is checked here, before the database is written: a
 * space that does not load, a size a variant refuses, a space with nothing valid. */
#include "tune_int.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The space file and the optional known-good list beside it. */
static int load_variant(const CutunePlugin *p, TuneVariant *tv, CutuneError *err)
{
    char path[PATH_MAX];
    memset(tv, 0, sizeof *tv);
    tv->p = p;
    int rc = cutune_space_path(p->v->name, path, sizeof path, err);
    if (rc || (rc = cutune_space_load(path, p->v->dim_names, &tv->sp, err)))
        return rc;
    char known[PATH_MAX];
    const char *slash = strrchr(path, '/');
    int dir = slash ? (int)(slash - path) : 1;
    if ((size_t)snprintf(known, sizeof known, "%.*s/%s.known", dir, slash ? path : ".",
                         p->v->name) < sizeof known &&
        access(known, R_OK) == 0)
        snprintf(tv->known_path, sizeof tv->known_path, "%s", known);
    return 0;
}

/* The size `text` of op for one variant: parsed, checked by the plugin, canonical. */
static int size_for(const TuneVariant *tv, const char *text, CutuneProblem *prob, char *canon,
                    size_t len, CutuneError *err)
{
    char perr[256] = "";
    int rc = cutune_problem_parse(text, prob, err);
    if (rc)
        return rc;
    if (tv->p->v->check_problem(prob, perr, sizeof perr) != 0)
        return cutune_error(err, CUTUNE_ERR_INVALID, "%s: problem size '%s' is not valid: %s",
                            tv->p->v->name, text, perr);
    if ((size_t)prob->ndims != tv->sp->ndims)
        return cutune_error(err, CUTUNE_ERR_INVALID,
                            "%s: problem '%s' has %d dimensions but the space names %zu",
                            tv->sp->path, text, prob->ndims, tv->sp->ndims);
    cutune_problem_format(prob, canon, len);
    return 0;
}

static TuneSize *find_size(TuneRun *r, const char *op, const char *size)
{
    for (size_t i = 0; i < r->nsizes; i++)
        if (strcmp(r->sizes[i].op, op) == 0 && strcmp(r->sizes[i].size, size) == 0)
            return &r->sizes[i];
    return NULL;
}

/* Add (op, size) for a variant: a new size, or one more variant of a known one. */
static int add_size(TuneRun *r, TuneVariant *tv, const CutuneProblem *prob, const char *size,
                    CutuneError *err)
{
    TuneSize *ts = find_size(r, tv->p->v->op, size);
    if (!ts) {
        TuneSize *s = realloc(r->sizes, (r->nsizes + 1) * sizeof *s);
        if (!s)
            return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
        r->sizes = s;
        ts = &r->sizes[r->nsizes++];
        memset(ts, 0, sizeof *ts);
        snprintf(ts->op, sizeof ts->op, "%s", tv->p->v->op);
        snprintf(ts->size, sizeof ts->size, "%s", size);
        ts->prob = *prob;
        ts->flops = tv->p->v->flops(prob);
        ts->bytes = tv->p->v->bytes(prob);
    }
    TuneVariant **v = realloc(ts->variants, (ts->nvariants + 1) * sizeof *v);
    if (!v)
        return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
    ts->variants = v;
    ts->variants[ts->nvariants++] = tv;
    return 0;
}

/* The valid configs of a variant at a size on this device (after --where). */
static int count_valid(const TuneRun *r, const TuneVariant *tv, const CutuneProblem *prob,
                       const CutuneLimits *lim, size_t *n, CutuneError *err)
{
    int64_t dims[CUTUNE_MAX_DIMS] = {0};
    for (int d = 0; d < prob->ndims; d++)
        dims[d] = prob->dim[d];
    CutuneConfigList cl = {0};
    int rc = cutune_space_enumerate(tv->sp, lim, dims, &cl, err);
    if (rc == 0)
        rc = cutune_config_list_where(tv->sp, &cl, r->o->where, r->o->nwhere, err);
    *n = cl.nconfigs;
    cutune_config_list_free(&cl);
    return rc;
}

/* The sizes of one variant: given ones, pending ones of its op, or its defaults. */
static int plan_variant(TuneRun *r, TuneVariant *tv, const CutuneLimits *lim,
                        const char *const *pending_op, const char *const *pending_size,
                        size_t npending, size_t *nvalid, CutuneError *err)
{
    const CutuneTuneOptions *o = r->o;
    const char *const *sizes = o->sizes;
    size_t nsizes = o->nsizes;
    int rc = 0;
    if (o->pending) {
        for (size_t k = 0; k < npending && rc == 0; k++) {
            CutuneProblem prob;
            char canon[64];
            CutuneError e = {0};
            if (strcmp(pending_op[k], tv->p->v->op) != 0)
                continue;
            if (size_for(tv, pending_size[k], &prob, canon, sizeof canon, &e) != 0) {
                tune_note(r, "pending %s %s: not a valid size for %s (%s); left pending",
                          pending_op[k], pending_size[k], tv->p->v->name, e.msg);
                continue;
            }
            rc = add_size(r, tv, &prob, canon, err);
        }
        return rc;
    }
    if (!sizes || nsizes == 0) {
        sizes = (const char *const *)tv->sp->problems;
        nsizes = tv->sp->nproblems;
        if (nsizes == 0)
            return cutune_error(err, CUTUNE_ERR_INVALID,
                                "%s has no [problems] default sizes; pass --size", tv->sp->path);
    }
    for (size_t k = 0; k < nsizes && rc == 0; k++) {
        CutuneProblem prob;
        char canon[64];
        size_t n = 0;
        if ((rc = size_for(tv, sizes[k], &prob, canon, sizeof canon, err)) ||
            (rc = count_valid(r, tv, &prob, lim, &n, err)))
            break;
        *nvalid += n;
        rc = add_size(r, tv, &prob, canon, err);
    }
    return rc;
}

int tune_plan_build(TuneRun *r, const CutuneLimits *lim, CutuneError *err)
{
    const CutuneTuneOptions *o = r->o;
    size_t n = 0;
    for (size_t i = 0; i < r->reg.count; i++) {
        const CutuneVariant *v = r->reg.plugins[i].v;
        n += (!o->op || strcmp(v->op, o->op) == 0) && (!o->variant || strcmp(v->name, o->variant) == 0);
    }
    r->variants = calloc(n ? n : 1, sizeof *r->variants);
    if (!r->variants)
        return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
    int rc = 0;
    for (size_t i = 0; i < r->reg.count && rc == 0; i++) {
        const CutunePlugin *p = &r->reg.plugins[i];
        if ((o->op && strcmp(p->v->op, o->op) != 0) || (o->variant && strcmp(p->v->name, o->variant) != 0))
            continue;
        if ((rc = load_variant(p, &r->variants[r->nvariants], err)) == 0)
            r->nvariants++;
    }
    size_t nvalid = 0;
    for (size_t i = 0; i < r->nvariants && rc == 0; i++)
        rc = plan_variant(r, &r->variants[i], lim, (const char *const *)r->pending_op,
                          (const char *const *)r->pending_size, r->npending,
                          &nvalid, err);
    if (rc == 0 && !o->pending && nvalid == 0)
        rc = cutune_error(err, CUTUNE_ERR_INVALID,
                          "nothing to tune: no config of %s%s satisfies its space's constraints "
                          "for this device and the sizes asked for; check the [constraints] of "
                          "its tuning space (`cutune list %s` shows the valid counts)%s",
                          o->variant ? "variant " : "op ", o->variant ? o->variant : o->op, o->op,
                          o->nwhere ? ", and --where keeps only the configs it names" : "");
    return rc;
}

void tune_plan_free(TuneRun *r)
{
    for (size_t i = 0; i < r->nsizes; i++)
        free(r->sizes[i].variants);
    free(r->sizes);
    for (size_t i = 0; i < r->nvariants; i++)
        cutune_space_free(r->variants[i].sp);
    free(r->variants);
    r->sizes = NULL;
    r->variants = NULL;
    r->nsizes = r->nvariants = 0;
}
