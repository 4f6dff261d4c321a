/* A space's parameters: their [param.NAME] sections, the keys values, range, step and pow2,
 * the values they generate, and the limits on how large the space may grow (the table is in
 * space_limits.h). */
#include "space_limits.h"
#include "spaceini_int.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VALUES_FIX "write integers separated by commas, e.g. values = 8, 16, 32"
#define PARAM_KEYS_FIX \
    "a parameter takes one of 'values = 8, 16, 32', 'range = 1..64' (with an optional " \
    "'step = 2') or 'pow2 = 1..256'"

static const char *int_problem(int r)
{
    return r == CUTUNE_I64_RANGE ? "is out of the int64 range" : "is not an integer";
}

int space_param_start(Ctx *c, const char *pn, size_t pl)
{
    int line = c->lineno;
    CutuneSpace *s = c->s;
    if (!space_is_identifier(pn, pl))
        return space_fail(c, line, CUTUNE_ERR_PARSE,
                          "parameter name '%.*s' is not an "
                          "identifier; use letters, digits and '_', not starting with a digit "
                          "(it becomes -DNAME=value)",
                          (int)pl, pn);
    if (pl >= CUTUNE_NAME_MAX)
        return space_fail(c, line, CUTUNE_ERR_PARSE,
                          "parameter name '%.*s' is too long; use "
                          "at most %d characters",
                          (int)pl, pn, CUTUNE_NAME_MAX - 1);
    char pname[CUTUNE_NAME_MAX];
    memcpy(pname, pn, pl);
    pname[pl] = '\0';
    for (size_t i = 0; i < s->nparams; i++)
        if (strcmp(s->params[i].name, pname) == 0)
            return space_fail(c, line, CUTUNE_ERR_PARSE,
                              "duplicate parameter '%s' (first at "
                              "line %d); give each parameter one [param.%s] section",
                              pname, s->params[i].line, pname);
    if (space_name_is_limit(pname))
        return space_fail(c, line, CUTUNE_ERR_PARSE,
                          "parameter '%s' has the name of a device "
                          "limit; rename the parameter",
                          pname);
    for (size_t i = 0; i < s->ndims; i++)
        if (strcmp(s->dim_names[i], pname) == 0)
            return space_fail(c, line, CUTUNE_ERR_PARSE,
                              "parameter '%s' has the name of a "
                              "problem dimension; rename the parameter",
                              pname);
    if (s->nparams == CUTUNE_MAX_PARAMS)
        return space_fail(c, line, CUTUNE_ERR_PARSE,
                          "parameter '%s' is one more than the %d a "
                          "space may have; merge parameters, fix some of them with -D in the "
                          "kernel, or split the variant",
                          pname, CUTUNE_MAX_PARAMS);
    if (!space_grow(c, line, s->nparams, &c->pcap, 8, (void **)&s->params, sizeof *s->params,
                    (void **)&c->ps, sizeof *c->ps))
        return 0;
    CutuneParam *p = &s->params[s->nparams];
    memset(p, 0, sizeof *p);
    memcpy(p->name, pname, pl + 1);
    p->line = line;
    memset(&c->ps[s->nparams], 0, sizeof c->ps[0]);
    c->cur = s->nparams++;
    c->sec = SEC_PARAM;
    return 1;
}

static int add_value(Ctx *c, const char *it, size_t len)
{
    CutuneParam *p = &c->s->params[c->cur];
    ParamState *ps = &c->ps[c->cur];
    int64_t v = 0;
    int r = cutune_parse_i64(it, len, &v);
    if (r)
        return space_fail(c, c->lineno, CUTUNE_ERR_PARSE,
                          "parameter '%s': value '%.*s' %s; " VALUES_FIX, p->name, (int)len, it,
                          int_problem(r));
    if (!space_grow(c, c->lineno, p->nvalues, &ps->cap, 16, (void **)&p->values, sizeof *p->values,
                    (void **)&ps->value_lines, sizeof *ps->value_lines))
        return 0;
    ps->value_lines[p->nvalues] = c->lineno;
    p->values[p->nvalues++] = v;
    return 1;
}

