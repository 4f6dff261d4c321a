/* Launch geometry: a data variant's [launch] expressions, or a C plugin's callback, then
 * the limits every launch must keep (CUDA's grid and block limits, the device's threads
 * and shared memory, the op's own buffers), and a data variant's TMA tensor maps
 * (tensor_maps.c). A config that breaks one cannot run: the
 * caller records it as skipped_resources, with `why`. A library variant has none (its
 * library launches its own kernels): every config gets the one-thread placeholder. */
#include "geometry.h"
#include "tensor_maps.h"
#include "variant_plugin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { GRID, BLOCK, SHARED, NKEYS };
static const char *const key_names[NKEYS] = {"grid", "block", "shared"};
static const char *const axis[3] = {"x", "y", "z"};

struct CutuneGeometry {
    const CutuneVariantDef *v;
    size_t nparams;
    const char **names;         /* C plugins: the config's parameter names */
    CutuneExpr *expr[NKEYS][3]; /* data variants; NULL: the axis is 1 (shared: 0) */
    int line[NKEYS];
    int count[NKEYS];           /* expressions given for the key */
    CutuneTensorMapSpecs *maps; /* data variants' [tensor_map.*]; NULL: none */
};

void cutune_geometry_free(CutuneGeometry **gp)
{
    CutuneGeometry *g = gp ? *gp : NULL;
    if (!g)
        return;
    for (int k = 0; k < NKEYS; k++)
        for (int a = 0; a < 3; a++)
            cutune_expr_free(g->expr[k][a]);
    cutune_tensor_maps_free(&g->maps);
    free(g->names);
    free(g);
    *gp = NULL;
}

static int compile_data(CutuneGeometry *g, CutuneError *err)
{
    const CutuneSpace *sp = g->v->space;
    for (int k = 0; k < NKEYS; k++) {
        const char *text = cutune_space_key(sp, "launch", key_names[k], &g->line[k]);
        if (!text)
            continue; /* check_launch_keys: grid and block are there */
        char parts[3][512];
        int n = 0;
        if (cutune_space_split(text, parts, 3, &n) != 0 || (k == SHARED && n != 1))
            return cutune_error(err, CUTUNE_ERR_PARSE,
                                "%s:%d: [launch] %s takes %s separated by commas; write e.g. "
                                "%s",
                                sp->path, g->line[k], key_names[k],
                                k == SHARED ? "one expression (bytes), not several"
                                            : "1 to 3 expressions (x, y, z)",
                                k == SHARED ? "shared = 2 * TILE * TILE * 4"
                                            : "grid = ceil_div(N, TILE), ceil_div(M, TILE)");
        g->count[k] = n;
        for (int a = 0; a < n; a++) {
            char what[64];
            snprintf(what, sizeof what, "[launch] %s%s%s", key_names[k], k == SHARED ? "" : " ",
                     k == SHARED ? "" : axis[a]);
            int rc = cutune_space_compile(sp, what, parts[a], g->line[k], &g->expr[k][a], err);
            if (rc)
                return rc;
        }
    }
    return g->v->op ? cutune_tensor_maps_open(sp, g->v->op->op, &g->maps, err) : 0;
}

int cutune_geometry_open(const CutuneVariantDef *v, const char *const *names, size_t nparams,
                         CutuneGeometry **out, CutuneError *err)
{
    *out = NULL;
    CutuneGeometry *g = calloc(1, sizeof *g);
    if (!g)
        return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
    g->v = v;
    g->nparams = nparams;
    int rc = 0;
    if (v->v) { /* a C plugin: its callback reads the config by name */
        g->names = malloc((nparams ? nparams : 1) * sizeof *g->names);
        if (!g->names)
            rc = cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
        for (size_t i = 0; rc == 0 && i < nparams; i++)
            g->names[i] = names[i];
    } else {
        const CutuneSpace *sp = v->space;
        int same = sp && sp->nparams == nparams;
        for (size_t i = 0; same && i < nparams; i++)
            same = strcmp(sp->params[i].name, names[i]) == 0;
        if (!same)
            rc = cutune_error(err, CUTUNE_ERR_INVALID,
                              "%s: the config's parameters (%zu, starting with %s) are not the "
                              "space's (%zu); the space changed since: bump the variant's version",
                              v->path, nparams, nparams ? names[0] : "none", sp ? sp->nparams : 0);
        else
            rc = compile_data(g, err);
    }
    if (rc) {
        cutune_geometry_free(&g);
        return rc;
    }
    *out = g;
    return 0;
}

