/* Reading a tuning space file (tuning_spaces/<variant>.ini) with inih.
 *
 *   # comment
 *   [variant]
 *   name = matmul_tiled          ; required, [A-Za-z0-9_]+
 *   description = free text      ; optional
 *   op = matmul                  ; a variant as data: its op, kernel, source and so on
 *                                ; (spacekeys.c); without op, the space of a C plugin
 *
 *   [param.TILE]                 ; one section per parameter, NAME a C identifier
 *   values = 8, 16, 32           ; or: range = 1..64 (with optional step = 2)
 *                                ; or: pow2 = 1..256 (the powers of two within the bounds)
 *   [constraints]
 *   threads_fit = TILE*TILE <= MAX_THREADS_PER_BLOCK   ; label = integer expression
 *
 *   [launch]                     ; grid, block, shared: expressions (spacekeys.c)
 *   grid = ceil_div(N, TILE), ceil_div(M, TILE)
 *
 *   [problems]
 *   default = 1024x1024x1024, 2048x2048x2048           ; repeating the key appends
 *
 * An indented line continues the previous key (inih's multi-line values): long value
 * lists, constraints and problem lists can be spread over several lines.
 *
 * inih only hands us key/value pairs, so the reader that feeds it lines also counts
 * them and notices section headers (an empty [param.X] must still be an error). Every
 * error reads "<path>:<line>: <what>; <how to fix>". Constraints are compiled once the
 * whole file is read, so that they may come before the parameters they use. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ini.h>

#include "space_limits.h"
#include "space.h"

#define limit_names cutune_limit_names
#define NLIMITS CUTUNE_NLIMITS

#define VALUES_FIX "write integers separated by commas, e.g. values = 8, 16, 32"
#define PARAM_KEYS_FIX                                                                   \
    "a parameter takes one of 'values = 8, 16, 32', 'range = 1..64' (with an optional "   \
    "'step = 2') or 'pow2 = 1..256'"
#define SECTIONS_FIX                                                                       \
    "the sections are [variant], [param.NAME], [constraints], [launch] and [problems]"

typedef enum { SEC_NONE, SEC_VARIANT, SEC_PARAM, SEC_CONSTRAINTS, SEC_PROBLEMS, SEC_LAUNCH } Section;

/* What a parameter's keys said, before its values are generated. */
typedef struct {
    int values_line, range_line, step_line, pow2_line;
    int64_t lo, hi, step; /* range or pow2 bounds */
    int *value_lines;     /* line of each explicit value */
    size_t cap;           /* capacity of values and value_lines */
} ParamState;

typedef struct {
    FILE *f;
    const char *path;
    CutuneSpace *s;
    ParamState *ps;
    size_t pcap, ccap, prcap;
    int lineno;
    int indented; /* the line just read starts with white space */
    Section sec;
    size_t cur; /* current parameter */
    char last_key[CUTUNE_NAME_MAX];
    int has_last_key;
    int variant_line, constraints_line, problems_line, launch_line;
    int name_line, description_line;
    int failed, err_line;
    int peek; /* read without compiling constraints (cutune_space_peek) */
    CutuneError e;
} Ctx;

