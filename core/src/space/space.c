/* Tuning spaces in memory: device limits and the canonical config text. Reading a space
 * file is in spaceini.c; enumerating its valid configs in enumerate.c. */
#include "space.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const cutune_limit_names[] = {
#define CUTUNE_X_LIMIT_NAME(NAME, field) #NAME,
    CUTUNE_LIMIT_TABLE(CUTUNE_X_LIMIT_NAME)
#undef CUTUNE_X_LIMIT_NAME
};
_Static_assert(sizeof cutune_limit_names / sizeof cutune_limit_names[0] == CUTUNE_NLIMITS,
               "CUTUNE_NLIMITS must count CUTUNE_LIMIT_TABLE");

void cutune_limits_sm90(CutuneLimits *out)
{
    if (!out)
        return;
    out->max_threads_per_block = 1024;
    out->max_shared_per_block = 232448; /* 227 KiB, opt-in */
    out->max_shared_per_sm = 233472;    /* 228 KiB */
    out->max_regs_per_block = 65536;
    out->warp_size = 32;
    out->sm_count = 132;
    out->cc = 90;
}

void cutune_limits_from_device(const CutuneDeviceInfo *d, CutuneLimits *out)
{
    if (!out)
        return;
    if (!d) {
        cutune_limits_sm90(out);
        return;
    }
    out->max_threads_per_block = d->max_threads_per_block;
    out->max_shared_per_block = d->max_shared_per_block;
    out->max_shared_per_sm = d->max_shared_per_sm;
    out->max_regs_per_block = d->max_regs_per_block;
    out->warp_size = d->warp_size;
    out->sm_count = d->sm_count;
    out->cc = 10 * (int64_t)d->cc_major + d->cc_minor;
}

void cutune_space_free(CutuneSpace *s)
{
    if (!s)
        return;
    free(s->path);
    free(s->variant);
    free(s->problem_lines);
    for (size_t i = 0; i < s->nkeys; i++)
        free(s->keys[i].value);
    free(s->keys);
    free(s->tensor_maps);
    for (size_t i = 0; i < s->nparams; i++)
        free(s->params[i].values);
    free(s->params);
    for (size_t i = 0; i < s->ndims; i++)
        free(s->dim_names[i]);
    free(s->dim_names);
    for (size_t i = 0; i < s->nconstraints; i++) {
        free(s->constraints[i].text);
        cutune_expr_free(s->constraints[i].expr);
    }
    free(s->constraints);
    for (size_t i = 0; i < s->nproblems; i++)
        free(s->problems[i]);
    free(s->problems);
    free(s);
}

size_t cutune_space_cardinality(const CutuneSpace *s)
{
    if (!s)
        return 0;
    size_t n = 1;
    for (size_t i = 0; i < s->nparams; i++)
        if (__builtin_mul_overflow(n, s->params[i].nvalues, &n))
            return SIZE_MAX;
    return n;
}

void cutune_config_list_free(CutuneConfigList *l)
{
    if (!l)
        return;
    free(l->values);
    free(l->rejected_by);
    l->values = NULL;
    l->rejected_by = NULL;
    l->nconfigs = 0;
    l->nparams = 0;
}

int cutune_config_format(const CutuneSpace *s, const int64_t *values, char *buf, size_t len)
{
    if (!s || !buf || len == 0 || (s->nparams && !values))
        return CUTUNE_ERR_INVALID;
    size_t k = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < s->nparams; i++) {
        int n = snprintf(buf + k, len - k, "%s%s=%lld", i ? "," : "", s->params[i].name,
                         (long long)values[i]);
        if (n < 0 || (size_t)n >= len - k) {
            buf[0] = '\0';
            return CUTUNE_ERR_RANGE;
        }
        k += (size_t)n;
    }
    return 0;
}

#define CONFIG_FIX "write NAME=value pairs separated by commas, e.g. TILE=16,PAD=1"

/* Parse NAME=value pairs into values[] (seen[i] set for each named parameter); with
 * `partial`, parameters may be left out. */
