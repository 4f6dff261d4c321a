/* Small text helpers the core shares: trimming, strict integers, bounded copies. */
#include "util.h"

#include <ctype.h>
#include <string.h>

void cutune_trim(const char **s, size_t *len)
{
    while (*len && isspace((unsigned char)**s)) {
        (*s)++;
        (*len)--;
    }
    while (*len && isspace((unsigned char)(*s)[*len - 1]))
        (*len)--;
}

char *cutune_trim_in_place(char *s)
{
    const char *t = s;
    size_t len = strlen(s);
    cutune_trim(&t, &len);
    ((char *)t)[len] = '\0';
    return (char *)t;
}

int cutune_parse_whole(const char *s, size_t len, int *neg, uint64_t *mag)
{
    size_t i = 0;
    int minus = 0;
    if (i < len && (s[i] == '+' || s[i] == '-')) {
        minus = s[i] == '-';
        i++;
    }
    if (i == len)
        return CUTUNE_I64_NOT_INTEGER;
    uint64_t v = 0;
    int range = 0;
    for (; i < len; i++) {
        if (!isdigit((unsigned char)s[i]))
            return CUTUNE_I64_NOT_INTEGER;
        unsigned d = (unsigned)(s[i] - '0');
        /* keep scanning after an overflow: "99999999999999999999x" is not an integer */
        if (!range && (v > (UINT64_MAX - d) / 10))
            range = 1;
        v = range ? v : v * 10 + d;
    }
    if (range)
        return CUTUNE_I64_RANGE;
    *neg = minus && v > 0; /* "-0" is 0 */
    *mag = v;
    return 0;
}

int cutune_parse_i64(const char *s, size_t len, int64_t *out)
{
    int neg;
    uint64_t mag;
    int rc = cutune_parse_whole(s, len, &neg, &mag);
    if (rc)
        return rc;
    if (mag > (neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX))
        return CUTUNE_I64_RANGE;
    *out = neg ? -(int64_t)(mag - 1) - 1 : (int64_t)mag;
    return 0;
}

void cutune_copy_str(char *dst, size_t len, const char *src)
{
    if (len == 0)
        return;
    size_t n = src ? strlen(src) : 0;
    n = n < len - 1 ? n : len - 1;
    if (n)
        memcpy(dst, src, n);
    dst[n] = '\0';
}
