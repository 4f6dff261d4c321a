/* What spaceini.c and space_params.c share (spaceini_int.h): the first error, growing the
 * arrays of a space, comma-separated lists and names. */
#include "spaceini_int.h"
#include "util.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int space_fail(Ctx *c, int line, int code, const char *fmt, ...)
{
    if (c->failed)
        return 0;
    c->failed = 1;
    char msg[sizeof c->e.msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cutune_error(&c->e, code, "%s:%d: %s", c->path, line, msg);
    return 0;
}

int space_grow(Ctx *c, int line, size_t n, size_t *cap, size_t first, void **a, size_t asize,
               void **b, size_t bsize)
{
    if (n < *cap)
        return 1;
    /* *a and *b are the callers' typed pointers (CutuneParam *, int *, ...): read and
     * written as bytes, not through a void * lvalue */
    size_t ncap = *cap ? 2 * *cap : first;
    void *old, *grown;
    memcpy(&old, a, sizeof old);
    if (!(grown = realloc(old, ncap * asize)))
        return space_fail(c, line, CUTUNE_ERR_NOMEM, "out of memory");
    memcpy(a, &grown, sizeof grown);
    if (b) {
        memcpy(&old, b, sizeof old);
        if (!(grown = realloc(old, ncap * bsize)))
            return space_fail(c, line, CUTUNE_ERR_NOMEM, "out of memory");
        memcpy(b, &grown, sizeof grown);
    }
    *cap = ncap;
    return 1;
}

int space_is_identifier(const char *s, size_t len)
{
    if (len == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
        return 0;
    for (size_t i = 1; i < len; i++)
        if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
            return 0;
    return 1;
}

int space_name_is_limit(const char *s)
{
    for (size_t i = 0; i < CUTUNE_NLIMITS; i++)
        if (strcmp(cutune_limit_names[i], s) == 0)
            return 1;
    return 0;
}

int space_for_each_item(Ctx *c, const char *value, ItemFn item, const char *what, const char *fix)
{
    const char *p = value;
    size_t all = strlen(value);
    cutune_trim(&p, &all);
    if (all == 0)
        return 1;
    const char *end = p + all;
    for (;;) {
        const char *comma = memchr(p, ',', (size_t)(end - p));
        const char *stop = comma ? comma : end;
        const char *it = p;
        size_t len = (size_t)(stop - p);
        cutune_trim(&it, &len);
        if (len == 0) {
            if (!comma && p != value)
                return 1; /* trailing comma */
            return space_fail(c, c->lineno, CUTUNE_ERR_PARSE, "%s: empty item in the list; %s",
                              what, fix);
        }
        if (!item(c, it, len))
            return 0;
        if (!comma)
            return 1;
        p = comma + 1;
    }
}
