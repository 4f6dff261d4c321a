/* Reading a tuning space file (tuning_spaces/<variant>.ini).
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
 *   [tensor_map.A]               ; a TMA descriptor of the kernel's argument A, and
 *   [tensor_map.B.nt]            ; one for layout nt only: dims, box, swizzle, when
 *                                ; (spacekeys.c); in variants as data only
 *
 *   [problems]
 *   default = 1024x1024x1024, 2048x2048x2048           ; repeating the key appends
 *
 * An indented line continues the previous key: long value lists, constraints and problem
 * lists can be spread over several lines. The lines come from ini_lines.c (inih, and what
 * it does not give); the parameters are space_params.c's. Every error reads
 * "<path>:<line>: <what>; <how to fix>". Constraints are compiled once the whole file is
 * read, so that they may come before the parameters they use. */
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ini_lines.h"
#include "space_limits.h"
#include "spaceini_int.h"
#include "util.h"

#define SECTIONS_FIX \
    "the sections are [variant], [param.NAME], [constraints], [launch], [tensor_map.NAME] " \
    "and [problems]"

static int is_word(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_'))
            return 0;
    return 1;
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

/* ------------------------------------------------------------------------------------ */
/* Sections */

/* [tensor_map.NAME] or [tensor_map.NAME.LAYOUT]: kept with its line, in the file's order;
 * what NAME and LAYOUT must be is the registry's to say (tensor_maps.c), which knows the op. */
static int tensor_map_start(Ctx *c, const char *name)
{
    const char *rest = name + strlen("tensor_map.");
    const char *dot = strchr(rest, '.');
    size_t n1 = dot ? (size_t)(dot - rest) : strlen(rest);
    if (!space_is_identifier(rest, n1) || (dot && !space_is_identifier(dot + 1, strlen(dot + 1))) ||
        strlen(name) >= CUTUNE_SECTION_MAX || n1 >= CUTUNE_NAME_MAX)
        return space_fail(c, c->lineno, CUTUNE_ERR_PARSE,
                          "section [%s] does not name an argument; write [tensor_map.NAME] or "
                          "[tensor_map.NAME.LAYOUT], NAME a pointer argument of the op's "
                          "signature, e.g. [tensor_map.A] or [tensor_map.B.nt]",
                          name);
    CutuneSpace *s = c->s;
    for (size_t i = 0; i < s->ntensor_maps; i++)
        if (strcmp(s->tensor_maps[i].name, rest) == 0)
            return space_fail(c, c->lineno, CUTUNE_ERR_PARSE,
                              "section [%s] appears twice (first at line %d); merge the two", name,
                              s->tensor_maps[i].line);
    CutuneSpaceSection *grown = realloc(s->tensor_maps, (s->ntensor_maps + 1) * sizeof *grown);
    if (!grown)
        return space_fail(c, c->lineno, CUTUNE_ERR_NOMEM, "out of memory");
    s->tensor_maps = grown;
    snprintf(grown[s->ntensor_maps].name, sizeof grown->name, "%s", rest);
    grown[s->ntensor_maps++].line = c->lineno;
    snprintf(c->tmap, sizeof c->tmap, "%s", name);
    c->sec = SEC_TENSOR_MAP;
    return 1;
}

static int section_start(Ctx *c, const char *name)
{
    static const struct {
        const char *name;
        Section sec;
        size_t line_at; /* offset of the int in Ctx that holds its first line */
    } once[] = {
        {"variant", SEC_VARIANT, offsetof(Ctx, variant_line)},
        {"constraints", SEC_CONSTRAINTS, offsetof(Ctx, constraints_line)},
        {"launch", SEC_LAUNCH, offsetof(Ctx, launch_line)},
        {"problems", SEC_PROBLEMS, offsetof(Ctx, problems_line)},
    };
    for (size_t i = 0; i < sizeof once / sizeof once[0]; i++) {
        if (strcmp(name, once[i].name) != 0)
            continue;
        int *first = (int *)((char *)c + once[i].line_at);
        if (*first)
            return space_fail(c, c->lineno, CUTUNE_ERR_PARSE,
                              "section [%s] appears twice "
                              "(first at line %d); merge the two",
                              name, *first);
        *first = c->lineno;
        c->sec = once[i].sec;
        return 1;
    }
    if (strncmp(name, "param.", 6) == 0)
        return space_param_start(c, name + 6, strlen(name + 6));
    if (strncmp(name, "tensor_map.", 11) == 0)
        return tensor_map_start(c, name);
    if (strcmp(name, "tensor_map") == 0)
        return space_fail(c, c->lineno, CUTUNE_ERR_PARSE,
                          "section [tensor_map] names no argument; write [tensor_map.NAME], "
                          "e.g. [tensor_map.A]");
    if (strcmp(name, "param") == 0)
        return space_fail(c, c->lineno, CUTUNE_ERR_PARSE,
                          "section [param] has no parameter "
                          "name; write [param.NAME], e.g. [param.TILE]");
    return space_fail(c, c->lineno, CUTUNE_ERR_PARSE, "unknown section [%s]; " SECTIONS_FIX, name);
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

static int add_problem(Ctx *c, const char *it, size_t len)
{
    CutuneSpace *s = c->s;
    if (!space_grow(c, c->lineno, s->nproblems, &c->prcap, 8, (void **)&s->problems,
                    sizeof *s->problems, (void **)&s->problem_lines, sizeof *s->problem_lines))
        return 0;
    char *d = dupn(it, len);
    if (!d)
        return space_fail(c, c->lineno, CUTUNE_ERR_NOMEM, "out of memory");
    s->problem_lines[s->nproblems] = c->lineno;
    s->problems[s->nproblems++] = d;
    return 1;
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
            return space_fail(c, line, CUTUNE_ERR_NOMEM, "out of memory");
        t[a] = ' ';
        memcpy(t + a + 1, value, b + 1);
        k->text = t;
        return 1;
    }
    if (!is_word(key) || strlen(key) >= CUTUNE_NAME_MAX)
        return space_fail(c, line, CUTUNE_ERR_PARSE,
                          "constraint label '%s' is not a short name; "
                          "use letters, digits and '_' (at most %d), e.g. threads_fit = TILE*TILE "
                          "<= MAX_THREADS_PER_BLOCK",
                          key, CUTUNE_NAME_MAX - 1);
    for (size_t i = 0; i < s->nconstraints; i++)
        if (strcmp(s->constraints[i].name, key) == 0)
            return space_fail(c, line, CUTUNE_ERR_PARSE,
                              "duplicate constraint label '%s' (first at "
                              "line %d); give each constraint its own label",
                              key, s->constraints[i].line);
    if (!space_grow(c, line, s->nconstraints, &c->ccap, 8, (void **)&s->constraints,
                    sizeof *s->constraints, NULL, 0))
        return 0;
    char *t = dupn(value, strlen(value));
    if (!t)
        return space_fail(c, line, CUTUNE_ERR_NOMEM, "out of memory");
    CutuneConstraint *k = &s->constraints[s->nconstraints++];
    memset(k, 0, sizeof *k);
    strcpy(k->name, key);
    k->text = t;
    k->line = line;
    return 1;
}

static int handle_key(Ctx *c, const char *key, const char *value, int cont)
{
    int line = c->lineno;
    if (cont && c->sec != SEC_CONSTRAINTS && c->sec != SEC_LAUNCH && c->sec != SEC_TENSOR_MAP &&
        looks_like_key(value))
        return space_fail(c, line, CUTUNE_ERR_PARSE,
                          "this indented line continues '%s' but looks "
                          "like a new key; start keys at the beginning of the line (indented lines "
                          "continue the previous value)",
                          key);
    int ok = 1;
    switch (c->sec) {
    case SEC_NONE:
        return space_fail(c, line, CUTUNE_ERR_PARSE,
                          "key '%s' comes before any section; put it "
                          "under a section: " SECTIONS_FIX,
                          key);
    case SEC_VARIANT:
        if (strcmp(key, "name") == 0) {
            if (cont)
                return space_fail(c, line, CUTUNE_ERR_PARSE,
                                  "the variant name must be on one line; "
                                  "start the next key at the beginning of the line");
            if (c->name_line)
                return space_fail(c, line, CUTUNE_ERR_PARSE,
                                  "'name' is given twice (first at line "
                                  "%d); keep one",
                                  c->name_line);
            if (!is_word(value) || strlen(value) >= CUTUNE_NAME_MAX)
                return space_fail(c, line, CUTUNE_ERR_PARSE,
                                  "variant name '%s' is not a name; use "
                                  "letters, digits and '_' (at most %d), e.g. name = matmul_tiled",
                                  value, CUTUNE_NAME_MAX - 1);
            c->s->variant = dupn(value, strlen(value));
            if (!c->s->variant)
                return space_fail(c, line, CUTUNE_ERR_NOMEM, "out of memory");
            c->name_line = c->s->variant_line = line;
        } else if (strcmp(key, "description") == 0) {
            if (!cont && c->description_line)
                return space_fail(c, line, CUTUNE_ERR_PARSE,
                                  "'description' is given twice (first "
                                  "at line %d); keep one (indented lines continue it)",
                                  c->description_line);
            c->description_line = line;
        } else {
            char why[320];
            if (cutune_space_key_set(c->s, "variant", key, value, line, cont, why, sizeof why))
                return space_fail(c, line, CUTUNE_ERR_PARSE, "%s", why);
        }
        break;
    case SEC_LAUNCH:
    case SEC_TENSOR_MAP: {
        char why[480];
        if (cutune_space_key_set(c->s, c->sec == SEC_LAUNCH ? "launch" : c->tmap, key, value, line,
                                 cont, why, sizeof why))
            return space_fail(c, line, CUTUNE_ERR_PARSE, "%s", why);
        break;
    }
    case SEC_PARAM: ok = space_param_key(c, key, value, cont); break;
    case SEC_CONSTRAINTS: ok = constraint_key(c, key, value, cont); break;
    case SEC_PROBLEMS:
        if (strcmp(key, "default") != 0)
            return space_fail(c, line, CUTUNE_ERR_PARSE,
                              "unknown key '%s' in [problems]; write "
                              "default = SIZE, SIZE, ... e.g. default = 1024x1024x1024",
                              key);
        ok = space_for_each_item(c, value, add_problem, "[problems] default",
                                 "write sizes separated by commas, e.g. default = 1024x1024x1024, "
                                 "2048x2048x2048");
        break;
    }
    return ok;
}

/* ------------------------------------------------------------------------------------ */
/* After the whole file is read */

/* Constraints: their symbols are the parameters, the problem dimensions and the limits. */
static int compile_constraints(Ctx *c)
{
    CutuneSpace *s = c->s;
    const char **names = cutune_space_symbol_names(s);
    if (!names)
        return space_fail(c, c->lineno, CUTUNE_ERR_NOMEM, "out of memory");
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
            ok = space_fail(c, con->line, CUTUNE_ERR_PARSE,
                            "constraint '%s': %s at column %d "
                            "%s; write an integer expression with C operators over the "
                            "parameters, the problem dimensions and the device limits (e.g. "
                            "TILE*TILE <= MAX_THREADS_PER_BLOCK)",
                            con->name, ee.message, ee.column, near);
            break;
        }
        for (size_t d = 0; d < s->ndims; d++)
            if (cutune_expr_uses(con->expr, s->nparams + d))
                con->uses_problem = 1;
    }
    free(names);
    return ok;
}