/* "lo..hi" for range and pow2. */
static int parse_bounds(Ctx *c, const char *key, const char *value, int64_t *lo, int64_t *hi)
{
    const CutuneParam *p = &c->s->params[c->cur];
    const char *dots = strstr(value, "..");
    if (!dots)
        return space_fail(c, c->lineno, CUTUNE_ERR_PARSE,
                          "parameter '%s': %s '%s' is not of "
                          "the form lo..hi; write e.g. %s = 1..64",
                          p->name, key, value, key);
    const char *a = value, *b = dots + 2;
    size_t al = (size_t)(dots - value), bl = strlen(b);
    cutune_trim(&a, &al);
    cutune_trim(&b, &bl);
    int ra = cutune_parse_i64(a, al, lo), rb = ra ? 0 : cutune_parse_i64(b, bl, hi);
    if (ra || rb)
        return space_fail(c, c->lineno, CUTUNE_ERR_PARSE,
                          "parameter '%s': bound '%.*s' of %s "
                          "%s; write integer bounds, e.g. %s = 1..64",
                          p->name, ra ? (int)al : (int)bl, ra ? a : b, key,
                          int_problem(ra ? ra : rb), key);
    if (*lo > *hi)
        return space_fail(c, c->lineno, CUTUNE_ERR_PARSE,
                          "parameter '%s': %s %lld..%lld is "
                          "empty (lo > hi); write the smaller bound first, e.g. %s = %lld..%lld",
                          p->name, key, (long long)*lo, (long long)*hi, key, (long long)*hi,
                          (long long)*lo);
    return 1;
}

static int parse_step(Ctx *c, const char *value)
{
    const CutuneParam *p = &c->s->params[c->cur];
    int64_t st = 0;
    int r = cutune_parse_i64(value, strlen(value), &st);
    if (r || st <= 0)
        return space_fail(c, c->lineno, CUTUNE_ERR_PARSE,
                          "parameter '%s': step '%s' %s; "
                          "write a positive integer, e.g. step = 2",
                          p->name, value, r ? int_problem(r) : "is not positive");
    c->ps[c->cur].step = st;
    return 1;
}

int space_param_key(Ctx *c, const char *key, const char *value, int cont)
{
    CutuneParam *p = &c->s->params[c->cur];
    ParamState *ps = &c->ps[c->cur];
    int line = c->lineno;
    int is_values = strcmp(key, "values") == 0, is_range = strcmp(key, "range") == 0,
        is_pow2 = strcmp(key, "pow2") == 0, is_step = strcmp(key, "step") == 0;
    if (!is_values && !is_range && !is_pow2 && !is_step)
        return space_fail(c, line, CUTUNE_ERR_PARSE,
                          "parameter '%s': unknown key '%s'; " PARAM_KEYS_FIX, p->name, key);
    if (cont) {
        if (is_values)
            return space_for_each_item(c, value, add_value, p->name, VALUES_FIX);
        return space_fail(c, line, CUTUNE_ERR_PARSE,
                          "parameter '%s': '%s' cannot continue on "
                          "a second line; write it on one line and start the next key at the "
                          "beginning of the line",
                          p->name, key);
    }
    int *slot = is_values  ? &ps->values_line
                : is_range ? &ps->range_line
                : is_pow2  ? &ps->pow2_line
                           : &ps->step_line;
    if (*slot)
        return space_fail(c, line, CUTUNE_ERR_PARSE,
                          "parameter '%s': '%s' is given twice "
                          "(first at line %d); %s",
                          p->name, key, *slot,
                          is_values ? "put all values in one list (continue long lists on "
                                      "indented lines)"
                                    : "keep one");
    if (!is_step) {
        const char *kinds[3] = {"values", "range", "pow2"};
        int lines[3] = {ps->values_line, ps->range_line, ps->pow2_line};
        for (int k = 0; k < 3; k++)
            if (lines[k])
                return space_fail(c, line, CUTUNE_ERR_PARSE,
                                  "parameter '%s' has both '%s' "
                                  "(line %d) and '%s'; keep only one of values, range or pow2",
                                  p->name, kinds[k], lines[k], key);
    }
    *slot = line;
    if (is_values)
        return space_for_each_item(c, value, add_value, p->name, VALUES_FIX);
    if (is_step)
        return parse_step(c, value);
    return parse_bounds(c, key, value, &ps->lo, &ps->hi);
}

