/* Problem size strings: "4096x4096x4096". */
#include "util.h"

#include <stdio.h>
#include <string.h>

#define DIM_MAX 2147483647LL

int cutune_problem_parse(const char *text, CutuneProblem *p, CutuneError *err)
{
    const char *hint = "write positive integers separated by 'x', e.g. 4096x4096x4096";
    memset(p, 0, sizeof *p);
    if (!text || !*text)
        return cutune_error(err, CUTUNE_ERR_PARSE, "empty problem size; %s", hint);
    const char *s = text;
    for (;;) {
        if (p->ndims == CUTUNE_MAX_DIMS)
            return cutune_error(err, CUTUNE_ERR_PARSE,
                                "problem size '%s' has more than %d dimensions; %s", text,
                                CUTUNE_MAX_DIMS, hint);
        if (*s == '-')
            return cutune_error(err, CUTUNE_ERR_PARSE,
                                "problem size '%s': dimension %d is negative; %s", text,
                                p->ndims + 1, hint);
        if (*s == '\0')
            return cutune_error(err, CUTUNE_ERR_PARSE,
                                "problem size '%s' ends after an 'x': dimension %d is missing; %s",
                                text, p->ndims + 1, hint);
        if (*s < '0' || *s > '9')
            return cutune_error(err, CUTUNE_ERR_PARSE,
                                "problem size '%s': expected a number at '%s'; %s", text, s, hint);
        long long v = 0;
        while (*s >= '0' && *s <= '9') {
            v = v * 10 + (*s - '0');
            if (v > DIM_MAX)
                return cutune_error(err, CUTUNE_ERR_RANGE,
                                    "problem size '%s': dimension %d is larger than %lld", text,
                                    p->ndims + 1, DIM_MAX);
            s++;
        }
        if (v == 0)
            return cutune_error(err, CUTUNE_ERR_RANGE,
                                "problem size '%s': dimension %d is zero; %s", text, p->ndims + 1,
                                hint);
        p->dim[p->ndims++] = v;
        if (*s == '\0')
            return 0;
        if (*s != 'x' && *s != 'X')
            return cutune_error(err, CUTUNE_ERR_PARSE, "problem size '%s': unexpected '%c'; %s",
                                text, *s, hint);
        s++;
    }
}

void cutune_problem_format(const CutuneProblem *p, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < p->ndims && used < len; i++) {
        int n = snprintf(buf + used, len - used, i ? "x%lld" : "%lld", (long long)p->dim[i]);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}
