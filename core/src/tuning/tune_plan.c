/* The plan of a run: the variants it tunes (each space loaded once), the sizes (given, or
 * the union of the spaces' default problems, or the device's pending requests) and which
 * variants take each size. Everything is checked here, before the database is written: a
 * space that does not load, a size a variant refuses, a space with nothing valid. */
#include "tune_int.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The space, the launch and the optional known-good list beside the space file. */
static int load_variant(const CutuneVariantDef *p, TuneVariant *tv, CutuneError *err)
{
    memset(tv, 0, sizeof *tv);
    tv->p = p;
    int rc = cutune_variant_load_space(p, &tv->sp, err);
    if (rc)
        return rc;
    if (!(tv->names = cutune_space_symbol_names(tv->sp)))
        return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
    if ((rc = cutune_geometry_open(p, tv->names, tv->sp->nparams, &tv->geo, err)))
        return rc;
    char known[PATH_MAX];
    const char *path = tv->sp->path, *slash = strrchr(path, '/');
    int dir = slash ? (int)(slash - path) : 1;
    if ((size_t)snprintf(known, sizeof known, "%.*s/%s.known", dir, slash ? path : ".", p->name) <
            sizeof known &&
        access(known, R_OK) == 0)
        snprintf(tv->known_path, sizeof tv->known_path, "%s", known);
    return 0;
}

static void free_variant(TuneVariant *tv)
{
    cutune_geometry_free(&tv->geo);
    free(tv->names);
    cutune_space_free(tv->sp);
    memset(tv, 0, sizeof *tv);
}

/* The size `text` of op for one variant: parsed, in the run's element type, layout and
 * epilogue when it names them, checked by the plugin, canonical. 1 (nothing written): the
 * variant does not compute that kind, or it is a default size that the op refuses in the
 * run's kind (fp32 with --epilogue bias, say): left out, as for a variant that does not. */
static int size_for(const TuneRun *r, const TuneVariant *tv, const char *text, CutuneProblem *prob,
                    char *canon, size_t len, CutuneError *err)
{
    int rc = cutune_problem_parse(text, prob, err);
    if (rc)
        return rc;
    if (r->o->dtype >= 0)
        prob->dtype = r->o->dtype;
    if (r->o->layout >= 0)
        prob->layout = r->o->layout;
    if (r->o->epilogue >= 0)
        prob->epilogue = r->o->epilogue;
    if (!cutune_variant_takes(tv->p, prob))
        return 1;
    char why[256] = "";
    if (cutune_op_problem_check(tv->p->op->op, prob, why, sizeof why) != 0) {
        const CutuneTuneOptions *o = r->o;
        if (!o->sizes && (o->dtype >= 0 || o->layout >= 0 || o->epilogue >= 0))
            return 1;
        return cutune_error(err, CUTUNE_ERR_INVALID, "%s: problem size '%s' is not valid: %s",
                            tv->p->name, text, why);
    }
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
    TuneSize *ts = find_size(r, tv->p->op_name, size);
    if (!ts) {
        TuneSize *s = realloc(r->sizes, (r->nsizes + 1) * sizeof *s);
        if (!s)
            return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
        r->sizes = s;
        ts = &r->sizes[r->nsizes++];
        memset(ts, 0, sizeof *ts);
        snprintf(ts->op, sizeof ts->op, "%s", tv->p->op_name);
        snprintf(ts->size, sizeof ts->size, "%s", size);
        ts->prob = *prob;
        ts->flops = cutune_variant_flops(tv->p, prob);
        ts->bytes = cutune_variant_bytes(tv->p, prob);
    }
    for (size_t i = 0; i < ts->nvariants; i++)
        if (ts->variants[i] == tv)
            return 0; /* two of its sizes are one problem (--dtype made them alike, say) */
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
            if (strcmp(pending_op[k], tv->p->op_name) != 0)
                continue;
            int took = size_for(r, tv, pending_size[k], &prob, canon, sizeof canon, &e);
            if (took == 1)
                continue; /* another variant's element type or layout */
            if (took != 0) {
                tune_note(r, "pending %s %s: not a valid size for %s (%s); left pending",
                          pending_op[k], pending_size[k], tv->p->name, e.msg);
                continue;
            }
            rc = add_size(r, tv, &prob, canon, err);
        }
        return rc;
    }
    if (!sizes || nsizes == 0) {
        if (tv->p->opt_in && !o->variant && o->dtype < 0) {
            tune_note(r,
                      "%s: left out of a run of the whole op ([variant] main_job = no); "
                      "--variant %s or --dtype tunes it",
                      tv->p->name, tv->p->name);
            return 0;
        }
        sizes = (const char *const *)tv->sp->problems;
        nsizes = tv->sp->nproblems;
        if (nsizes == 0) {
            const CutuneOp *op = tv->p->op->op;
            return cutune_error(err, CUTUNE_ERR_INVALID,
                                "%s has no [problems] default sizes; pass --size (a size of op "
                                "%s is written %s) or add default = ... under [problems]",
                                tv->sp->path, tv->p->op_name,
                                op->size_help ? op->size_help : op->dim_names);
        }
    }
    for (size_t k = 0; k < nsizes && rc == 0; k++) {
        CutuneProblem prob;
        char canon[64];
        size_t n = 0;
        if ((rc = size_for(r, tv, sizes[k], &prob, canon, sizeof canon, err)) == 1) {
            rc = 0;
            continue;
        }
        if (rc || (rc = count_valid(r, tv, &prob, lim, &n, err)))
            break;
        *nvalid += n;
        rc = add_size(r, tv, &prob, canon, err);
    }
    return rc;
}

