/* The valid configs of a space: every point of the cartesian product that its constraints
 * allow on a device (cutune_space_enumerate), and the check of one config
 * (cutune_space_allows). The symbols the constraints see are spacekeys.c's.
 *
 * The points are walked as a tree, a parameter a level, the parameters in the order the
 * constraints first read them (plan_levels), and each constraint is evaluated where its
 * deepest parameter is set, once for all the points below: a constraint of three parameters
 * is not evaluated again for every value of the ten others. A branch is cut where a
 * constraint fails and every constraint before it in the file is known to pass, so that it
 * would be the first to reject each point below (rejected_by counts them all). The rows
 * then go back to the file's order (the last parameter turns fastest: the order of the
 * configs) by each point's number in it. Evaluated at every point, the constraints of the
 * main job's 15 sizes x 11 variants took about 2 s of one core before its first trial
 * (2-core CPU machine, fake worker; matmul_async's 497,664 points 250 ms a size, now 25). A
 * constraint that fails to evaluate is reported from a walk of every point in turn, as
 * before (enumerate_points), so that the error names the first config where that walk
 * meets it, if it does (tests/test_enumerate.c). */
#include "space.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "TILE=8,PAD=0" plus " with M=1024,N=..." when a problem is given. */
static void describe_point(const CutuneSpace *s, const int64_t *vals, const int64_t *dims,
                           char *buf, size_t len)
{
    if (cutune_config_format(s, vals, buf, len) != 0)
        snprintf(buf, len, "(config too long to show)");
    if (s->nparams == 0)
        snprintf(buf, len, "the empty config");
    if (dims && s->ndims) {
        size_t k = strlen(buf);
        int n = snprintf(buf + k, len - k, " with ");
        for (size_t i = 0; i < s->ndims && n >= 0 && (size_t)n < len - k; i++) {
            k += (size_t)n;
            n = snprintf(buf + k, len - k, "%s%s=%lld", i ? "," : "", s->dim_names[i],
                         (long long)dims[i]);
        }
    }
}

/* Every point in turn, each constraint evaluated at each point (the reference for errors). */
static int enumerate_points(const CutuneSpace *s, const CutuneLimits *lim, const int64_t *dims,
                            CutuneConfigList *out, CutuneError *err)
{
    memset(out, 0, sizeof *out);
    const size_t np = s->nparams, nd = s->ndims, nc = s->nconstraints;
    out->nparams = np;

    size_t nsyms = np + nd + CUTUNE_NLIMITS;
    int64_t *sym = calloc(nsyms, sizeof *sym);
    size_t *idx = calloc(np ? np : 1, sizeof *idx);
    size_t *rej = calloc(nc ? nc : 1, sizeof *rej);
    int64_t *rows = NULL;
    size_t nrows = 0, cap = 0;
    int rc = 0;
    if (!sym || !idx || !rej) {
        rc = cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
        goto fail;
    }
    for (size_t i = 0; i < np; i++) {
        if (s->params[i].nvalues == 0)
            goto done; /* an empty parameter: no points at all */
        sym[i] = s->params[i].values[0];
    }
    for (size_t i = 0; i < nd; i++)
        sym[np + i] = dims ? dims[i] : 0;
    {
        size_t k = np + nd;
#define CUTUNE_X_LIMIT_VALUE(NAME, field) sym[k++] = lim->field;
        CUTUNE_LIMIT_TABLE(CUTUNE_X_LIMIT_VALUE)
#undef CUTUNE_X_LIMIT_VALUE
    }

    for (;;) {
        int ok = 1;
        for (size_t c = 0; c < nc && ok; c++) {
            const CutuneConstraint *con = &s->constraints[c];
            if (con->uses_problem && !dims)
                continue;
            int64_t r = 0;
            CutuneExprError ee;
            memset(&ee, 0, sizeof ee);
            if (cutune_expr_eval(con->expr, sym, &r, &ee) != 0) {
                char where[512];
                describe_point(s, sym, dims ? sym + np : NULL, where, sizeof where);
                rc = cutune_error(err, CUTUNE_ERR_RANGE,
                                  "%s:%d: constraint '%s' failed to evaluate for %s: %s at "
                                  "column %d near '%s'; guard the expression so that it is "
                                  "defined for every config, e.g. PAD != 0 && TILE %% PAD == 0",
                                  s->path ? s->path : "(space)", con->line, con->name, where,
                                  ee.message, ee.column, ee.token);
                goto fail;
            }
            if (r == 0) {
                rej[c]++;
                ok = 0;
            }
        }
        if (ok) {
            if (nrows == cap) {
                size_t ncap = cap ? 2 * cap : 64;
                size_t bytes;
                if (__builtin_mul_overflow(ncap, (np ? np : 1) * sizeof *rows, &bytes)) {
                    rc = cutune_error(err, CUTUNE_ERR_NOMEM, "too many configs");
                    goto fail;
                }
                int64_t *nr = realloc(rows, bytes);
                if (!nr) {
                    rc = cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory (%zu configs)", nrows);
                    goto fail;
                }
                rows = nr;
                cap = ncap;
            }
            if (np)
                memcpy(rows + nrows * np, sym, np * sizeof *rows);
            nrows++;
        }
        /* odometer: the last parameter turns fastest */
        size_t i = np;
        while (i > 0) {
            i--;
            if (++idx[i] < s->params[i].nvalues) {
                sym[i] = s->params[i].values[idx[i]];
                break;
            }
            idx[i] = 0;
            sym[i] = s->params[i].values[0];
            if (i == 0)
                goto done;
        }
        if (np == 0)
            break;
    }
done:
    free(sym);
    free(idx);
    if (!rows) {
        rows = malloc(sizeof *rows); /* a non-NULL array even when empty */
        if (!rows) {
            free(rej);
            return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
        }
    }
    out->values = rows;
    out->nconfigs = nrows;
    out->rejected_by = rej;
    return 0;
fail:
    free(sym);
    free(idx);
    free(rej);
    free(rows);
    memset(out, 0, sizeof *out);
    return rc;
}