static int eval_data(const CutuneGeometry *g, const int64_t *values, const CutuneProblem *p,
                     const CutuneLimits *lim, int64_t r[NKEYS][3], CutuneTensorMaps *maps,
                     char *why, size_t len)
{
    const CutuneSpace *sp = g->v->space;
    if ((size_t)p->ndims != sp->ndims) {
        snprintf(why, len, "the problem has %d dimensions, the op %zu", p->ndims, sp->ndims);
        return CUTUNE_ERR_INVALID;
    }
    size_t n = cutune_space_nsymbols(sp);
    int64_t *vals = malloc(n * sizeof *vals);
    if (!vals)
        return CUTUNE_ERR_NOMEM;
    cutune_space_symbol_values(sp, values, p->dim, lim, vals);
    int rc = 0;
    for (int k = 0; k < NKEYS && rc == 0; k++)
        for (int a = 0; a < 3 && rc == 0; a++) {
            r[k][a] = k == SHARED ? 0 : 1;
            if (!g->expr[k][a])
                continue;
            CutuneExprError ee;
            memset(&ee, 0, sizeof ee);
            if (cutune_expr_eval(g->expr[k][a], vals, &r[k][a], &ee) != 0) {
                snprintf(why, len, "%s:%d: [launch] %s%s%s: %s at column %d near '%s'", sp->path,
                         g->line[k], key_names[k], k == SHARED ? "" : " ",
                         k == SHARED ? "" : axis[a], ee.message, ee.column, ee.token);
                rc = CUTUNE_ERR_RESOURCES;
            }
        }
    if (rc == 0)
        rc = cutune_tensor_maps_eval(g->maps, vals, p, maps, why, len);
    free(vals);
    return rc;
}

/* The limits every launch keeps; `from` says where the numbers came from. */
static int within_limits(const int64_t r[NKEYS][3], const CutuneLimits *lim, const char *from,
                         char *why, size_t len)
{
    static const int64_t grid_max[3] = {2147483647, 65535, 65535};
    static const int64_t block_max[3] = {1024, 1024, 64};
    for (int a = 0; a < 3; a++) {
        if (r[GRID][a] < 1 || r[GRID][a] > grid_max[a]) {
            snprintf(why, len, "%s: grid %s = %lld, outside CUDA's 1..%lld", from, axis[a],
                     (long long)r[GRID][a], (long long)grid_max[a]);
            return CUTUNE_ERR_RESOURCES;
        }
        if (r[BLOCK][a] < 1 || r[BLOCK][a] > block_max[a]) {
            snprintf(why, len, "%s: block %s = %lld, outside CUDA's 1..%lld", from, axis[a],
                     (long long)r[BLOCK][a], (long long)block_max[a]);
            return CUTUNE_ERR_RESOURCES;
        }
    }
    int64_t threads = r[BLOCK][0] * r[BLOCK][1] * r[BLOCK][2];
    if (threads > lim->max_threads_per_block) {
        snprintf(why, len, "%s: a block of %lld threads, the device allows %lld", from,
                 (long long)threads, (long long)lim->max_threads_per_block);
        return CUTUNE_ERR_RESOURCES;
    }
    if (r[SHARED][0] < 0 || r[SHARED][0] > lim->max_shared_per_block) {
        snprintf(why, len,
                 "%s: %lld bytes of dynamic shared memory, the device allows %lld a "
                 "block",
                 from, (long long)r[SHARED][0], (long long)lim->max_shared_per_block);
        return CUTUNE_ERR_RESOURCES;
    }
    return 0;
}

int cutune_geometry_eval(const CutuneGeometry *g, const int64_t *values, const CutuneProblem *p,
                         const CutuneLimits *lim, CutuneLaunch *out, CutuneTensorMaps *maps,
                         char *why, size_t len)
{
    int64_t r[NKEYS][3] = {{1, 1, 1}, {1, 1, 1}, {0, 0, 0}};
    char from[600];
    int rc;
    CutuneTensorMaps none;
    if (!maps) /* still evaluated: a map TMA would refuse makes the config unable to run */
        maps = &none;
    maps->n = 0;
    why[0] = '\0';
    if (cutune_variant_library(g->v)) { /* no kernel: the library launches its own */
        *out = (CutuneLaunch){{1, 1, 1}, {1, 1, 1}, 0};
        return 0;
    }
    if (g->v->v) {
        CutuneConfig cfg = {g->nparams, g->names, values};
        CutuneLaunch l;
        memset(&l, 0, sizeof l);
        if (cutune_plugin_geometry(g->v->v, &cfg, p, (int)lim->sm_count, (int)lim->cc, &l) != 0) {
            snprintf(why, len, "%s: the plugin has no launch geometry for it", g->v->path);
            return CUTUNE_ERR_RESOURCES;
        }
        for (int a = 0; a < 3; a++) {
            r[GRID][a] = l.grid[a];
            r[BLOCK][a] = l.block[a];
        }
        r[SHARED][0] = (int64_t)l.shared_bytes;
        snprintf(from, sizeof from, "%s's launch_geometry", g->v->path);
    } else {
        if ((rc = eval_data(g, values, p, lim, r, maps, why, len)))
            return rc;
        snprintf(from, sizeof from, "%s [launch]", g->v->path);
    }
    if ((rc = within_limits(r, lim, from, why, len)))
        return rc;
    *out = (CutuneLaunch){
        {(unsigned)r[GRID][0], (unsigned)r[GRID][1], (unsigned)r[GRID][2]},
        {(unsigned)r[BLOCK][0], (unsigned)r[BLOCK][1], (unsigned)r[BLOCK][2]},
        (size_t)r[SHARED][0],
    };
    int (*op_check)(const CutuneProblem *, const CutuneLaunch *, char *,
                    size_t) = g->v->op ? CUTUNE_OP_FIELD(g->v->op->op, check_launch) : NULL;
    if (op_check && op_check(p, out, why, len) != 0) {
        if (!why[0])
            snprintf(why, len, "op %s refuses the launch", g->v->op->op->name);
        return CUTUNE_ERR_RESOURCES;
    }
    return 0;
}
