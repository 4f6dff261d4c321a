/* The keys that make a space file a variant as data, and expressions over a space.
 *
 *   [variant]
 *   name = matmul_tiled
 *   op = matmul                   ; the op whose contract the kernel keeps
 *   kernel = matmul_tiled         ; the extern "C" __global__ function (default: name)
 *   source = matmul_tiled.cu      ; beside this file, then along the space path (default:
 *                                 ; <name>.cu)
 *   headers = matmul_tiles.cuh    ; put in front of the source, in this order
 *   version = 1                   ; bump when the kernel or the parameters change
 *   summary = one line for `cutune list`
 *   dtypes = bf16, fp16           ; the element types its kernel computes (default fp32): the
 *                                 ; core defines CUTUNE_DTYPE_<NAME> = 1 (e.g. _BF16) for one
 *   layouts = nn, nt              ; the layouts it takes (default nn): CUTUNE_LAYOUT_<NAME>
 *   epilogues = none, bias        ; what it may do to the result before it stores it
 *                                 ; (default none): CUTUNE_EPILOGUE_<NAME>
 *   target = sm_90a               ; compiled for that arch-specific target (wgmma...), and
 *                                 ; tuned only on devices of that compute capability
 *   main_job = no                 ; its default sizes are left out of a run of the whole op
 *                                 ; (`cutune run matmul`): tuned when named or by --dtype
 *
 *   [launch]                      ; integer expressions, as constraints are
 *   grid = ceil_div(N, TILE), ceil_div(M, TILE)   ; 1 to 3 of them (x, y, z; missing: 1)
 *   block = TILE, TILE / WPT
 *   shared = 0                    ; dynamic shared memory in bytes (default 0)
 *
 *   [tensor_map.A]                ; a TMA descriptor of pointer argument A (tensor_maps.c)
 *   dims = K, M                   ; extents, innermost first (1 to 5 expressions)
 *   box = 64, BM                  ; the box one copy moves, as many as dims
 *   swizzle = 128                 ; 0, 32, 64 or 128 bytes
 *   when = TMA == 1               ; optional: 0 passes a map of zero bytes
 *   [tensor_map.B.nt]             ; the same for problems of layout nt only
 *
 * Reading the file is spaceini.c's; what the keys mean is the registry's (variant_data.c,
 * geometry.c). This file keeps them as written, with their lines. */
#include "space.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const variant_keys[] = {"op",        "kernel",  "source",   "headers",
                                           "version",   "summary", "dtypes",   "layouts",
                                           "epilogues", "target",  "main_job", NULL};
static const char *const launch_keys[] = {"grid", "block", "shared", NULL};
static const char *const tensor_map_keys[] = {"dims", "box", "swizzle", "when", NULL};

static int known(const char *const *keys, const char *name)
{
    for (size_t i = 0; keys[i]; i++)
        if (strcmp(keys[i], name) == 0)
            return 1;
    return 0;
}

static CutuneSpaceKey *find(const CutuneSpace *s, const char *section, const char *name)
{
    for (size_t i = 0; i < s->nkeys; i++)
        if (strcmp(s->keys[i].section, section) == 0 && strcmp(s->keys[i].name, name) == 0)
            return &s->keys[i];
    return NULL;
}

const char *cutune_space_key(const CutuneSpace *s, const char *section, const char *name, int *line)
{
    const CutuneSpaceKey *k = s ? find(s, section, name) : NULL;
    if (line)
        *line = k ? k->line : 0;
    return k ? k->value : NULL;
}

