/* A strict JSON validator for tests (RFC 8259): the whole text must be one value, with
 * valid UTF-8 and no control characters in strings. json_check returns 0 when the text is
 * valid, else the offset + 1 of the first error. Small on purpose: it checks, it does not
 * build anything. */
#ifndef CUTUNE_TESTS_JSON_CHECK_H
#define CUTUNE_TESTS_JSON_CHECK_H

#include <stddef.h>
#include <string.h>

typedef struct JsonCheck {
    const unsigned char *s;
    size_t n, i;
    int depth;
} JsonCheck;

static void jc_ws(JsonCheck *c)
{
    while (c->i < c->n &&
           (c->s[c->i] == ' ' || c->s[c->i] == '\t' || c->s[c->i] == '\n' || c->s[c->i] == '\r'))
        c->i++;
}

static int jc_lit(JsonCheck *c, const char *w)
{
    size_t k = strlen(w);
    if (c->n - c->i < k || memcmp(c->s + c->i, w, k) != 0)
        return -1;
    c->i += k;
    return 0;
}

static int jc_hex(unsigned char h)
{
    return (h >= '0' && h <= '9') || (h >= 'a' && h <= 'f') || (h >= 'A' && h <= 'F');
}

static int jc_string(JsonCheck *c)
{
    if (c->i >= c->n || c->s[c->i] != '"')
        return -1;
    c->i++;
    while (c->i < c->n) {
        unsigned char b = c->s[c->i];
        if (b == '"') {
            c->i++;
            return 0;
        }
        if (b < 0x20)
            return -1;
        if (b == '\\') {
            if (++c->i >= c->n)
                return -1;
            unsigned char e = c->s[c->i];
            if (e == 'u') {
                for (int k = 1; k <= 4; k++)
                    if (c->i + (size_t)k >= c->n || !jc_hex(c->s[c->i + (size_t)k]))
                        return -1;
                c->i += 5;
                continue;
            }
            if (!strchr("\"\\/bfnrt", e) || e == 0)
                return -1;
            c->i++;
            continue;
        }
        size_t len = b < 0x80                 ? 1
                     : b >= 0xc2 && b <= 0xdf ? 2
                     : b >= 0xe0 && b <= 0xef ? 3
                     : b >= 0xf0 && b <= 0xf4 ? 4
                                              : 0;
        if (len == 0 || c->i + len > c->n)
            return -1;
        unsigned long v = len == 1 ? b : len == 2 ? b & 0x1fu : len == 3 ? b & 0x0fu : b & 0x07u;
        for (size_t k = 1; k < len; k++) {
            if ((c->s[c->i + k] & 0xc0) != 0x80)
                return -1;
            v = (v << 6) | (c->s[c->i + k] & 0x3fu);
        }
        if ((len == 2 && v < 0x80) || (len == 3 && v < 0x800) || (len == 4 && v < 0x10000) ||
            v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
            return -1;
        c->i += len;
    }
    return -1;
}

static int jc_digits(JsonCheck *c)
{
    size_t start = c->i;
    while (c->i < c->n && c->s[c->i] >= '0' && c->s[c->i] <= '9')
        c->i++;
    return c->i > start ? 0 : -1;
}

static int jc_number(JsonCheck *c)
{
    if (c->i < c->n && c->s[c->i] == '-')
        c->i++;
    if (c->i < c->n && c->s[c->i] == '0')
        c->i++;
    else if (jc_digits(c))
        return -1;
    if (c->i < c->n && c->s[c->i] == '.') {
        c->i++;
        if (jc_digits(c))
            return -1;
    }
    if (c->i < c->n && (c->s[c->i] == 'e' || c->s[c->i] == 'E')) {
        c->i++;
        if (c->i < c->n && (c->s[c->i] == '+' || c->s[c->i] == '-'))
            c->i++;
        if (jc_digits(c))
            return -1;
    }
    return 0;
}

static int jc_value(JsonCheck *c)
{
    jc_ws(c);
    if (c->i >= c->n || ++c->depth > 200)
        return -1;
    unsigned char b = c->s[c->i];
    int rc = 0;
    if (b == '{' || b == '[') {
        unsigned char close = b == '{' ? '}' : ']';
        c->i++;
        jc_ws(c);
        if (c->i < c->n && c->s[c->i] == close) {
            c->i++;
        } else {
            for (;;) {
                if (b == '{') {
                    jc_ws(c);
                    if (jc_string(c))
                        return -1;
                    jc_ws(c);
                    if (c->i >= c->n || c->s[c->i++] != ':')
                        return -1;
                }
                if (jc_value(c))
                    return -1;
                jc_ws(c);
                if (c->i >= c->n)
                    return -1;
                if (c->s[c->i] == ',') {
                    c->i++;
                    continue;
                }
                if (c->s[c->i++] != close)
                    return -1;
                break;
            }
        }
    } else if (b == '"') {
        rc = jc_string(c);
    } else if (b == 't') {
        rc = jc_lit(c, "true");
    } else if (b == 'f') {
        rc = jc_lit(c, "false");
    } else if (b == 'n') {
        rc = jc_lit(c, "null");
    } else {
        rc = jc_number(c);
    }
    c->depth--;
    return rc;
}

static size_t json_check(const char *text, size_t n)
{
    JsonCheck c = {(const unsigned char *)text, n, 0, 0};
    if (jc_value(&c) != 0)
        return c.i + 1;
    jc_ws(&c);
    return c.i == n ? 0 : c.i + 1;
}

#endif
