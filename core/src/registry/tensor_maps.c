/* TMA tensor maps of a variant as data (tensor_maps.h):
 *
 *   [tensor_map.A]        ; the op's pointer argument A
 *   dims = K, M           ; extents in elements, innermost (contiguous) first: 1 to 5
 *   box = 64, BM          ; the box one copy moves, as many as dims
 *   swizzle = 128         ; 0, 32, 64 or 128 (bytes)
 *   when = TMA == 1       ; optional: where 0, the kernel gets a map of zero bytes
 *   [tensor_map.B.nt]     ; only for problems of layout nt (else [tensor_map.B], else none)
 *
 * Each distinct NAME is one map, numbered in the order the names first appear. What
 * cuTensorMapEncodeTiled would refuse for a config is found here, before any launch, so that
 * the config is skipped with the file and the section rather than failing on the GPU. */
#include "tensor_maps.h"
#include "util.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { DIMS, BOX, SWIZZLE, WHEN, NKEYS };
static const char *const key_names[NKEYS] = {"dims", "box", "swizzle", "when"};

/* One section, compiled. */
typedef struct Spec {
    int present;
    char section[CUTUNE_SECTION_MAX]; /* "tensor_map.A.nt" */
    int rank;
    int line[NKEYS];
    CutuneExpr *dims[CUTUNE_TENSOR_MAP_RANK_MAX], *box[CUTUNE_TENSOR_MAP_RANK_MAX];
    CutuneExpr *swizzle, *when; /* when NULL: always */
} Spec;

struct CutuneTensorMapSpecs {
    const char *path; /* the space's */
    int n;
    struct {
        char name[CUTUNE_NAME_MAX];
        int arg;
        Spec any, layout[CUTUNE_LAYOUT_COUNT]; /* [tensor_map.NAME], [tensor_map.NAME.L] */
    } map[CUTUNE_MAX_TENSOR_MAPS];
};

static void spec_free(Spec *s)
{
    for (int i = 0; i < CUTUNE_TENSOR_MAP_RANK_MAX; i++) {
        cutune_expr_free(s->dims[i]);
        cutune_expr_free(s->box[i]);
    }
    cutune_expr_free(s->swizzle);
    cutune_expr_free(s->when);
}

void cutune_tensor_maps_free(CutuneTensorMapSpecs **sp)
{
    CutuneTensorMapSpecs *s = sp ? *sp : NULL;
    if (!s)
        return;
    for (int m = 0; m < s->n; m++) {
        spec_free(&s->map[m].any);
        for (int l = 0; l < CUTUNE_LAYOUT_COUNT; l++)
            spec_free(&s->map[m].layout[l]);
    }
    free(s);
    *sp = NULL;
}

int cutune_tensor_maps_count(const CutuneSpace *sp)
{
    int n = 0;
    for (size_t i = 0; i < sp->ntensor_maps; i++) {
        const char *name = sp->tensor_maps[i].name;
        size_t len = strcspn(name, ".");
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = strncmp(sp->tensor_maps[j].name, name, len) == 0 &&
                   strcspn(sp->tensor_maps[j].name, ".") == len;
        n += !seen;
    }
    return n;
}

/* The index of pointer parameter `name` in the op's signature ("const T *A, const T *B, T *C,
 * int M, ..."): split at commas, the last identifier is the name, a '*' makes it a
 * pointer. -1 when it is not one; *pointers lists the pointer parameters for a message. */
static int pointer_arg(const char *signature, const char *name, char *pointers, size_t len)
{
    int found = -1, index = 0;
    pointers[0] = '\0';
    for (const char *p = signature ? signature : ""; *p; index++) {
        size_t n = strcspn(p, ",");
        const char *last = NULL;
        size_t last_len = 0;
        int star = 0;
        for (size_t i = 0; i < n;) {
            if (isalpha((unsigned char)p[i]) || p[i] == '_') {
                size_t j = i;
                while (j < n && (isalnum((unsigned char)p[j]) || p[j] == '_'))
                    j++;
                last = p + i;
                last_len = j - i;
                i = j;
            } else {
                star |= p[i] == '*';
                i++;
            }
        }
        if (last && star) {
            size_t used = strlen(pointers);
            snprintf(pointers + used, len - used, "%s%.*s", used ? ", " : "", (int)last_len, last);
            if (found < 0 && strlen(name) == last_len && strncmp(name, last, last_len) == 0)
                found = index;
        }
        p += n;
        if (*p == ',')
            p++;
    }
    return found;
}