int cutune_space_key_set(CutuneSpace *s, const char *section, const char *name, const char *value,
                         int line, int cont, char *why, size_t len)
{
    int is_launch = strcmp(section, "launch") == 0;
    int is_map = strncmp(section, "tensor_map.", 11) == 0;
    if (!known(is_launch ? launch_keys : is_map ? tensor_map_keys : variant_keys, name)) {
        snprintf(why, len, "unknown key '%s' in [%s]; the keys are %s", name, section,
                 is_launch ? "grid, block and shared (expressions)"
                 : is_map  ? "dims, box, swizzle and when (expressions)"
                           : "name, description, op, kernel, source, headers, version, "
                             "summary, dtypes, layouts, epilogues, target and main_job");
        return -1;
    }
    CutuneSpaceKey *k = find(s, section, name);
    if (k && !cont) {
        snprintf(why, len,
                 "'%s' is given twice in [%s] (first at line %d); keep one (indented "
                 "lines continue a value)",
                 name, section, k->line);
        return -1;
    }
    if (k) { /* a continuation line: join with a space */
        size_t a = strlen(k->value), b = strlen(value);
        char *grown = realloc(k->value, a + b + 2);
        if (!grown)
            goto nomem;
        grown[a] = ' ';
        memcpy(grown + a + 1, value, b + 1);
        k->value = grown;
        return 0;
    }
    CutuneSpaceKey *keys = realloc(s->keys, (s->nkeys + 1) * sizeof *keys);
    if (!keys)
        goto nomem;
    s->keys = keys;
    k = &keys[s->nkeys];
    memset(k, 0, sizeof *k);
    snprintf(k->section, sizeof k->section, "%s", section);
    snprintf(k->name, sizeof k->name, "%s", name);
    k->line = line;
    if (!(k->value = strdup(value)))
        goto nomem;
    s->nkeys++;
    return 0;
nomem:
    snprintf(why, len, "out of memory");
    return -1;
}

size_t cutune_space_nsymbols(const CutuneSpace *s)
{
    return s->nparams + s->ndims + CUTUNE_NLIMITS;
}

const char **cutune_space_symbol_names(const CutuneSpace *s)
{
    const char **names = malloc(cutune_space_nsymbols(s) * sizeof *names);
    if (!names)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < s->nparams; i++)
        names[k++] = s->params[i].name;
    for (size_t i = 0; i < s->ndims; i++)
        names[k++] = s->dim_names[i];
    for (size_t i = 0; i < CUTUNE_NLIMITS; i++)
        names[k++] = cutune_limit_names[i];
    return names;
}

void cutune_space_symbol_values(const CutuneSpace *s, const int64_t *params, const int64_t *dims,
                                const CutuneLimits *lim, int64_t *vals)
{
    size_t k = 0;
    for (size_t i = 0; i < s->nparams; i++)
        vals[k++] = params[i];
    for (size_t i = 0; i < s->ndims; i++)
        vals[k++] = dims ? dims[i] : 0;
#define CUTUNE_X_LIMIT_VALUE(NAME, field) vals[k++] = lim->field;
    CUTUNE_LIMIT_TABLE(CUTUNE_X_LIMIT_VALUE)
#undef CUTUNE_X_LIMIT_VALUE
}

int cutune_space_split(const char *text, char (*parts)[512], int max, int *count)
{
    int depth = 0, n = 0;
    size_t k = 0;
    for (const char *p = text;; p++) {
        if (*p == '\0' || (*p == ',' && depth == 0)) {
            if (n == max)
                return -1;
            parts[n][k] = '\0';
            n++;
            k = 0;
            if (*p == '\0')
                break;
            continue;
        }
        depth += *p == '(' ? 1 : *p == ')' ? -1 : 0;
        if (k + 1 >= sizeof parts[0])
            return -1;
        if (k == 0 && (*p == ' ' || *p == '\t'))
            continue;
        if (n == max)
            return -1;
        parts[n][k++] = *p;
    }
    *count = n;
    return 0;
}

int cutune_space_compile(const CutuneSpace *s, const char *what, const char *text, int line,
                         CutuneExpr **out, CutuneError *err)
{
    *out = NULL;
    const char **names = cutune_space_symbol_names(s);
    if (!names)
        return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
    CutuneSymbols syms = {names, cutune_space_nsymbols(s)};
    CutuneExprError ee;
    memset(&ee, 0, sizeof ee);
    int rc = cutune_expr_compile(text, &syms, out, &ee);
    free(names);
    if (rc == 0)
        return 0;
    return cutune_error(err, CUTUNE_ERR_PARSE,
                        "%s:%d: %s: %s at column %d near %s%s%s; write an integer expression "
                        "with C operators over the parameters, the problem dimensions and the "
                        "device limits (e.g. ceil_div(N, TILE))",
                        s->path ? s->path : "(space)", line, what, ee.message, ee.column,
                        ee.token[0] ? "'" : "", ee.token[0] ? ee.token : "the end",
                        ee.token[0] ? "'" : "");
}