static int finish(Ctx *c)
{
    if (!space_params_finish(c))
        return 0;
    if (!c->s->variant)
        return space_fail(c, c->variant_line ? c->variant_line : c->lineno, CUTUNE_ERR_PARSE,
                          "no [variant] name; add a [variant] section with name = NAME, e.g. "
                          "name = matmul_tiled");
    if (!space_size_check(c))
        return 0;
    if (c->s->ntensor_maps && !cutune_space_key(c->s, "variant", "op", NULL))
        return space_fail(c, c->s->tensor_maps[0].line, CUTUNE_ERR_PARSE,
                          "[tensor_map.%s] is for variants as data (op = in [variant]); a C "
                          "variant plugin passes its kernel's arguments itself: drop the section",
                          c->s->tensor_maps[0].name);
    if (c->peek)
        return 1; /* the problem dimensions are not known yet: constraints wait */
    return compile_constraints(c);
}

static int on_section(void *user, const char *name, int line)
{
    Ctx *c = user;
    c->lineno = line;
    return section_start(c, name);
}

static int on_key(void *user, const char *key, const char *value, int line, int cont)
{
    Ctx *c = user;
    c->lineno = line;
    return handle_key(c, key, value, cont);
}

/* Every line of f, then what only the whole file can tell. */
static void read_space(Ctx *c, FILE *f)
{
    const CutuneIniEvents ev = {c, on_section, on_key};
    int line = 0, last = 0;
    char why[256];
    int rc = cutune_ini_read(f, &ev, &line, &last, why, sizeof why);
    if (!c->failed && rc < 0)
        space_fail(c, line, rc, "%s", why);
    c->lineno = last;
    if (!c->failed)
        finish(c);
}