/* ------------------------------------------------------------------------------------ */
/* After the whole file is read */

typedef struct {
    int64_t v;
    size_t i;
} ValueAt;

static int cmp_value_at(const void *a, const void *b)
{
    const ValueAt *x = a, *y = b;
    if (x->v != y->v)
        return x->v < y->v ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* An explicit list: not empty, not too long, no value twice. */
static int check_values(Ctx *c, CutuneParam *p, const ParamState *ps)
{
    if (p->nvalues == 0)
        return space_fail(c, ps->values_line, CUTUNE_ERR_PARSE,
                          "parameter '%s': empty list; " VALUES_FIX, p->name);
    if (p->nvalues > CUTUNE_MAX_VALUES)
        return space_fail(c, ps->values_line, CUTUNE_ERR_PARSE,
                          "parameter '%s' lists %zu "
                          "values, more than the %d a parameter may have; keep the values "
                          "worth measuring",
                          p->name, p->nvalues, CUTUNE_MAX_VALUES);
    /* duplicates: sort the indices by value, then compare neighbours */
    ValueAt *ix = malloc(p->nvalues * sizeof *ix);
    if (!ix)
        return space_fail(c, ps->values_line, CUTUNE_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < p->nvalues; i++)
        ix[i] = (ValueAt){p->values[i], i};
    qsort(ix, p->nvalues, sizeof *ix, cmp_value_at);
    for (size_t i = 1; i < p->nvalues; i++) {
        if (ix[i].v == ix[i - 1].v) {
            size_t later = ix[i].i;
            int first_line = ps->value_lines[ix[i - 1].i];
            free(ix);
            return space_fail(c, ps->value_lines[later], CUTUNE_ERR_PARSE,
                              "parameter '%s': "
                              "value %lld appears twice (first on line %d); remove the "
                              "duplicate",
                              p->name, (long long)p->values[later], first_line);
        }
    }
    free(ix);
    return 1;
}

/* range lo..hi (with step) or pow2 lo..hi into p->values. */
static int generate_values(Ctx *c, CutuneParam *p, const ParamState *ps)
{
    int64_t *vals;
    size_t n = 0;
    if (ps->range_line) {
        uint64_t step = ps->step_line ? (uint64_t)ps->step : 1;
        uint64_t count = ((uint64_t)ps->hi - (uint64_t)ps->lo) / step + 1;
        if (count > CUTUNE_MAX_VALUES)
            return space_fail(c, ps->range_line, CUTUNE_ERR_PARSE,
                              "parameter '%s': range "
                              "%lld..%lld step %llu has %llu values, more than the %d a "
                              "parameter may have; narrow the range or use a larger step",
                              p->name, (long long)ps->lo, (long long)ps->hi,
                              (unsigned long long)step, (unsigned long long)count,
                              CUTUNE_MAX_VALUES);
        vals = malloc((size_t)count * sizeof *vals);
        if (!vals)
            return space_fail(c, ps->range_line, CUTUNE_ERR_NOMEM, "out of memory");
        for (uint64_t i = 0; i < count; i++)
            vals[n++] = (int64_t)((uint64_t)ps->lo + i * step); /* stays within lo..hi */
    } else {
        vals = malloc(63 * sizeof *vals);
        if (!vals)
            return space_fail(c, ps->pow2_line, CUTUNE_ERR_NOMEM, "out of memory");
        for (int k = 0; k < 63; k++) {
            int64_t v = (int64_t)1 << k;
            if (v >= ps->lo && v <= ps->hi)
                vals[n++] = v;
        }
        if (n == 0) {
            free(vals);
            return space_fail(c, ps->pow2_line, CUTUNE_ERR_PARSE,
                              "parameter '%s': pow2 "
                              "%lld..%lld contains no power of two; widen the bounds, e.g. "
                              "pow2 = 1..256",
                              p->name, (long long)ps->lo, (long long)ps->hi);
        }
    }
    free(p->values);
    p->values = vals;
    p->nvalues = n;
    return 1;
}

static int finish_param(Ctx *c, size_t pi)
{
    CutuneParam *p = &c->s->params[pi];
    const ParamState *ps = &c->ps[pi];
    if (ps->step_line && !ps->range_line)
        return space_fail(c, ps->step_line, CUTUNE_ERR_PARSE,
                          "parameter '%s': 'step' only "
                          "applies to 'range'; write range = lo..hi next to it, or drop step",
                          p->name);
    if (!ps->values_line && !ps->range_line && !ps->pow2_line)
        return space_fail(c, p->line, CUTUNE_ERR_PARSE, "parameter '%s' has no values; add %s",
                          p->name, "values = 8, 16, 32, range = 1..64 or pow2 = 1..256");
    return ps->values_line ? check_values(c, p, ps) : generate_values(c, p, ps);
}

int space_size_check(Ctx *c)
{
    const CutuneSpace *s = c->s;
    uint64_t total = 1;
    size_t biggest = 0;
    for (size_t i = 0; i < s->nparams; i++) {
        if (s->params[i].nvalues > s->params[biggest].nvalues)
            biggest = i;
        if (__builtin_mul_overflow(total, (uint64_t)s->params[i].nvalues, &total) ||
            total > CUTUNE_MAX_POINTS)
            total = CUTUNE_MAX_POINTS + 1;
    }
    if (total > CUTUNE_MAX_POINTS) {
        char sizes[600];
        size_t k = 0;
        sizes[0] = '\0';
        for (size_t i = 0; i < s->nparams && k < sizeof sizes; i++)
            k += (size_t)snprintf(sizes + k, sizeof sizes - k, "%s%s: %zu", i ? " x " : "",
                                  s->params[i].name, s->params[i].nvalues);
        return space_fail(c, s->params[biggest].line, CUTUNE_ERR_PARSE,
                          "the space has more "
                          "than %llu points (%s); narrow the parameters (e.g. '%s') or split "
                          "the variant",
                          CUTUNE_MAX_POINTS, sizes, s->params[biggest].name);
    }
    /* every point may be valid: the enumeration then holds points x parameters values,
     * and parameters with one value each count there too */
    if (total * s->nparams > CUTUNE_MAX_CELLS) {
        size_t single = s->nparams;
        for (size_t i = s->nparams; i-- > 0;)
            if (s->params[i].nvalues == 1)
                single = i;
        size_t at = single < s->nparams ? single : biggest;
        return space_fail(c, s->params[at].line, CUTUNE_ERR_PARSE,
                          "the space's %llu points "
                          "of %zu parameters would take %llu MiB to enumerate, more than the "
                          "%llu MiB a space may take; %s",
                          (unsigned long long)total, s->nparams,
                          (unsigned long long)(total * s->nparams * 8 >> 20),
                          (unsigned long long)(CUTUNE_MAX_CELLS * 8 >> 20),
                          single < s->nparams ? "a parameter with one value (like this one) "
                                                "can be a #define in the kernel instead"
                                              : "narrow the parameters or split the variant");
    }
    return 1;
}

int space_params_finish(Ctx *c)
{
    for (size_t i = 0; i < c->s->nparams; i++)
        if (!finish_param(c, i))
            return 0;
    return 1;
}