/* The walk of the tree (see the top of the file). */
typedef struct Walk {
    const CutuneSpace *s;
    size_t *order;  /* per level: the parameter set there */
    size_t *stride; /* per parameter: its step in a point's number in the file's order */
    int64_t *sym;   /* the parameters set so far (a constraint reads no deeper one) */
    int *level;     /* per constraint: its deepest level; -1 none, -2 not checked */
    int *before;    /* per constraint: the deepest level of the checked ones before it */
    size_t *below;  /* per level d: the points under one setting of levels 0..d-1 */
    size_t *rej;
    int64_t *rows;
    size_t *rank; /* per row: its point's number in the file's order */
    size_t nrows, cap;
    int failed; /* a constraint failed to evaluate, or out of memory */
} Walk;

static int add_row(Walk *w, size_t rank)
{
    size_t np = w->s->nparams;
    if (w->nrows == w->cap) {
        size_t ncap = w->cap ? 2 * w->cap : 64, bytes;
        if (__builtin_mul_overflow(ncap, (np ? np : 1) * sizeof *w->rows, &bytes))
            return -1;
        int64_t *nr = realloc(w->rows, bytes);
        if (!nr)
            return -1;
        w->rows = nr;
        size_t *nk = realloc(w->rank, ncap * sizeof *nk);
        if (!nk)
            return -1;
        w->rank = nk;
        w->cap = ncap;
    }
    if (np)
        memcpy(w->rows + w->nrows * np, w->sym, np * sizeof *w->rows);
    w->rank[w->nrows++] = rank;
    return 0;
}

/* Levels 0..d-1 are set, the point's number so far is rank; first is the first constraint
 * in file order known to fail (nconstraints: none). */
