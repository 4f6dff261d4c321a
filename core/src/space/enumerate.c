/* The valid configs of a space: every point of the cartesian product that its constraints
 * allow on a device (cutune_space_enumerate), and the check of one config
 * (cutune_space_allows). The symbols the constraints see are spacekeys.c's. */
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

int cutune_space_enumerate(const CutuneSpace *s, const CutuneLimits *lim, const int64_t *dims,
                           CutuneConfigList *out, CutuneError *err)
{
    if (!out)
        return cutune_error(err, CUTUNE_ERR_INVALID, "cutune_space_enumerate: no output");
    memset(out, 0, sizeof *out);
    if (!s || !lim)
        return cutune_error(err, CUTUNE_ERR_INVALID, "cutune_space_enumerate: NULL argument");
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