/* --shard I/N: keep this shard's (variant, size) jobs, numbered in the plan's order (the
 * sizes in order, the variants of each in registry order); a size left without a variant is
 * dropped. A shard may be left with nothing: its run then records no trials. */
static void keep_shard(TuneRun *r)
{
    size_t k = 0, kept = 0, jobs = 0;
    for (size_t i = 0; i < r->nsizes; i++) {
        TuneSize ts = r->sizes[i];
        size_t n = 0;
        for (size_t v = 0; v < ts.nvariants; v++, k++)
            if (cutune_shard_has(&r->o->shard, k))
                ts.variants[n++] = ts.variants[v];
        ts.nvariants = n;
        jobs += n;
        if (n == 0)
            free(ts.variants);
        else
            r->sizes[kept++] = ts;
    }
    r->nsizes = kept;
    tune_note(r, "shard %u/%u: %zu of the run's %zu (variant, size) jobs, at %zu size%s",
              r->o->shard.index, r->o->shard.count, jobs, k, kept, kept == 1 ? "" : "s");
}

/* No variant of the run computes the element type, layout or epilogue asked for: say which
 * do. */
static int no_kind(const TuneRun *r, CutuneError *err)
{
    char have[512] = "";
    size_t used = 0;
    for (size_t i = 0; i < r->nvariants && used < sizeof have; i++) {
        const CutuneVariantDef *v = r->variants[i].p;
        int n = snprintf(have + used, sizeof have - used, "%s%s (%s; %s; %s)", i ? ", " : "",
                         v->name, v->dtypes ? v->dtypes : "fp32", v->layouts ? v->layouts : "nn",
                         v->epilogues ? v->epilogues : "none");
        used += n > 0 ? (size_t)n : 0;
    }
    const char *dt = r->o->dtype >= 0 ? cutune_dtype_name(r->o->dtype) : "the element type";
    const char *lay = r->o->layout >= 0 ? cutune_layout_name(r->o->layout) : "the layout";
    const char *ep = r->o->epilogue >= 0 ? cutune_epilogue_name(r->o->epilogue) : "the epilogue";
    return cutune_error(err, CUTUNE_ERR_INVALID,
                        "nothing to tune: no variant computes %s in %s with %s of the sizes "
                        "asked for; the variants (element types; layouts; epilogues): %s",
                        dt, lay, ep, have);
}

/* Is v one of the run's variants? Of its op (and the variant named), and not one that a
 * refused file of the same name, earlier on the path, may have been meant to replace
 * (cutune_registry_vet_op said so). */
static int planned(const TuneRun *r, const CutuneVariantDef *v)
{
    const CutuneTuneOptions *o = r->o;
    return (!o->op || strcmp(v->op_name, o->op) == 0) &&
           (!o->variant || strcmp(v->name, o->variant) == 0) &&
           !cutune_registry_blocked(&r->reg, v);
}

int tune_plan_build(TuneRun *r, const CutuneLimits *lim, CutuneError *err)
{
    const CutuneTuneOptions *o = r->o;
    size_t n = 0;
    for (size_t i = 0; i < r->reg.nvariants; i++)
        n += planned(r, r->reg.variants[i]);
    r->variants = calloc(n ? n : 1, sizeof *r->variants);
    if (!r->variants)
        return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
    int rc = 0;
    for (size_t i = 0; i < r->reg.nvariants && rc == 0; i++) {
        const CutuneVariantDef *p = r->reg.variants[i];
        if (!planned(r, p))
            continue;
        if ((rc = load_variant(p, &r->variants[r->nvariants], err)) == 0)
            r->nvariants++;
        else
            free_variant(&r->variants[r->nvariants]);
    }
    size_t nvalid = 0;
    for (size_t i = 0; i < r->nvariants && rc == 0; i++)
        rc = plan_variant(r, &r->variants[i], lim, (const char *const *)r->pending_op,
                          (const char *const *)r->pending_size, r->npending, &nvalid, err);
    if (rc == 0 && !o->pending && r->nsizes == 0 && r->nvariants > 0)
        rc = no_kind(r, err);
    if (rc == 0 && !o->pending && nvalid == 0)
        rc = cutune_error(err, CUTUNE_ERR_INVALID,
                          "nothing to tune: no config of %s%s satisfies its space's constraints "
                          "for this device and the sizes asked for; check the [constraints] of "
                          "its tuning space (`cutune list %s` shows the valid counts)%s",
                          o->variant ? "variant " : "op ", o->variant ? o->variant : o->op, o->op,
                          o->nwhere ? ", and --where keeps only the configs it names" : "");
    if (rc == 0 && o->shard.count > 0)
        keep_shard(r);
    return rc;
}

void tune_plan_free(TuneRun *r)
{
    for (size_t i = 0; i < r->nsizes; i++)
        free(r->sizes[i].variants);
    free(r->sizes);
    for (size_t i = 0; i < r->nvariants; i++)
        free_variant(&r->variants[i]);
    free(r->variants);
    r->sizes = NULL;
    r->variants = NULL;
    r->nsizes = r->nvariants = 0;
}