static void walk(Walk *w, size_t d, size_t rank, size_t first)
{
    const CutuneSpace *s = w->s;
    for (size_t c = 0; c < first; c++) {
        if (w->level[c] != (int)d - 1)
            continue;
        int64_t r = 0;
        CutuneExprError ee;
        if (cutune_expr_eval(s->constraints[c].expr, w->sym, &r, &ee) != 0) {
            w->failed = 1;
            return;
        }
        if (r == 0)
            first = c; /* the constraints after it no longer matter */
    }
    if (first < s->nconstraints && w->before[first] <= (int)d - 1) {
        size_t n = w->rej[first] + w->below[d]; /* first rejects every point below */
        w->rej[first] = n < w->rej[first] ? SIZE_MAX : n;
        return;
    }
    if (d == s->nparams) { /* a point that every constraint allows */
        if (add_row(w, rank) != 0)
            w->failed = 1;
        return;
    }
    size_t k = w->order[d];
    const CutuneParam *p = &s->params[k];
    for (size_t i = 0; i < p->nvalues && !w->failed; i++) {
        w->sym[k] = p->values[i];
        walk(w, d + 1, rank + i * w->stride[k], first);
    }
}

/* The levels: the parameters in the order the constraints first read them (in file order,
 * each constraint's in file order), then the others; so a constraint's deepest parameter
 * is set no later than any after it needs, and each can cut the walk where it fails. A
 * space of more points than a size_t counts keeps the file's order (no numbers to sort). */
static void plan_levels(Walk *w, const int64_t *dims)
{
    const CutuneSpace *s = w->s;
    size_t np = s->nparams, n = 0, total = 1;
    int overflow = 0;
    for (size_t k = np; k > 0; k--) {
        w->stride[k - 1] = total;
        overflow |= __builtin_mul_overflow(total, s->params[k - 1].nvalues, &total);
    }
    uint8_t *placed = calloc(np ? np : 1, 1);
    if (placed && !overflow) {
        for (size_t c = 0; c < s->nconstraints; c++)
            for (size_t k = 0; k < np; k++)
                if (!placed[k] && (!s->constraints[c].uses_problem || dims) &&
                    cutune_expr_uses(s->constraints[c].expr, k)) {
                    placed[k] = 1;
                    w->order[n++] = k;
                }
    }
    for (size_t k = 0; k < np; k++)
        if (!placed || overflow || !placed[k])
            w->order[n++] = k;
    free(placed);
}

static int by_rank(const void *a, const void *b, void *rank)
{
    size_t x = ((const size_t *)rank)[*(const size_t *)a],
           y = ((const size_t *)rank)[*(const size_t *)b];
    return (x > y) - (x < y);
}