/* The expressions of one key of a section: `count` of them (1..max). */
static int compile_list(const CutuneSpace *sp, const Spec *s, int key, int max, CutuneExpr **out,
                        int *count, CutuneError *err)
{
    char key_text[CUTUNE_SECTION_MAX + 16];
    snprintf(key_text, sizeof key_text, "tensor_map.%s", s->section);
    const char *text = cutune_space_key(sp, key_text, key_names[key], NULL);
    char parts[CUTUNE_TENSOR_MAP_RANK_MAX][512];
    int n = 0;
    if (cutune_space_split(text, parts, max, &n) != 0 || n < 1)
        return cutune_error(err, CUTUNE_ERR_PARSE,
                            "%s:%d: [tensor_map.%s] %s takes %s; write e.g. %s", sp->path,
                            s->line[key], s->section, key_names[key],
                            max == 1 ? "one expression" : "1 to 5 expressions separated by commas",
                            max == 1 ? "swizzle = 128" : "dims = K, M");
    for (int i = 0; i < n; i++) {
        char what[CUTUNE_SECTION_MAX + 48];
        snprintf(what, sizeof what, "[tensor_map.%s] %s", s->section, key_names[key]);
        if (max > 1)
            snprintf(what + strlen(what), sizeof what - strlen(what), "[%d]", i);
        int rc = cutune_space_compile(sp, what, parts[i], s->line[key], &out[i], err);
        if (rc)
            return rc;
    }
    *count = n;
    return 0;
}

/* Section [tensor_map.<section>] (header at `line`) into s. */
static int compile_spec(const CutuneSpace *sp, const char *section, int line, Spec *s,
                        CutuneError *err)
{
    s->present = 1;
    snprintf(s->section, sizeof s->section, "%s", section);
    char key_text[CUTUNE_SECTION_MAX + 16];
    snprintf(key_text, sizeof key_text, "tensor_map.%s", section);
    for (int k = 0; k < NKEYS; k++)
        if (!cutune_space_key(sp, key_text, key_names[k], &s->line[k]) && k != WHEN)
            return cutune_error(err, CUTUNE_ERR_PARSE,
                                "%s:%d: [tensor_map.%s] has no %s; give dims, box (innermost "
                                "first, as many of each) and swizzle, e.g. dims = K, M / box = "
                                "64, BM / swizzle = 128",
                                sp->path, line, section, key_names[k]);
    int nbox = 0, one = 0, rc;
    if ((rc = compile_list(sp, s, DIMS, CUTUNE_TENSOR_MAP_RANK_MAX, s->dims, &s->rank, err)) ||
        (rc = compile_list(sp, s, BOX, CUTUNE_TENSOR_MAP_RANK_MAX, s->box, &nbox, err)))
        return rc;
    if (nbox != s->rank)
        return cutune_error(err, CUTUNE_ERR_PARSE,
                            "%s:%d: [tensor_map.%s] box has %d expressions but dims %d (line "
                            "%d); give one box extent for each dimension",
                            sp->path, s->line[BOX], section, nbox, s->rank, s->line[DIMS]);
    if ((rc = compile_list(sp, s, SWIZZLE, 1, &s->swizzle, &one, err)))
        return rc;
    if (s->line[WHEN] && (rc = compile_list(sp, s, WHEN, 1, &s->when, &one, err)))
        return rc;
    return 0;
}