static int parse_assignment(const CutuneSpace *s, const char *text, int64_t *values,
                            unsigned char *seen_out, int partial, CutuneError *err)
{
    if (!s || !text || (s->nparams && !values))
        return cutune_error(err, CUTUNE_ERR_INVALID, "cutune_config_parse: NULL argument");
    unsigned char *seen = calloc(s->nparams ? s->nparams : 1, 1);
    int64_t *tmp = calloc(s->nparams ? s->nparams : 1, sizeof *tmp);
    int rc = 0;
    if (!seen || !tmp) {
        rc = cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
        goto out;
    }
    const char *p = text;
    size_t all = strlen(text);
    const char *q = text;
    size_t qlen = all;
    cutune_trim(&q, &qlen);
    if (qlen > 0) {
        for (;;) {
            const char *comma = strchr(p, ',');
            size_t ilen = comma ? (size_t)(comma - p) : strlen(p);
            const char *item = p;
            cutune_trim(&item, &ilen);
            if (ilen == 0) {
                rc = cutune_error(err, CUTUNE_ERR_PARSE, "config '%s': empty item; " CONFIG_FIX,
                                  text);
                goto out;
            }
            const char *eq = memchr(item, '=', ilen);
            if (!eq) {
                rc = cutune_error(err, CUTUNE_ERR_PARSE,
                                  "config '%s': '%.*s' is not NAME=value; " CONFIG_FIX, text,
                                  (int)ilen, item);
                goto out;
            }
            const char *name = item;
            size_t nlen = (size_t)(eq - item);
            cutune_trim(&name, &nlen);
            const char *val = eq + 1;
            size_t vlen = ilen - (size_t)(eq + 1 - item);
            cutune_trim(&val, &vlen);
            size_t idx = s->nparams;
            for (size_t i = 0; i < s->nparams; i++)
                if (strlen(s->params[i].name) == nlen &&
                    strncmp(s->params[i].name, name, nlen) == 0)
                    idx = i;
            if (idx == s->nparams) {
                char known[512];
                size_t k = 0;
                known[0] = '\0';
                for (size_t i = 0; i < s->nparams && k < sizeof known; i++)
                    k += (size_t)snprintf(known + k, sizeof known - k, "%s%s", i ? ", " : "",
                                          s->params[i].name);
                rc = cutune_error(err, CUTUNE_ERR_PARSE,
                                  "config '%s': unknown parameter '%.*s'; the parameters of %s "
                                  "are: %s",
                                  text, (int)nlen, name, s->variant ? s->variant : "this space",
                                  s->nparams ? known : "(none)");
                goto out;
            }
            if (seen[idx]) {
                rc = cutune_error(err, CUTUNE_ERR_PARSE,
                                  "config '%s': parameter '%s' is set twice; set each "
                                  "parameter once",
                                  text, s->params[idx].name);
                goto out;
            }
            int pr = cutune_parse_i64(val, vlen, &tmp[idx]);
            if (pr) {
                rc = cutune_error(err, CUTUNE_ERR_PARSE,
                                  "config '%s': value '%.*s' of %s is %s; " CONFIG_FIX, text,
                                  (int)vlen, val, s->params[idx].name,
                                  pr == CUTUNE_I64_RANGE ? "out of the int64 range"
                                                         : "not an integer");
                goto out;
            }
            seen[idx] = 1;
            if (!comma)
                break;
            p = comma + 1;
        }
    }
    for (size_t i = 0; i < s->nparams && !partial; i++) {
        if (!seen[i]) {
            rc = cutune_error(err, CUTUNE_ERR_PARSE,
                              "config '%s': parameter '%s' is missing; " CONFIG_FIX, text,
                              s->params[i].name);
            goto out;
        }
    }
    if (s->nparams) {
        memcpy(values, tmp, s->nparams * sizeof *values);
        if (seen_out)
            memcpy(seen_out, seen, s->nparams);
    }
out:
    free(seen);
    free(tmp);
    return rc;
}

int cutune_config_parse(const CutuneSpace *s, const char *text, int64_t *values, CutuneError *err)
{
    return parse_assignment(s, text, values, NULL, 0, err);
}

int cutune_config_parse_partial(const CutuneSpace *s, const char *text, int64_t *values,
                                unsigned char *named, CutuneError *err)
{
    return parse_assignment(s, text, values, named, 1, err);
}

int cutune_config_list_where(const CutuneSpace *s, CutuneConfigList *cl, const char *const *where,
                             size_t nwhere, CutuneError *err)
{
    if (!s || !cl || (nwhere && !where))
        return cutune_error(err, CUTUNE_ERR_INVALID, "cutune_config_list_where: NULL argument");
    if (nwhere == 0)
        return 0;
    size_t np = s->nparams ? s->nparams : 1;
    int64_t *want = calloc(nwhere * np, sizeof *want);
    unsigned char *named = calloc(nwhere * np, 1);
    int rc = 0;
    if (!want || !named) {
        rc = cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
        goto out;
    }
    for (size_t w = 0; w < nwhere; w++)
        if ((rc = parse_assignment(s, where[w], want + w * np, named + w * np, 1, err)))
            goto out;
    size_t kept = 0;
    for (size_t c = 0; c < cl->nconfigs; c++) {
        const int64_t *row = cl->values + c * cl->nparams;
        int match = 0;
        for (size_t w = 0; w < nwhere && !match; w++) {
            match = 1;
            for (size_t i = 0; i < s->nparams && match; i++)
                match = !named[w * np + i] || row[i] == want[w * np + i];
        }
        if (match && kept != c)
            memmove(cl->values + kept * cl->nparams, row, cl->nparams * sizeof *row);
        kept += match;
    }
    cl->nconfigs = kept;
out:
    free(want);
    free(named);
    return rc;
}
