/* A recursive-descent JSON reader (see jsonread.h). */
#include "jsonread.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_DEPTH = 64 };

typedef struct Parser {
    const char *p, *end, *line_start;
    const char *name;
    int line;
    CutuneError *err;
} Parser;

static int fail(Parser *ps, const char *what)
{
    return cutune_error(ps->err, CUTUNE_ERR_PARSE, "%s:%d:%d: %s", ps->name, ps->line,
                        (int)(ps->p - ps->line_start) + 1, what);
}

static void skip_ws(Parser *ps)
{
    while (ps->p < ps->end) {
        char c = *ps->p;
        if (c == '\n') {
            ps->line++;
            ps->line_start = ps->p + 1;
        } else if (c != ' ' && c != '\t' && c != '\r') {
            return;
        }
        ps->p++;
    }
}

static int literal(Parser *ps, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0)
        return 0;
    ps->p += n;
    return 1;
}

static int hex4(const char *s, unsigned *out)
{
    *out = 0;
    for (int i = 0; i < 4; i++) {
        char c = s[i];
        int d = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (d < 0)
            return -1;
        *out = *out * 16 + (unsigned)d;
    }
    return 0;
}

static size_t put_utf8(char *dst, unsigned cp)
{
    if (cp < 0x80) {
        dst[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        dst[0] = (char)(0xC0 | (cp >> 6));
        dst[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        dst[0] = (char)(0xE0 | (cp >> 12));
        dst[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        dst[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    dst[0] = (char)(0xF0 | (cp >> 18));
    dst[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    dst[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    dst[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* A string at ps->p (the opening quote); *out is malloc'ed. */
static int parse_string(Parser *ps, char **out)
{
    const char *s = ++ps->p;
    const char *q = s;
    while (q < ps->end && *q != '"') /* an upper bound of the unescaped length */
        q += *q == '\\' && q + 1 < ps->end ? 2 : 1;
    char *buf = malloc((size_t)(q - s) + 1), *w = buf;
    if (!buf)
        return cutune_error(ps->err, CUTUNE_ERR_NOMEM, "out of memory reading %s", ps->name);
    while (ps->p < ps->end && *ps->p != '"') {
        unsigned char c = (unsigned char)*ps->p;
        if (c < 0x20) {
            free(buf);
            return fail(ps, "a control character inside a string (a line break must be \\n)");
        }
        if (c != '\\') {
            *w++ = (char)c;
            ps->p++;
            continue;
        }
        if (ps->end - ps->p < 2) {
            break;
        }
        char e = ps->p[1];
        const char *simple = strchr("\"\\/bfnrt", e);
        if (simple && e) {
            *w++ = "\"\\/\b\f\n\r\t"[simple - "\"\\/bfnrt"];
            ps->p += 2;
            continue;
        }
        unsigned cp, lo;
        if (e != 'u' || ps->end - ps->p < 6 || hex4(ps->p + 2, &cp) != 0 || cp == 0) {
            free(buf);
            return fail(ps, "a bad escape in a string (\\\", \\\\, \\/, \\b, \\f, \\n, \\r, "
                            "\\t or \\u and four hex digits, not \\u0000)");
        }
        ps->p += 6;
        if (cp >= 0xD800 && cp < 0xDC00 && ps->end - ps->p >= 6 && ps->p[0] == '\\' &&
            ps->p[1] == 'u' && hex4(ps->p + 2, &lo) == 0 && lo >= 0xDC00 && lo < 0xE000) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            ps->p += 6;
        }
        w += put_utf8(w, cp);
    }
    if (ps->p >= ps->end) {
        free(buf);
        return fail(ps, "the file ends inside a string");
    }
    ps->p++; /* the closing quote */
    *w = '\0';
    *out = buf;
    return 0;
}

static int parse_number(Parser *ps, CutuneJv *v)
{
    const char *s = ps->p;
    if (literal(ps, "NaN") || literal(ps, "Infinity") || literal(ps, "-Infinity")) {
        v->type = CUTUNE_JV_NUMBER;
        v->number = s[0] == 'N' ? NAN : s[0] == '-' ? -INFINITY : INFINITY;
        return 0;
    }
    const char *p = s;
    if (p < ps->end && *p == '-')
        p++;
    const char *digits = p;
    while (p < ps->end && *p >= '0' && *p <= '9')
        p++;
    if (p == digits || (p - digits > 1 && *digits == '0'))
        return fail(ps, "expected a value (a number, string, object, array, true, false or "
                        "null)");
    int integer = 1;
    if (p < ps->end && *p == '.') {
        integer = 0;
        const char *f = ++p;
        while (p < ps->end && *p >= '0' && *p <= '9')
            p++;
        if (p == f)
            return fail(ps, "a number needs digits after its decimal point");
    }
    if (p < ps->end && (*p == 'e' || *p == 'E')) {
        integer = 0;
        p++;
        if (p < ps->end && (*p == '+' || *p == '-'))
            p++;
        const char *x = p;
        while (p < ps->end && *p >= '0' && *p <= '9')
            p++;
        if (p == x)
            return fail(ps, "a number needs digits in its exponent");
    }
    char buf[64];
    if (p - s >= (long)sizeof buf) {
        integer = 0; /* too long for int64; strtod reads it from the text itself below */
    }
    size_t n = (size_t)(p - s) < sizeof buf - 1 ? (size_t)(p - s) : sizeof buf - 1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    v->type = CUTUNE_JV_NUMBER;
    v->number = strtod(buf, NULL);
    if (integer) {
        errno = 0;
        long long x = strtoll(buf, NULL, 10);
        if (errno == 0) {
            v->is_integer = 1;
            v->integer = x;
        }
    }
    ps->p = p;
    return 0;
}

static int parse_value(Parser *ps, CutuneJv *v, int depth);

/* Append a zeroed item (and a key slot for objects) to v; *item points at it. */
static int grow(Parser *ps, CutuneJv *v, size_t *cap, CutuneJv **item)
{
    if (v->n == *cap) {
        size_t c = *cap ? 2 * *cap : 4;
        CutuneJv *items = realloc(v->items, c * sizeof *items);
        if (items)
            v->items = items;
        char **keys = v->type == CUTUNE_JV_OBJECT && items ? realloc(v->keys, c * sizeof *keys)
                                                           : v->keys;
        if (!items || (v->type == CUTUNE_JV_OBJECT && !keys))
            return cutune_error(ps->err, CUTUNE_ERR_NOMEM, "out of memory reading %s", ps->name);
        v->keys = keys;
        *cap = c;
    }
    *item = &v->items[v->n];
    memset(*item, 0, sizeof **item);
    if (v->type == CUTUNE_JV_OBJECT)
        v->keys[v->n] = NULL;
    v->n++;
    return 0;
}

static int parse_container(Parser *ps, CutuneJv *v, int depth)
{
    int object = *ps->p == '{';
    char close = object ? '}' : ']';
    v->type = object ? CUTUNE_JV_OBJECT : CUTUNE_JV_ARRAY;
    if (depth >= MAX_DEPTH)
        return fail(ps, "nested more than 64 levels deep");
    ps->p++;
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == close) {
        ps->p++;
        return 0;
    }
    size_t cap = 0;
    for (;;) {
        CutuneJv *item = NULL;
        int rc = grow(ps, v, &cap, &item);
        if (rc)
            return rc;
        skip_ws(ps);
        if (object) {
            if (ps->p >= ps->end || *ps->p != '"')
                return fail(ps, "expected a member name in double quotes");
            if ((rc = parse_string(ps, &v->keys[v->n - 1])))
                return rc;
            skip_ws(ps);
            if (ps->p >= ps->end || *ps->p != ':')
                return fail(ps, "expected ':' after a member name");
            ps->p++;
            skip_ws(ps);
        }
        if ((rc = parse_value(ps, item, depth + 1)))
            return rc;
        skip_ws(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
            continue;
        }
        if (ps->p < ps->end && *ps->p == close) {
            ps->p++;
            return 0;
        }
        return fail(ps, object ? "expected ',' or '}' after an object member"
                               : "expected ',' or ']' after an array item");
    }
}

static int parse_value(Parser *ps, CutuneJv *v, int depth)
{
    skip_ws(ps);
    v->line = ps->line;
    if (ps->p >= ps->end)
        return fail(ps, "the file ends where a value was expected");
    switch (*ps->p) {
    case '{':
    case '[': return parse_container(ps, v, depth);
    case '"': v->type = CUTUNE_JV_STRING; return parse_string(ps, &v->string);
    case 't':
    case 'f':
        if (literal(ps, "true") || literal(ps, "false")) {
            v->type = CUTUNE_JV_BOOL;
            v->boolean = ps->p[-1] == 'e' && ps->p[-2] == 'u';
            return 0;
        }
        break;
    case 'n':
        if (literal(ps, "null")) {
            v->type = CUTUNE_JV_NULL;
            return 0;
        }
        break;
    default: return parse_number(ps, v);
    }
    return fail(ps, "expected a value (a number, string, object, array, true, false or null)");
}

static void free_inside(CutuneJv *v)
{
    for (size_t i = 0; i < v->n; i++) {
        free_inside(&v->items[i]);
        if (v->keys)
            free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->string);
}

void cutune_jv_free(CutuneJv *v)
{
    if (!v)
        return;
    free_inside(v);
    free(v);
}

int cutune_jv_parse(const char *text, size_t len, const char *name, CutuneJv **out,
                    CutuneError *err)
{
    *out = NULL;
    Parser ps = {text, text + len, text, name, 1, err};
    CutuneJv *v = calloc(1, sizeof *v);
    if (!v)
        return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory reading %s", name);
    int rc = parse_value(&ps, v, 0);
    if (rc == 0) {
        skip_ws(&ps);
        if (ps.p != ps.end)
            rc = fail(&ps, "unexpected text after the end of the JSON value");
    }
    if (rc) {
        cutune_jv_free(v);
        return rc;
    }
    *out = v;
    return 0;
}

const CutuneJv *cutune_jv_get(const CutuneJv *obj, const char *key)
{
    if (!obj || obj->type != CUTUNE_JV_OBJECT)
        return NULL;
    for (size_t i = 0; i < obj->n; i++)
        if (obj->keys[i] && strcmp(obj->keys[i], key) == 0)
            return &obj->items[i];
    return NULL;
}

const char *cutune_jv_type_name(CutuneJvType t)
{
    static const char *const names[] = {"null", "boolean", "number", "string", "array", "object"};
    return (unsigned)t < sizeof names / sizeof names[0] ? names[t] : "unknown";
}