/* The map of NAME: found, or added at the end. */
static int map_of(CutuneTensorMapSpecs *t, const CutuneSpace *sp, const CutuneOp *op,
                  const char *name, int line, CutuneError *err)
{
    for (int m = 0; m < t->n; m++)
        if (strcmp(t->map[m].name, name) == 0)
            return m;
    char pointers[512];
    int arg = pointer_arg(op->signature, name, pointers, sizeof pointers);
    if (arg < 0)
        return cutune_error(err, CUTUNE_ERR_PARSE,
                            "%s:%d: [tensor_map.%s] names no pointer parameter of op %s (%s); "
                            "name one of %s",
                            sp->path, line, name, op->name,
                            op->signature ? op->signature : "no signature",
                            pointers[0] ? pointers : "them (it has none)");
    int room = CUTUNE_MAX_KERNEL_ARGS - op->nargs;
    if (room > CUTUNE_MAX_TENSOR_MAPS)
        room = CUTUNE_MAX_TENSOR_MAPS;
    if (t->n >= room)
        return cutune_error(err, CUTUNE_ERR_PARSE,
                            "%s:%d: [tensor_map.%s] is map %d, but a kernel of op %s has room for "
                            "%d (at most %d maps, after the op's %d of a kernel's %d parameters); "
                            "use fewer maps",
                            sp->path, line, name, t->n + 1, op->name, room, CUTUNE_MAX_TENSOR_MAPS,
                            op->nargs, CUTUNE_MAX_KERNEL_ARGS);
    snprintf(t->map[t->n].name, sizeof t->map[t->n].name, "%s", name);
    t->map[t->n].arg = arg;
    return t->n++;
}

int cutune_tensor_maps_open(const CutuneSpace *sp, const CutuneOp *op, CutuneTensorMapSpecs **out,
                            CutuneError *err)
{
    *out = NULL;
    if (!sp->ntensor_maps)
        return 0;
    CutuneTensorMapSpecs *t = calloc(1, sizeof *t);
    if (!t)
        return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
    t->path = sp->path;
    int rc = 0;
    for (size_t i = 0; i < sp->ntensor_maps && rc == 0; i++) {
        const CutuneSpaceSection *sec = &sp->tensor_maps[i];
        char name[CUTUNE_SECTION_MAX];
        snprintf(name, sizeof name, "%s", sec->name);
        char *dot = strchr(name, '.');
        int layout = -1;
        if (dot) {
            *dot = '\0';
            for (int l = 0; l < CUTUNE_LAYOUT_COUNT; l++)
                if (strcmp(dot + 1, cutune_layout_name(l)) == 0)
                    layout = l;
            if (layout < 0) {
                rc = cutune_error(err, CUTUNE_ERR_PARSE,
                                  "%s:%d: [tensor_map.%s]: '%s' is not a layout; write "
                                  "[tensor_map.%s.nn] or [tensor_map.%s.nt], or [tensor_map.%s] "
                                  "for every layout",
                                  sp->path, sec->line, sec->name, dot + 1, name, name, name);
                break;
            }
        }
        int m = map_of(t, sp, op, name, sec->line, err);
        if (m < 0) {
            rc = m;
            break;
        }
        Spec *s = layout < 0 ? &t->map[m].any : &t->map[m].layout[layout];
        rc = compile_spec(sp, sec->name, sec->line, s, err);
    }
    if (rc) {
        cutune_tensor_maps_free(&t);
        return rc;
    }
    *out = t;
    return 0;
}

/* ---- evaluation ------------------------------------------------------------------------ */

static int eval_one(const CutuneTensorMapSpecs *t, const Spec *s, int key, int i,
                    const CutuneExpr *e, const int64_t *vals, int64_t *v, char *why, size_t len)
{
    CutuneExprError ee;
    memset(&ee, 0, sizeof ee);
    if (cutune_expr_eval(e, vals, v, &ee) == 0)
        return 0;
    char index[16] = "";
    if (key == DIMS || key == BOX)
        snprintf(index, sizeof index, "[%d]", i);
    snprintf(why, len, "%s:%d: [tensor_map.%s] %s%s: %s at column %d near '%s'", t->path,
             s->line[key], s->section, key_names[key], index, ee.message, ee.column, ee.token);
    return CUTUNE_ERR_RESOURCES;
}