/* The rows in the order of their points' numbers: the file's order. */
static int sort_rows(Walk *w)
{
    size_t np = w->s->nparams, n = w->nrows, *by = malloc((n ? n : 1) * sizeof *by);
    int64_t *rows = malloc((n ? n : 1) * (np ? np : 1) * sizeof *rows);
    if (!by || !rows) {
        free(by);
        free(rows);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        by[i] = i;
    qsort_r(by, n, sizeof *by, by_rank, w->rank);
    for (size_t i = 0; i < n; i++)
        memcpy(rows + i * np, w->rows + by[i] * np, np * sizeof *rows);
    free(by);
    free(w->rows);
    w->rows = rows;
    return 0;
}

/* 0; 1 when a constraint failed to evaluate or the rows did not fit (out left empty); or
 * an error. */
static int enumerate_tree(const CutuneSpace *s, const CutuneLimits *lim, const int64_t *dims,
                          CutuneConfigList *out, CutuneError *err)
{
    const size_t np = s->nparams, nd = s->ndims, nc = s->nconstraints;
    memset(out, 0, sizeof *out);
    out->nparams = np;
    Walk w = {.s = s};
    w.order = calloc(np ? np : 1, sizeof *w.order);
    w.stride = calloc(np ? np : 1, sizeof *w.stride);
    w.sym = calloc(np + nd + CUTUNE_NLIMITS, sizeof *w.sym);
    w.level = calloc(nc ? nc : 1, sizeof *w.level);
    w.before = calloc(nc ? nc : 1, sizeof *w.before);
    w.below = calloc(np + 1, sizeof *w.below);
    w.rej = calloc(nc ? nc : 1, sizeof *w.rej);
    int rc = 0;
    if (!w.order || !w.stride || !w.sym || !w.level || !w.before || !w.below || !w.rej) {
        rc = cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
        goto out;
    }
    int empty = 0;
    for (size_t i = 0; i < np; i++)
        empty |= s->params[i].nvalues == 0; /* an empty parameter: no points at all */
    /* the parameters' places stay 0 until the walk sets them: no constraint reads one before */
    cutune_space_symbol_values(s, w.sym, dims, lim, w.sym);
    plan_levels(&w, dims);
    int sorted = 1;
    w.below[np] = 1;
    for (size_t d = np; d > 0; d--) {
        size_t n;
        sorted &= w.order[d - 1] == d - 1;
        w.below[d - 1] = __builtin_mul_overflow(w.below[d], s->params[w.order[d - 1]].nvalues, &n)
                             ? SIZE_MAX
                             : n;
    }
    int deepest = -1;
    for (size_t c = 0; c < nc; c++) {
        const CutuneConstraint *con = &s->constraints[c];
        w.before[c] = deepest;
        w.level[c] = -2;
        if (con->uses_problem && !dims)
            continue; /* a constraint of the problem, and no problem: not checked */
        w.level[c] = -1;
        for (size_t d = 0; d < np; d++)
            if (cutune_expr_uses(con->expr, w.order[d]))
                w.level[c] = (int)d;
        deepest = w.level[c] > deepest ? w.level[c] : deepest;
    }
    if (!empty)
        walk(&w, 0, 0, nc);
    if (w.failed || (!sorted && sort_rows(&w) != 0)) {
        rc = 1;
        goto out;
    }
    if (!w.rows && !(w.rows = malloc(sizeof *w.rows))) { /* non-NULL even when empty */
        rc = cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
        goto out;
    }
    out->values = w.rows;
    out->nconfigs = w.nrows;
    out->rejected_by = w.rej;
    w.rows = NULL;
    w.rej = NULL;
out:
    free(w.order);
    free(w.stride);
    free(w.sym);
    free(w.level);
    free(w.before);
    free(w.below);
    free(w.rej);
    free(w.rows);
    free(w.rank);
    return rc;
}

int cutune_space_enumerate(const CutuneSpace *s, const CutuneLimits *lim, const int64_t *dims,
                           CutuneConfigList *out, CutuneError *err)
{
    if (!out)
        return cutune_error(err, CUTUNE_ERR_INVALID, "cutune_space_enumerate: no output");
    memset(out, 0, sizeof *out);
    if (!s || !lim)
        return cutune_error(err, CUTUNE_ERR_INVALID, "cutune_space_enumerate: NULL argument");
    int rc = enumerate_tree(s, lim, dims, out, err);
    /* a constraint that failed to evaluate (or rows that did not fit): the walk of every
     * point says which and where, or finds that no point it checks meets it */
    return rc == 1 ? enumerate_points(s, lim, dims, out, err) : rc;
}

int cutune_space_allows(const CutuneSpace *s, const CutuneLimits *lim, const int64_t *values,
                        const int64_t *dims, char *why, size_t len, CutuneError *err)
{
    if (!s || !lim || !values || !dims)
        return cutune_error(err, CUTUNE_ERR_INVALID, "cutune_space_allows: NULL argument");
    size_t np = s->nparams, nd = s->ndims;
    int64_t *sym = calloc(np + nd + CUTUNE_NLIMITS, sizeof *sym);
    if (!sym)
        return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
    cutune_space_symbol_values(s, values, dims, lim, sym);
    int allowed = 1;
    for (size_t c = 0; c < s->nconstraints && allowed; c++) {
        const CutuneConstraint *con = &s->constraints[c];
        int64_t r = 0;
        CutuneExprError ee;
        memset(&ee, 0, sizeof ee);
        if (cutune_expr_eval(con->expr, sym, &r, &ee) != 0 || r == 0) {
            allowed = 0;
            if (len)
                snprintf(why, len, "%s:%d: constraint '%s' %s", s->path ? s->path : "(space)",
                         con->line, con->name, r == 0 && !ee.message[0] ? "is false" : ee.message);
        }
    }
    free(sym);
    return allowed;
}