static int fail(Ctx *c, int line, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Record the first error as "<path>:<line>: <message>". Returns 0 (inih's "error"). */
static int fail(Ctx *c, int line, int code, const char *fmt, ...)
{
    if (c->failed)
        return 0;
    c->failed = 1;
    c->err_line = line;
    char msg[sizeof c->e.msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cutune_error(&c->e, code, "%s:%d: %s", c->path, line, msg);
    return 0;
}

static int is_identifier(const char *s, size_t len)
{
    if (len == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
        return 0;
    for (size_t i = 1; i < len; i++)
        if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
            return 0;
    return 1;
}

static int is_word(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_'))
            return 0;
    return 1;
}

static void trim(const char **s, size_t *len)
{
    while (*len && isspace((unsigned char)**s)) {
        (*s)++;
        (*len)--;
    }
    while (*len && isspace((unsigned char)(*s)[*len - 1]))
        (*len)--;
}

/* Strict decimal int64: optional sign, then digits. 0, -1 (not an integer), -2 (range). */
static int parse_i64(const char *s, size_t len, int64_t *out)
{
    size_t i = 0;
    int neg = 0;
    if (i < len && (s[i] == '+' || s[i] == '-')) {
        neg = s[i] == '-';
        i++;
    }
    if (i == len)
        return -1;
    int64_t v = 0;
    int range = 0;
    for (; i < len; i++) {
        if (!isdigit((unsigned char)s[i]))
            return -1;
        int d = s[i] - '0';
        if (!range && (__builtin_mul_overflow(v, 10, &v) ||
                       (neg ? __builtin_sub_overflow(v, d, &v) : __builtin_add_overflow(v, d, &v))))
            range = 1; /* keep scanning: "99999999999999999999x" is not an integer */
    }
    if (range)
        return -2;
    *out = v;
    return 0;
}

static char *dupn(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

static int name_is_limit(const char *s)
{
    for (size_t i = 0; i < NLIMITS; i++)
        if (strcmp(limit_names[i], s) == 0)
            return 1;
    return 0;
}

/* ------------------------------------------------------------------------------------ */
/* Sections (seen by the reader, since inih does not report them) */

static void section_start(Ctx *c, const char *name, size_t len)
{
    int line = c->lineno;
    CutuneSpace *s = c->s;
    c->has_last_key = 0;
    if (len == 7 && memcmp(name, "variant", 7) == 0) {
        if (c->variant_line) {
            fail(c, line, CUTUNE_ERR_PARSE, "section [variant] appears twice (first at line %d); "
                 "merge the two", c->variant_line);
            return;
        }
        c->variant_line = line;
        c->sec = SEC_VARIANT;
        return;
    }
    if (len == 11 && memcmp(name, "constraints", 11) == 0) {
        if (c->constraints_line) {
            fail(c, line, CUTUNE_ERR_PARSE, "section [constraints] appears twice (first at line "
                 "%d); merge the two", c->constraints_line);
            return;
        }
        c->constraints_line = line;
        c->sec = SEC_CONSTRAINTS;
        return;
    }
    if (len == 6 && memcmp(name, "launch", 6) == 0) {
        if (c->launch_line) {
            fail(c, line, CUTUNE_ERR_PARSE, "section [launch] appears twice (first at line %d); "
                 "merge the two", c->launch_line);
            return;
        }
        c->launch_line = line;
        c->sec = SEC_LAUNCH;
        return;
    }
    if (len == 8 && memcmp(name, "problems", 8) == 0) {
        if (c->problems_line) {
            fail(c, line, CUTUNE_ERR_PARSE, "section [problems] appears twice (first at line %d); "
                 "merge the two", c->problems_line);
            return;
        }
        c->problems_line = line;
        c->sec = SEC_PROBLEMS;
        return;
    }
    if (len >= 6 && memcmp(name, "param.", 6) == 0) {
        const char *pn = name + 6;
        size_t pl = len - 6;
        if (!is_identifier(pn, pl)) {
            fail(c, line, CUTUNE_ERR_PARSE, "parameter name '%.*s' is not an identifier; "
                 "use letters, digits and '_', not starting with a digit (it becomes "
                 "-DNAME=value)", (int)pl, pn);
            return;
        }
        if (pl >= CUTUNE_NAME_MAX) {
            fail(c, line, CUTUNE_ERR_PARSE, "parameter name '%.*s' is too long; use at most %d "
                 "characters", (int)pl, pn, CUTUNE_NAME_MAX - 1);
            return;
        }
        char pname[CUTUNE_NAME_MAX];
        memcpy(pname, pn, pl);
        pname[pl] = '\0';
        for (size_t i = 0; i < s->nparams; i++) {
            if (strcmp(s->params[i].name, pname) == 0) {
                fail(c, line, CUTUNE_ERR_PARSE, "duplicate parameter '%s' (first at line %d); "
                     "give each parameter one [param.%s] section", pname, s->params[i].line, pname);
                return;
            }
        }
        if (name_is_limit(pname)) {
            fail(c, line, CUTUNE_ERR_PARSE, "parameter '%s' has the name of a device limit; "
                 "rename the parameter", pname);
            return;
        }
        for (size_t i = 0; i < s->ndims; i++) {
            if (strcmp(s->dim_names[i], pname) == 0) {
                fail(c, line, CUTUNE_ERR_PARSE, "parameter '%s' has the name of a problem "
                     "dimension; rename the parameter", pname);
                return;
            }
        }
        if (s->nparams == CUTUNE_MAX_PARAMS) {
            fail(c, line, CUTUNE_ERR_PARSE, "parameter '%s' is one more than the %d a space may "
                 "have; merge parameters, fix some of them with -D in the kernel, or split the "
                 "variant", pname, CUTUNE_MAX_PARAMS);
            return;
        }
        if (s->nparams == c->pcap) {
            size_t ncap = c->pcap ? 2 * c->pcap : 8;
            CutuneParam *np = realloc(s->params, ncap * sizeof *np);
            if (!np) {
                fail(c, line, CUTUNE_ERR_NOMEM, "out of memory");
                return;
            }
            s->params = np;
            ParamState *nps = realloc(c->ps, ncap * sizeof *nps);
            if (!nps) {
                fail(c, line, CUTUNE_ERR_NOMEM, "out of memory");
                return;
            }
            c->ps = nps;
            c->pcap = ncap;
        }
        CutuneParam *p = &s->params[s->nparams];
        memset(p, 0, sizeof *p);
        memcpy(p->name, pname, pl + 1);
        p->line = line;
        memset(&c->ps[s->nparams], 0, sizeof c->ps[0]);
        c->cur = s->nparams++;
        c->sec = SEC_PARAM;
        return;
    }
    if (len == 5 && memcmp(name, "param", 5) == 0)
        fail(c, line, CUTUNE_ERR_PARSE, "section [param] has no parameter name; write "
             "[param.NAME], e.g. [param.TILE]");
    else
        fail(c, line, CUTUNE_ERR_PARSE, "unknown section [%.*s]; " SECTIONS_FIX, (int)len, name);
}

/* inih's line source: fgets with line counting, over-long line and NUL detection, and
 * section headers. */
static char *reader(char *str, int num, void *stream)
{
    Ctx *c = stream;
    if (c->failed || num < 4)
        return NULL;
    int n = 0, ch = getc(c->f);
    if (ch == EOF) {
        if (ferror(c->f))
            fail(c, c->lineno + 1, CUTUNE_ERR_IO, "cannot read the file: %s; check that it is "
                 "a readable text file", strerror(errno));
        return NULL;
    }
    while (ch != EOF) {
        if (ch == '\0') {
            fail(c, c->lineno + 1, CUTUNE_ERR_PARSE, "the line contains a NUL byte; a space "
                 "file must be plain text");
            return NULL;
        }
        if (n >= num - 2) {
            fail(c, c->lineno + 1, CUTUNE_ERR_PARSE, "line is longer than %d characters; "
                 "split long lists over several lines (indented lines continue the previous "
                 "value)", num - 2);
            return NULL;
        }
        str[n++] = (char)ch;
        if (ch == '\n')
            break;
        ch = getc(c->f);
    }
    if (ch == EOF && ferror(c->f)) {
        fail(c, c->lineno + 1, CUTUNE_ERR_IO, "cannot read the file: %s", strerror(errno));
        return NULL;
    }
    str[n] = '\0';
    c->lineno++;

    const char *p = str;
    if (c->lineno == 1 && (unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB &&
        (unsigned char)p[2] == 0xBF)
        p += 3;
    c->indented = isspace((unsigned char)p[0]) != 0;
    while (isspace((unsigned char)*p))
        p++;
    if (*p != '[')
        return str;
    if (c->indented) {
        fail(c, c->lineno, CUTUNE_ERR_PARSE, "indented section header; start '[' at the "
             "beginning of the line (indented lines continue the previous value)");
        return NULL;
    }
    const char *close = strchr(p, ']');
    if (!close)
        return str; /* inih reports the missing ']' */
    const char *after = close + 1;
    while (*after == ' ' || *after == '\t' || *after == '\r')
        after++;
    if (*after && *after != '\n' && *after != ';' && *after != '#') {
        fail(c, c->lineno, CUTUNE_ERR_PARSE, "unexpected text after the section header; "
             "put nothing but a comment after ']'");
        return NULL;
    }
    const char *name = p + 1;
    size_t len = (size_t)(close - name);
    trim(&name, &len);
    section_start(c, name, len);
    return c->failed ? NULL : str;
}

/* ------------------------------------------------------------------------------------ */
/* Keys */

/* Does an indented continuation line look like a forgotten "key = value"? A lone '='
 * (not part of ==, <=, >=, !=) gives it away. */
static int looks_like_key(const char *v)
{
    for (const char *q = strchr(v, '='); q; q = strchr(q + 1, '=')) {
        char prev = q > v ? q[-1] : ' ';
        if (q[1] == '=') {
            q++;
            continue;
        }
        if (prev != '<' && prev != '>' && prev != '!' && prev != '=')
            return 1;
    }
    return 0;
}

/* Split one line's comma-separated list; calls item() on each trimmed item. A trailing
 * comma at the end of the line is allowed (the list continues on the next line). */
typedef int (*ItemFn)(Ctx *c, const char *item, size_t len);

static int for_each_item(Ctx *c, const char *value, ItemFn item, const char *what,
                         const char *fix)
{
    const char *p = value;
    size_t all = strlen(value);
    trim(&p, &all);
    if (all == 0)
        return 1;
    const char *end = p + all;
    for (;;) {
        const char *comma = memchr(p, ',', (size_t)(end - p));
        const char *stop = comma ? comma : end;
        const char *it = p;
        size_t len = (size_t)(stop - p);
        trim(&it, &len);
        if (len == 0) {
            if (!comma && p != value)
                return 1; /* trailing comma */
            return fail(c, c->lineno, CUTUNE_ERR_PARSE, "%s: empty item in the list; %s",
                        what, fix);
        }
        if (!item(c, it, len))
            return 0;
        if (!comma)
            return 1;
        p = comma + 1;
    }
}

static int add_value(Ctx *c, const char *it, size_t len)
{
    CutuneParam *p = &c->s->params[c->cur];
    ParamState *ps = &c->ps[c->cur];
    int64_t v = 0;
    int r = parse_i64(it, len, &v);
    if (r)
        return fail(c, c->lineno, CUTUNE_ERR_PARSE, "parameter '%s': value '%.*s' %s; "
                    VALUES_FIX, p->name, (int)len, it,
                    r == -2 ? "is out of the int64 range" : "is not an integer");
    if (p->nvalues == ps->cap) {
        size_t ncap = ps->cap ? 2 * ps->cap : 16;
        int64_t *nv = realloc(p->values, ncap * sizeof *nv);
        if (!nv)
            return fail(c, c->lineno, CUTUNE_ERR_NOMEM, "out of memory");
        p->values = nv;
        int *nl = realloc(ps->value_lines, ncap * sizeof *nl);
        if (!nl)
            return fail(c, c->lineno, CUTUNE_ERR_NOMEM, "out of memory");
        ps->value_lines = nl;
        ps->cap = ncap;
    }
    ps->value_lines[p->nvalues] = c->lineno;
    p->values[p->nvalues++] = v;
    return 1;
}

static int add_problem(Ctx *c, const char *it, size_t len)
{
    CutuneSpace *s = c->s;
    if (s->nproblems == c->prcap) {
        size_t ncap = c->prcap ? 2 * c->prcap : 8;
        char **np = realloc(s->problems, ncap * sizeof *np);
        if (!np)
            return fail(c, c->lineno, CUTUNE_ERR_NOMEM, "out of memory");
        s->problems = np;
        int *nl = realloc(s->problem_lines, ncap * sizeof *nl);
        if (!nl)
            return fail(c, c->lineno, CUTUNE_ERR_NOMEM, "out of memory");
        s->problem_lines = nl;
        c->prcap = ncap;
    }
    char *d = dupn(it, len);
    if (!d)
        return fail(c, c->lineno, CUTUNE_ERR_NOMEM, "out of memory");
    s->problem_lines[s->nproblems] = c->lineno;
    s->problems[s->nproblems++] = d;
    return 1;
}

/* "lo..hi" for range and pow2. */
static int parse_bounds(Ctx *c, const char *key, const char *value, int64_t *lo, int64_t *hi)
{
    const CutuneParam *p = &c->s->params[c->cur];
    const char *dots = strstr(value, "..");
    if (!dots)
        return fail(c, c->lineno, CUTUNE_ERR_PARSE, "parameter '%s': %s '%s' is not of the "
                    "form lo..hi; write e.g. %s = 1..64", p->name, key, value, key);
    const char *a = value, *b = dots + 2;
    size_t al = (size_t)(dots - value), bl = strlen(b);
    trim(&a, &al);
    trim(&b, &bl);
    int ra = parse_i64(a, al, lo), rb = ra ? 0 : parse_i64(b, bl, hi);
    if (ra || rb)
        return fail(c, c->lineno, CUTUNE_ERR_PARSE, "parameter '%s': bound '%.*s' of %s %s; "
                    "write integer bounds, e.g. %s = 1..64", p->name,
                    ra ? (int)al : (int)bl, ra ? a : b, key,
                    (ra ? ra : rb) == -2 ? "is out of the int64 range" : "is not an integer",
                    key);
    if (*lo > *hi)
        return fail(c, c->lineno, CUTUNE_ERR_PARSE, "parameter '%s': %s %lld..%lld is empty "
                    "(lo > hi); write the smaller bound first, e.g. %s = %lld..%lld", p->name,
                    key, (long long)*lo, (long long)*hi, key, (long long)*hi, (long long)*lo);
    return 1;
}

static int param_key(Ctx *c, const char *key, const char *value, int cont)
{
    CutuneParam *p = &c->s->params[c->cur];
    ParamState *ps = &c->ps[c->cur];
    int line = c->lineno;
    int is_values = strcmp(key, "values") == 0, is_range = strcmp(key, "range") == 0,
        is_pow2 = strcmp(key, "pow2") == 0, is_step = strcmp(key, "step") == 0;
    if (!is_values && !is_range && !is_pow2 && !is_step)
        return fail(c, line, CUTUNE_ERR_PARSE, "parameter '%s': unknown key '%s'; "
                    PARAM_KEYS_FIX, p->name, key);
    if (cont) {
        if (is_values)
            return for_each_item(c, value, add_value, p->name, VALUES_FIX);
        return fail(c, line, CUTUNE_ERR_PARSE, "parameter '%s': '%s' cannot continue on a "
                    "second line; write it on one line and start the next key at the "
                    "beginning of the line", p->name, key);
    }
    int *slot = is_values ? &ps->values_line : is_range ? &ps->range_line
                : is_pow2 ? &ps->pow2_line : &ps->step_line;
    if (*slot)
        return fail(c, line, CUTUNE_ERR_PARSE, "parameter '%s': '%s' is given twice (first at "
                    "line %d); %s", p->name, key, *slot,
                    is_values ? "put all values in one list (continue long lists on indented "
                                "lines)" : "keep one");
    if (!is_step) {
        const char *kinds[3] = {"values", "range", "pow2"};
        int lines[3] = {ps->values_line, ps->range_line, ps->pow2_line};
        for (int k = 0; k < 3; k++)
            if (lines[k])
                return fail(c, line, CUTUNE_ERR_PARSE, "parameter '%s' has both '%s' (line "
                            "%d) and '%s'; keep only one of values, range or pow2", p->name,
                            kinds[k], lines[k], key);
    }
    *slot = line;
    if (is_values)
        return for_each_item(c, value, add_value, p->name, VALUES_FIX);
    if (is_step) {
        int64_t st = 0;
        const char *v = value;
        size_t vl = strlen(v);
        trim(&v, &vl);
        int r = parse_i64(v, vl, &st);
        if (r || st <= 0)
            return fail(c, line, CUTUNE_ERR_PARSE, "parameter '%s': step '%s' %s; write a "
                        "positive integer, e.g. step = 2", p->name, value,
                        r == -1 ? "is not an integer" : r == -2 ? "is out of the int64 range"
                                                                : "is not positive");
        ps->step = st;
        return 1;
    }
    return parse_bounds(c, key, value, &ps->lo, &ps->hi);
}

static int constraint_key(Ctx *c, const char *key, const char *value, int cont)
{
    CutuneSpace *s = c->s;
    int line = c->lineno;
    if (cont) {
        CutuneConstraint *k = &s->constraints[s->nconstraints - 1];
        size_t a = strlen(k->text), b = strlen(value);
        char *t = realloc(k->text, a + b + 2);
        if (!t)
            return fail(c, line, CUTUNE_ERR_NOMEM, "out of memory");
        t[a] = ' ';
        memcpy(t + a + 1, value, b + 1);
        k->text = t;
        return 1;
    }
    if (!is_word(key) || strlen(key) >= CUTUNE_NAME_MAX)
        return fail(c, line, CUTUNE_ERR_PARSE, "constraint label '%s' is not a short name; "
                    "use letters, digits and '_' (at most %d), e.g. threads_fit = TILE*TILE "
                    "<= MAX_THREADS_PER_BLOCK", key, CUTUNE_NAME_MAX - 1);
    for (size_t i = 0; i < s->nconstraints; i++)
        if (strcmp(s->constraints[i].name, key) == 0)
            return fail(c, line, CUTUNE_ERR_PARSE, "duplicate constraint label '%s' (first at "
                        "line %d); give each constraint its own label", key,
                        s->constraints[i].line);
    if (s->nconstraints == c->ccap) {
        size_t ncap = c->ccap ? 2 * c->ccap : 8;
        CutuneConstraint *nc = realloc(s->constraints, ncap * sizeof *nc);
        if (!nc)
            return fail(c, line, CUTUNE_ERR_NOMEM, "out of memory");
        s->constraints = nc;
        c->ccap = ncap;
    }
    char *t = dupn(value, strlen(value));
    if (!t)
        return fail(c, line, CUTUNE_ERR_NOMEM, "out of memory");
    CutuneConstraint *k = &s->constraints[s->nconstraints++];
    memset(k, 0, sizeof *k);
    strcpy(k->name, key);
    k->text = t;
    k->line = line;
    return 1;
}

static int handle_key(Ctx *c, const char *key, const char *name, const char *value, int cont);

static int handler(void *user, const char *section, const char *name, const char *value)
{
    (void)section; /* the reader tracks sections itself (inih truncates long names) */
    Ctx *c = user;
    if (c->failed)
        return 0;
    int line = c->lineno;
    int cont = c->indented && c->has_last_key;
    const char *key = cont ? c->last_key : name;
    if (!value)
        value = "";
    char *stripped = NULL;
    if (cont) {
        /* inih 55 leaves inline comments on continuation lines: cut at a ';' that follows
         * white space, as it does for the first line */
        stripped = dupn(value, strlen(value));
        if (!stripped)
            return fail(c, line, CUTUNE_ERR_NOMEM, "out of memory");
        for (char *q = stripped; *q; q++) {
            if (*q == ';' && q > stripped && isspace((unsigned char)q[-1])) {
                *q = '\0';
                break;
            }
        }
        size_t n = strlen(stripped);
        while (n && isspace((unsigned char)stripped[n - 1]))
            stripped[--n] = '\0';
        value = stripped;
    }
    int ok = handle_key(c, key, name, value, cont);
    free(stripped);
    if (ok && !cont) {
        snprintf(c->last_key, sizeof c->last_key, "%s", name);
        c->has_last_key = 1;
    }
    return ok;
}

static int handle_key(Ctx *c, const char *key, const char *name, const char *value, int cont)
{
    int line = c->lineno;
    if (cont && c->sec != SEC_CONSTRAINTS && c->sec != SEC_LAUNCH && looks_like_key(value))
        return fail(c, line, CUTUNE_ERR_PARSE, "this indented line continues '%s' but looks "
                    "like a new key; start keys at the beginning of the line (indented lines "
                    "continue the previous value)", key);
    int ok = 1;
    switch (c->sec) {
    case SEC_NONE:
        return fail(c, line, CUTUNE_ERR_PARSE, "key '%s' comes before any section; put it "
                    "under a section: " SECTIONS_FIX, name);
    case SEC_VARIANT:
        if (strcmp(key, "name") == 0) {
            if (cont)
                return fail(c, line, CUTUNE_ERR_PARSE, "the variant name must be on one line; "
                            "start the next key at the beginning of the line");
            if (c->name_line)
                return fail(c, line, CUTUNE_ERR_PARSE, "'name' is given twice (first at line "
                            "%d); keep one", c->name_line);
            if (!is_word(value) || strlen(value) >= CUTUNE_NAME_MAX)
                return fail(c, line, CUTUNE_ERR_PARSE, "variant name '%s' is not a name; use "
                            "letters, digits and '_' (at most %d), e.g. name = matmul_tiled",
                            value, CUTUNE_NAME_MAX - 1);
            c->s->variant = dupn(value, strlen(value));
            if (!c->s->variant)
                return fail(c, line, CUTUNE_ERR_NOMEM, "out of memory");
            c->name_line = c->s->variant_line = line;
        } else if (strcmp(key, "description") == 0) {
            if (!cont && c->description_line)
                return fail(c, line, CUTUNE_ERR_PARSE, "'description' is given twice (first "
                            "at line %d); keep one (indented lines continue it)",
                            c->description_line);
            c->description_line = line;
        } else {
            char why[320];
            if (cutune_space_key_set(c->s, "variant", key, value, line, cont, why, sizeof why))
                return fail(c, line, CUTUNE_ERR_PARSE, "%s", why);
        }
        break;
    case SEC_LAUNCH: {
        char why[320];
        if (cutune_space_key_set(c->s, "launch", key, value, line, cont, why, sizeof why))
            return fail(c, line, CUTUNE_ERR_PARSE, "%s", why);
        break;
    }
    case SEC_PARAM:
        ok = param_key(c, key, value, cont);
        break;
    case SEC_CONSTRAINTS:
        ok = constraint_key(c, key, value, cont);
        break;
    case SEC_PROBLEMS:
        if (strcmp(key, "default") != 0)
            return fail(c, line, CUTUNE_ERR_PARSE, "unknown key '%s' in [problems]; write "
                        "default = SIZE, SIZE, ... e.g. default = 1024x1024x1024", key);
        ok = for_each_item(c, value, add_problem, "[problems] default",
                           "write sizes separated by commas, e.g. default = 1024x1024x1024, "
                           "2048x2048x2048");
        break;
    }
    return ok;
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

static int finish_param(Ctx *c, size_t pi)
{
    CutuneParam *p = &c->s->params[pi];
    ParamState *ps = &c->ps[pi];
    if (ps->step_line && !ps->range_line)
        return fail(c, ps->step_line, CUTUNE_ERR_PARSE, "parameter '%s': 'step' only applies "
                    "to 'range'; write range = lo..hi next to it, or drop step", p->name);
    if (!ps->values_line && !ps->range_line && !ps->pow2_line)
        return fail(c, p->line, CUTUNE_ERR_PARSE, "parameter '%s' has no values; add %s",
                    p->name, "values = 8, 16, 32, range = 1..64 or pow2 = 1..256");
    if (ps->values_line) {
        if (p->nvalues == 0)
            return fail(c, ps->values_line, CUTUNE_ERR_PARSE, "parameter '%s': empty list; "
                        VALUES_FIX, p->name);
        if (p->nvalues > CUTUNE_MAX_VALUES)
            return fail(c, ps->values_line, CUTUNE_ERR_PARSE, "parameter '%s' lists %zu values, "
                        "more than the %d a parameter may have; keep the values worth "
                        "measuring", p->name, p->nvalues, CUTUNE_MAX_VALUES);
        /* duplicates: sort the indices by value, then compare neighbours */
        ValueAt *ix = malloc(p->nvalues * sizeof *ix);
        if (!ix)
            return fail(c, ps->values_line, CUTUNE_ERR_NOMEM, "out of memory");
        for (size_t i = 0; i < p->nvalues; i++)
            ix[i] = (ValueAt){p->values[i], i};
        qsort(ix, p->nvalues, sizeof *ix, cmp_value_at);
        for (size_t i = 1; i < p->nvalues; i++) {
            if (ix[i].v == ix[i - 1].v) {
                size_t later = ix[i].i;
                int first_line = ps->value_lines[ix[i - 1].i];
                free(ix);
                return fail(c, ps->value_lines[later], CUTUNE_ERR_PARSE, "parameter '%s': "
                            "value %lld appears twice (first on line %d); remove the "
                            "duplicate", p->name, (long long)p->values[later], first_line);
            }
        }
        free(ix);
        return 1;
    }
    int64_t *vals;
    size_t n = 0;
    if (ps->range_line) {
        uint64_t step = ps->step_line ? (uint64_t)ps->step : 1;
        uint64_t count = ((uint64_t)ps->hi - (uint64_t)ps->lo) / step + 1;
        if (count > CUTUNE_MAX_VALUES)
            return fail(c, ps->range_line, CUTUNE_ERR_PARSE, "parameter '%s': range %lld..%lld "
                        "step %llu has %llu values, more than the %d a parameter may have; "
                        "narrow the range or use a larger step", p->name, (long long)ps->lo,
                        (long long)ps->hi, (unsigned long long)step, (unsigned long long)count,
                        CUTUNE_MAX_VALUES);
        vals = malloc((size_t)count * sizeof *vals);
        if (!vals)
            return fail(c, ps->range_line, CUTUNE_ERR_NOMEM, "out of memory");
        for (uint64_t i = 0; i < count; i++)
            vals[n++] = (int64_t)((uint64_t)ps->lo + i * step); /* stays within lo..hi */
    } else {
        vals = malloc(63 * sizeof *vals);
        if (!vals)
            return fail(c, ps->pow2_line, CUTUNE_ERR_NOMEM, "out of memory");
        for (int k = 0; k < 63; k++) {
            int64_t v = (int64_t)1 << k;
            if (v >= ps->lo && v <= ps->hi)
                vals[n++] = v;
        }
        if (n == 0) {
            free(vals);
            return fail(c, ps->pow2_line, CUTUNE_ERR_PARSE, "parameter '%s': pow2 %lld..%lld "
                        "contains no power of two; widen the bounds, e.g. pow2 = 1..256",
                        p->name, (long long)ps->lo, (long long)ps->hi);
        }
    }
    free(p->values);
    p->values = vals;
    p->nvalues = n;
    return 1;
}

static int finish(Ctx *c)
{
    CutuneSpace *s = c->s;
    for (size_t i = 0; i < s->nparams; i++)
        if (!finish_param(c, i))
            return 0;
    if (!s->variant)
        return fail(c, c->variant_line ? c->variant_line : c->lineno, CUTUNE_ERR_PARSE,
                    "no [variant] name; add a [variant] section with name = NAME, e.g. "
                    "name = matmul_tiled");

    /* the cartesian product, guarded */
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
        return fail(c, s->params[biggest].line, CUTUNE_ERR_PARSE, "the space has more than "
                    "%llu points (%s); narrow the parameters (e.g. '%s') or split the variant",
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
        return fail(c, s->params[at].line, CUTUNE_ERR_PARSE, "the space's %llu points of %zu "
                    "parameters would take %llu MiB to enumerate, more than the %llu MiB a space "
                    "may take; %s", (unsigned long long)total, s->nparams,
                    (unsigned long long)(total * s->nparams * 8 >> 20),
                    (unsigned long long)(CUTUNE_MAX_CELLS * 8 >> 20),
                    single < s->nparams ? "a parameter with one value (like this one) can be a "
                                          "#define in the kernel instead"
                                        : "narrow the parameters or split the variant");
    }

    if (c->peek)
        return 1; /* the problem dimensions are not known yet: constraints wait */
    /* constraints: symbols are the parameters, the problem dimensions, the limits */
    const char **names = cutune_space_symbol_names(s);
    if (!names)
        return fail(c, c->lineno, CUTUNE_ERR_NOMEM, "out of memory");
    CutuneSymbols syms = {names, cutune_space_nsymbols(s)};
    int ok = 1;
    for (size_t i = 0; i < s->nconstraints && ok; i++) {
        CutuneConstraint *con = &s->constraints[i];
        CutuneExprError ee;
        memset(&ee, 0, sizeof ee);
        if (cutune_expr_compile(con->text, &syms, &con->expr, &ee) != 0) {
            char near[64];
            if (ee.token[0])
                snprintf(near, sizeof near, "near '%s'", ee.token);
            else
                snprintf(near, sizeof near, "near the end");
            ok = fail(c, con->line, CUTUNE_ERR_PARSE, "constraint '%s': %s at column %d %s; "
                      "write an integer expression with C operators over the parameters, the "
                      "problem dimensions and the device limits (e.g. TILE*TILE <= "
                      "MAX_THREADS_PER_BLOCK)", con->name, ee.message, ee.column, near);
            break;
        }
        for (size_t d = 0; d < s->ndims; d++)
            if (cutune_expr_uses(con->expr, s->nparams + d))
                con->uses_problem = 1;
    }
    free(names);
    return ok;
}

/* "M,N,K" into s->dim_names. */
static int parse_dims(CutuneSpace *s, const char *dim_names, CutuneError *err)
{
    if (!dim_names)
        return 0;
    const char *p = dim_names;
    size_t all = strlen(p);
    trim(&p, &all);
    if (all == 0)
        return 0;
    size_t cap = 1;
    for (const char *q = dim_names; *q; q++)
        cap += *q == ',';
    s->dim_names = calloc(cap, sizeof *s->dim_names);
    if (!s->dim_names)
        return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
    for (;;) {
        const char *comma = strchr(p, ',');
        const char *it = p;
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        trim(&it, &len);
        if (!is_identifier(it, len) || len >= CUTUNE_NAME_MAX)
            return cutune_error(err, CUTUNE_ERR_INVALID, "problem dimension names '%s': "
                                "'%.*s' is not an identifier; the plugin must give names like "
                                "\"M,N,K\"", dim_names, (int)len, it);
        char *d = dupn(it, len);
        if (!d)
            return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
        for (size_t i = 0; i < s->ndims; i++) {
            if (strcmp(s->dim_names[i], d) == 0) {
                free(d);
                return cutune_error(err, CUTUNE_ERR_INVALID, "problem dimension names '%s': "
                                    "'%.*s' appears twice; the plugin must name each "
                                    "dimension once", dim_names, (int)len, it);
            }
        }
        if (name_is_limit(d)) {
            free(d);
            return cutune_error(err, CUTUNE_ERR_INVALID, "problem dimension names '%s': "
                                "'%.*s' is the name of a device limit; the plugin must rename "
                                "it", dim_names, (int)len, it);
        }
        s->dim_names[s->ndims++] = d;
        if (!comma)
            return 0;
        p = comma + 1;
    }
}

static int load(const char *path, const char *dim_names, int peek, CutuneSpace **out,
                CutuneError *err)
{
    if (out)
        *out = NULL;
    if (!path || !out)
        return cutune_error(err, CUTUNE_ERR_INVALID, "cutune_space_load: NULL argument");
    CutuneSpace *s = calloc(1, sizeof *s);
    if (!s)
        return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
    s->path = dupn(path, strlen(path));
    if (!s->path) {
        free(s);
        return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
    }
    int rc = parse_dims(s, dim_names, err);
    if (rc) {
        cutune_space_free(s);
        return rc;
    }
    FILE *f = fopen(path, "r");
    if (!f) {
        int e = errno;
        cutune_space_free(s);
        return cutune_error(err, CUTUNE_ERR_IO, "cannot open space file '%s': %s; check the "
                            "path (spaces live in tuning_spaces/<variant>.ini)", path,
                            strerror(e));
    }
    Ctx c;
    memset(&c, 0, sizeof c);
    c.f = f;
    c.path = path;
    c.s = s;
    c.peek = peek;
    int r = ini_parse_stream(reader, &c, handler, &c);
    fclose(f);
    if (r > 0 && (!c.failed || r < c.err_line)) {
        /* inih's own syntax error came first */
        c.failed = 0;
        cutune_error_clear(&c.e);
        fail(&c, r, CUTUNE_ERR_PARSE, "syntax error; each line must be 'key = value', a "
             "[section] header, a comment (# or ;) or an indented continuation of the "
             "previous value (check for a missing '=' or ']')");
    } else if (r < 0 && !c.failed) {
        fail(&c, c.lineno, r == -2 ? CUTUNE_ERR_NOMEM : CUTUNE_ERR_IO, "the INI parser failed "
             "(%d)", r);
    }
    if (!c.failed)
        finish(&c);
    for (size_t i = 0; i < s->nparams; i++)
        free(c.ps[i].value_lines);
    free(c.ps);
    if (c.failed) {
        cutune_space_free(s);
        return cutune_error(err, c.e.code, "%s", c.e.msg);
    }
    *out = s;
    return 0;
}

int cutune_space_load(const char *path, const char *dim_names, CutuneSpace **out,
                      CutuneError *err)
{
    return load(path, dim_names, 0, out, err);
}

int cutune_space_peek(const char *path, CutuneSpace **out, CutuneError *err)
{
    return load(path, NULL, 1, out, err);
}