/* "M,N,K" into s->dim_names. */
static int parse_dims(CutuneSpace *s, const char *dim_names, CutuneError *err)
{
    if (!dim_names)
        return 0;
    const char *p = dim_names;
    size_t all = strlen(p);
    cutune_trim(&p, &all);
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
        cutune_trim(&it, &len);
        const char *why = NULL;
        char *d = NULL;
        if (!space_is_identifier(it, len) || len >= CUTUNE_NAME_MAX)
            why = "is not an identifier; the plugin must give names like \"M,N,K\"";
        else if (!(d = dupn(it, len)))
            return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
        for (size_t i = 0; !why && i < s->ndims; i++)
            if (strcmp(s->dim_names[i], d) == 0)
                why = "appears twice; the plugin must name each dimension once";
        if (!why && space_name_is_limit(d))
            why = "is the name of a device limit; the plugin must rename it";
        if (why) {
            free(d);
            return cutune_error(err, CUTUNE_ERR_INVALID, "problem dimension names '%s': '%.*s' %s",
                                dim_names, (int)len, it, why);
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
        return cutune_error(err, CUTUNE_ERR_IO,
                            "cannot open space file '%s': %s; check the "
                            "path (spaces live in tuning_spaces/<variant>.ini)",
                            path, strerror(e));
    }
    Ctx c;
    memset(&c, 0, sizeof c);
    c.path = path;
    c.s = s;
    c.peek = peek;
    read_space(&c, f);
    fclose(f);
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

int cutune_space_load(const char *path, const char *dim_names, CutuneSpace **out, CutuneError *err)
{
    return load(path, dim_names, 0, out, err);
}

int cutune_space_peek(const char *path, CutuneSpace **out, CutuneError *err)
{
    return load(path, NULL, 1, out, err);
}