/* "path:line: [tensor_map.S] <what>" into why; returns CUTUNE_ERR_RESOURCES. */
static int refuse(const CutuneTensorMapSpecs *t, const Spec *s, int key, char *why, size_t len,
                  const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

static int refuse(const CutuneTensorMapSpecs *t, const Spec *s, int key, char *why, size_t len,
                  const char *fmt, ...)
{
    int n = snprintf(why, len, "%s:%d: [tensor_map.%s] ", t->path, s->line[key], s->section);
    if (n > 0 && (size_t)n < len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why + n, len - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return CUTUNE_ERR_RESOURCES;
}

/* What cuTensorMapEncodeTiled takes of a dense tensor (its documented requirements) beyond
 * the ranges of each value: the byte strides and the box's innermost row. */
static int check_layout(const CutuneTensorMapSpecs *t, const Spec *s, const CutuneTensorMap *m,
                        char *why, size_t len)
{
    const int64_t stride_max = (int64_t)1 << 40;
    int64_t elem = cutune_dtype_bytes(m->dtype), stride = elem;
    if (elem == 0)
        return refuse(t, s, DIMS, why, len, "has no element size for element type %d", m->dtype);
    for (int i = 1; i < m->rank; i++) {
        stride = m->dims[i - 1] > stride_max / stride ? stride_max : stride * m->dims[i - 1];
        if (stride % 16 != 0 || stride >= stride_max)
            return refuse(t, s, DIMS, why, len,
                          "the byte stride of dims[%d] is %s%lld, which TMA needs a multiple of "
                          "16 below 2^40 (the product of dims[0..%d) and %lld-byte elements)",
                          i, stride >= stride_max ? "at least " : "", (long long)stride, i,
                          (long long)elem);
    }
    int64_t row = (int64_t)m->box[0] * elem;
    if (row % 16 != 0)
        return refuse(t, s, BOX, why, len,
                      "box[0] of %u elements is %lld bytes, which TMA needs a multiple of 16",
                      m->box[0], (long long)row);
    if (m->swizzle > 0 && row > m->swizzle)
        return refuse(t, s, BOX, why, len,
                      "box[0] of %u elements is %lld bytes, more than the %d-byte swizzle "
                      "(the innermost box row must fit the swizzle span)",
                      m->box[0], (long long)row, m->swizzle);
    return 0;
}

static int eval_spec(const CutuneTensorMapSpecs *t, const Spec *s, const int64_t *vals,
                     CutuneTensorMap *m, char *why, size_t len)
{
    int64_t v = 1;
    int rc;
    if (s->when && (rc = eval_one(t, s, WHEN, 0, s->when, vals, &v, why, len)))
        return rc;
    if (v == 0)
        return 0;
    m->enabled = 1;
    m->rank = s->rank;
    for (int i = 0; i < s->rank; i++) {
        if ((rc = eval_one(t, s, DIMS, i, s->dims[i], vals, &m->dims[i], why, len)) ||
            (rc = eval_one(t, s, BOX, i, s->box[i], vals, &v, why, len)))
            return rc;
        if (m->dims[i] < 1 || m->dims[i] > ((int64_t)1 << 32))
            return refuse(t, s, DIMS, why, len, "dims[%d] = %lld, outside TMA's 1..2^32", i,
                          (long long)m->dims[i]);
        if (v < 1 || v > 256)
            return refuse(t, s, BOX, why, len, "box[%d] = %lld, outside TMA's 1..256", i,
                          (long long)v);
        m->box[i] = (uint32_t)v;
    }
    if ((rc = eval_one(t, s, SWIZZLE, 0, s->swizzle, vals, &v, why, len)))
        return rc;
    if (v != 0 && v != 32 && v != 64 && v != 128)
        return refuse(t, s, SWIZZLE, why, len,
                      "swizzle = %lld; TMA swizzles 0, 32, 64 or 128 bytes", (long long)v);
    m->swizzle = (int)v;
    return check_layout(t, s, m, why, len);
}

int cutune_tensor_maps_eval(const CutuneTensorMapSpecs *t, const int64_t *vals,
                            const CutuneProblem *p, CutuneTensorMaps *out, char *why, size_t len)
{
    memset(out, 0, sizeof *out);
    if (!t)
        return 0;
    out->n = t->n;
    for (int i = 0; i < t->n; i++) {
        CutuneTensorMap *m = &out->map[i];
        snprintf(m->name, sizeof m->name, "%s", t->map[i].name);
        m->arg = t->map[i].arg;
        m->dtype = p->dtype;
        const Spec *s = p->layout >= 0 && p->layout < CUTUNE_LAYOUT_COUNT &&
                                t->map[i].layout[p->layout].present
                            ? &t->map[i].layout[p->layout]
                        : t->map[i].any.present ? &t->map[i].any
                                                : NULL;
        int rc = s ? eval_spec(t, s, vals, m, why, len) : 0;
        if (rc)
            return rc;
    }
    return 0;
}
