/* Checking a variant without a GPU (variant_check.h). */
#include "variant_check.h"
#include "compile.h"
#include "pool.h"
#include "space_limits.h"
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHOWN_MAX 3 /* skipped launches and failed compiles listed in full */

void cutune_check_defaults(CutuneCheckOptions *o)
{
    memset(o, 0, sizeof *o);
    o->sample = 64;
    o->seed = 1;
    o->arch = 90;
}

static void say(const CutuneCheckOptions *o, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void say(const CutuneCheckOptions *o, const char *fmt, ...)
{
    if (!o->out)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(o->out, fmt, ap);
    va_end(ap);
}

/* "-DNAME=value" texts of one config, for NVRTC. */
/* The first line of a compiler log that says "error", else its first line. */
static void first_error(const char *msg, char *buf, size_t len)
{
    const char *e = strstr(msg, ": error");
    const char *line = msg;
    if (e) {
        line = e;
        while (line > msg && line[-1] != '\n')
            line--;
    }
    const char *nl = strchr(line, '\n');
    snprintf(buf, len, "%.*s", nl ? (int)(nl - line) : (int)strlen(line), line);
}

/* The constraint that rejected the most points, for a space with no valid config. */
static void worst_constraint(const CutuneSpace *sp, const CutuneConfigList *cl, char *buf,
                             size_t len)
{
    size_t worst = 0;
    for (size_t c = 1; c < sp->nconstraints; c++)
        if (cl->rejected_by[c] > cl->rejected_by[worst])
            worst = c;
    if (sp->nconstraints == 0)
        snprintf(buf, len, "(no constraints: is a parameter without values?)");
    else
        snprintf(buf, len, "%s:%d: '%s' rejects %zu points", sp->path, sp->constraints[worst].line,
                 sp->constraints[worst].name, cl->rejected_by[worst]);
}

/* Every valid config of every size gets a launch under sm_90 limits. */
static int check_launches(const CutuneVariantDef *v, const CutuneSpace *sp,
                          const CutuneCheckOptions *o, const char *const *sizes, size_t nsizes,
                          CutuneCheckReport *r, CutuneError *err)
{
    CutuneLimits lim;
    cutune_limits_sm90(&lim);
    const char **names = cutune_space_symbol_names(sp);
    CutuneGeometry *g = NULL;
    int rc = names ? cutune_geometry_open(v, names, sp->nparams, &g, err)
                   : cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
    free(names);
    if (rc) {
        say(o, "  FAIL %s\n", err->msg);
        r->failures++;
        return rc == CUTUNE_ERR_NOMEM ? rc : 0;
    }
    size_t shown = 0;
    for (size_t k = 0; k < nsizes && rc == 0; k++) {
        CutuneProblem p;
        CutuneError perr = {0};
        if (cutune_variant_problem(v, sizes[k], &p, &perr) != 0 || (size_t)p.ndims != sp->ndims) {
            say(o, "  FAIL size %s: %s\n", sizes[k], perr.msg[0] ? perr.msg : "dimensions");
            r->failures++;
            continue;
        }
        CutuneConfigList cl = {0};
        if (cutune_space_enumerate(sp, &lim, p.dim, &cl, &perr) != 0) {
            say(o, "  FAIL size %s: %s\n", sizes[k], perr.msg);
            r->failures++;
            continue;
        }
        size_t ran = 0;
        for (size_t i = 0; i < cl.nconfigs; i++) {
            CutuneLaunch l;
            char why[512];
            int grc = cutune_geometry_eval(g, cl.values + i * cl.nparams, &p, &lim, &l, why,
                                           sizeof why);
            if (grc == 0) {
                ran++;
                continue;
            }
            if (grc != CUTUNE_ERR_RESOURCES) {
                rc = cutune_error(err, grc, "%s", why);
                break;
            }
            r->skipped++;
            if (shown++ < SHOWN_MAX) {
                char text[512];
                cutune_config_format(sp, cl.values + i * cl.nparams, text, sizeof text);
                say(o, "  note: %s at %s cannot launch on sm_90 (skipped when tuned): %s\n", text,
                    sizes[k], why);
            }
        }
        r->launches += ran;
        if (ran == 0 && rc == 0) {
            say(o, "  FAIL size %s: none of its %zu valid configs can launch on sm_90\n", sizes[k],
                cl.nconfigs);
            r->failures++;
        }
        cutune_config_list_free(&cl);
    }
    cutune_geometry_free(&g);
    return rc;
}

/* The configs to compile: all, or the first, the last and a seeded sample between. */
static size_t pick(size_t nvalid, size_t sample, uint64_t seed, size_t *out)
{
    size_t n = sample == 0 || nvalid <= sample ? nvalid : sample;
    if (n == nvalid) {
        for (size_t i = 0; i < n; i++)
            out[i] = i;
        return n;
    }
    unsigned char *taken = calloc(nvalid, 1);
    uint64_t x = seed;
    size_t k = 0;
    out[k++] = 0;
    out[k++] = nvalid - 1;
    if (taken) {
        taken[0] = taken[nvalid - 1] = 1;
        while (k < n) {
            size_t i = (size_t)cutune_splitmix64_below(&x, nvalid);
            if (!taken[i]) {
                taken[i] = 1;
                out[k++] = i;
            }
        }
    }
    free(taken);
    return k;
}

static int check_compiles(const CutuneVariantDef *v, const CutuneSpace *sp,
                          const CutuneConfigList *cl, const CutuneCheckOptions *o,
                          CutuneCheckReport *r, CutuneError *err)
{
    size_t *idx = malloc((cl->nconfigs ? cl->nconfigs : 1) * sizeof *idx);
    size_t n = idx ? pick(cl->nconfigs, o->sample, o->seed, idx) : 0;
    CutuneCompileJob *jobs = calloc(n ? n : 1, sizeof *jobs);
    CutunePool *pool = NULL;
    int rc = 0;
    if (!idx || !jobs || cutune_pool_create(o->threads, &pool) != 0) {
        rc = cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
        goto out;
    }
    for (size_t j = 0; j < n; j++) {
        CutuneProblem kind;
        cutune_variant_first_kind(v, &kind);
        cutune_compile_job_init(&jobs[j], v->source, v->kernel_name, sp,
                                cl->values + idx[j] * cl->nparams, &kind, o->arch, o->cache_dir,
                                idx[j]);
        cutune_pool_submit(pool, &jobs[j].job);
    }
    size_t shown = 0;
    for (size_t j = 0; j < n; j++) {
        cutune_pool_wait(pool, &jobs[j].job);
        if (jobs[j].rc == 0)
            r->compiled++;
        else
            r->compile_failed++;
        if (jobs[j].rc != 0 && shown++ < SHOWN_MAX) {
            char text[512], line[400];
            cutune_config_format(sp, cl->values + jobs[j].index * cl->nparams, text, sizeof text);
            first_error(jobs[j].err.msg, line, sizeof line);
            say(o, "  FAIL config %s does not compile: %s\n", text, line);
        }
        cutune_compile_job_clear(&jobs[j]); /* its cubin: the cache keeps it */
    }
    say(o, "  compiled %zu of %zu configs for sm_%d%s: %zu ok, %zu failed\n", n, cl->nconfigs,
        o->arch,
        n < cl->nconfigs ? " (a seeded sample with the first and the last; --sample 0 "
                           "compiles every one)"
                         : "",
        r->compiled, r->compile_failed);
    r->failures += r->compile_failed;
out:
    cutune_pool_destroy(&pool);
    free(jobs);
    free(idx);
    return rc;
}

/* The kernel's parameters against the op's arguments. */
static void check_params(const CutuneVariantDef *v, const CutuneSpace *sp,
                         const CutuneConfigList *cl, const CutuneCheckOptions *o,
                         CutuneCheckReport *r)
{
    CutuneDefines d;
    CutuneProblem kind;
    cutune_variant_first_kind(v, &kind);
    cutune_defines_of(sp, cl->values, &d);
    cutune_defines_kind(&d, &kind);
    CutuneError e = {0};
    const CutuneOp *op = v->op->op;
    if (cutune_nvrtc_kernel_params(v->source, v->kernel_name, d.ptr, d.n, o->arch,
                                   &r->kernel_params, &e) != 0) {
        if (e.code != CUTUNE_ERR_COMPILE) { /* a compile error is listed with its config */
            say(o, "  FAIL %s\n", e.msg);
            r->failures++;
        }
        return;
    }
    if (op->nargs > 0 && r->kernel_params != op->nargs) {
        say(o, "  FAIL kernel %s takes %d parameters, but op %s passes %d: (%s)\n", v->kernel_name,
            r->kernel_params, op->name, op->nargs, op->signature);
        r->failures++;
    } else {
        say(o, "  kernel %s takes %d parameters, as op %s passes them\n", v->kernel_name,
            r->kernel_params, op->name);
    }
}

int cutune_variant_check(const CutuneVariantDef *v, const CutuneCheckOptions *o,
                         CutuneCheckReport *r, CutuneError *err)
{
    memset(r, 0, sizeof *r);
    r->kernel_params = -1;
    CutuneSpace *sp = NULL;
    CutuneConfigList cl = {0};
    CutuneError e = {0};
    say(o, "%s (%s), op %s, version %s\n", v->name, v->path, v->op_name, v->version);
    if (cutune_variant_load_space(v, &sp, &e) != 0) {
        say(o, "  FAIL %s\n", e.msg);
        r->failures++;
        return 0;
    }
    CutuneLimits lim;
    cutune_limits_sm90(&lim);
    int rc = cutune_space_enumerate(sp, &lim, NULL, &cl, &e);
    if (rc) {
        say(o, "  FAIL %s\n", e.msg);
        r->failures++;
        rc = 0;
        goto out;
    }
    r->nvalid = cl.nconfigs;
    say(o, "  %zu valid configs of %zu under sm_90 limits\n", cl.nconfigs,
        cutune_space_cardinality(sp));
    if (cl.nconfigs == 0) {
        char why[600];
        worst_constraint(sp, &cl, why, sizeof why);
        say(o, "  FAIL no config passes the constraints; %s\n", why);
        r->failures++;
        goto out;
    }
    const char *const *sizes = o->sizes;
    size_t nsizes = o->nsizes;
    if (!sizes || !nsizes) {
        sizes = (const char *const *)sp->problems;
        nsizes = sp->nproblems;
    }
    if (nsizes == 0) {
        say(o, "  FAIL %s has no [problems] default sizes, and none was given (--size)\n",
            sp->path);
        r->failures++;
    }
    if ((rc = check_launches(v, sp, o, sizes, nsizes, r, err)))
        goto out;
    say(o, "  launches: %zu (config, size) pairs at %zu size%s, %zu of them cannot run on sm_90\n",
        r->launches + r->skipped, nsizes, nsizes == 1 ? "" : "s", r->skipped);
    if ((r->library = cutune_variant_library(v) != NULL)) {
        say(o, "  a library variant: its configs are calls into a library, made ready when "
               "they run (nothing to compile)\n");
        goto out;
    }
    check_params(v, sp, &cl, o, r);
    rc = check_compiles(v, sp, &cl, o, r, err);
out:
    say(o, "  %s\n", r->failures ? "FAILED" : "ok");
    cutune_config_list_free(&cl);
    cutune_space_free(sp);
    return rc;
}
