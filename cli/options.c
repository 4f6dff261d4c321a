/* Numeric options, parsed into their real type and range. Every numeric option of every
 * command goes through here, so that a bad value is a usage error (exit 2) that says what
 * was wrong, never a silent wrap (--device 4294967299 is not GPU 3). */
#include "cli.h"

#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

/* Strict decimal: an optional '-', then digits only (no spaces, no '+', no hex). Returns
 * NULL with *neg and *mag set, or what was wrong. */
static const char *digits(const char *text, int *neg, uint64_t *mag)
{
    const char *p = text;
    *neg = 0;
    *mag = 0;
    if (!p || !*p)
        return "it is empty";
    if (*p == '-') {
        *neg = 1;
        p++;
    }
    if (!*p)
        return "there is no digit";
    for (; *p; p++) {
        if (*p < '0' || *p > '9')
            return "it is not a whole decimal number";
        unsigned d = (unsigned)(*p - '0');
        if (*mag > (UINT64_MAX - d) / 10)
            return "it is too large";
        *mag = *mag * 10 + d;
    }
    return NULL;
}

static int refuse(const char *cmd, const char *opt, const char *text, const char *range,
                  const char *why)
{
    return cli_usage_error(cmd, "%s needs %s, got '%s': %s", opt, range, text ? text : "", why);
}

int cli_parse_int64(const char *cmd, const char *opt, const char *text, int64_t min,
                    int64_t max, int64_t *out)
{
    char range[96];
    if (max == INT64_MAX)
        snprintf(range, sizeof range, "a whole number of at least %" PRId64, min);
    else
        snprintf(range, sizeof range, "a whole number from %" PRId64 " to %" PRId64, min, max);
    int neg;
    uint64_t mag;
    const char *why = digits(text, &neg, &mag);
    if (why)
        return refuse(cmd, opt, text, range, why);
    if (neg && mag > (uint64_t)INT64_MAX + 1)
        return refuse(cmd, opt, text, range, "it is too small");
    if (!neg && mag > (uint64_t)INT64_MAX)
        return refuse(cmd, opt, text, range, "it is too large");
    int64_t v = neg ? (mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)mag) : (int64_t)mag;
    if (v < min)
        return refuse(cmd, opt, text, range, "it is too small");
    if (v > max)
        return refuse(cmd, opt, text, range, "it is too large");
    *out = v;
    return 0;
}

int cli_parse_uint64(const char *cmd, const char *opt, const char *text, uint64_t min,
                     uint64_t max, uint64_t *out)
{
    char range[96];
    if (max == UINT64_MAX)
        snprintf(range, sizeof range, "a whole number of at least %" PRIu64, min);
    else
        snprintf(range, sizeof range, "a whole number from %" PRIu64 " to %" PRIu64, min, max);
    int neg;
    uint64_t mag;
    const char *why = digits(text, &neg, &mag);
    if (why)
        return refuse(cmd, opt, text, range, why);
    if ((neg && mag > 0) || mag < min)
        return refuse(cmd, opt, text, range, "it is too small");
    if (mag > max)
        return refuse(cmd, opt, text, range, "it is too large");
    *out = mag;
    return 0;
}

int cli_parse_int(const char *cmd, const char *opt, const char *text, int min, int max,
                  int *out)
{
    int64_t v;
    int rc = cli_parse_int64(cmd, opt, text, min, max, &v);
    if (rc == 0)
        *out = (int)v;
    return rc;
}

int cli_parse_size(const char *cmd, const char *opt, const char *text, size_t min, size_t max,
                   size_t *out)
{
    uint64_t v;
    int rc = cli_parse_uint64(cmd, opt, text, min, max, &v);
    if (rc == 0)
        *out = (size_t)v;
    return rc;
}

int cli_parse_real(const char *cmd, const char *opt, const char *text, double min, double max,
                   double *out)
{
    char range[96];
    if (max == DBL_MAX)
        snprintf(range, sizeof range, "a number of at least %g", min);
    else
        snprintf(range, sizeof range, "a number from %g to %g", min, max);
    if (!text || !*text)
        return refuse(cmd, opt, text, range, "it is empty");
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end || text[0] == ' ' || text[0] == '\t')
        return refuse(cmd, opt, text, range, "it is not a number");
    if (!isfinite(v) || errno == ERANGE)
        return refuse(cmd, opt, text, range, "it is not a finite number in range");
    if (v < min)
        return refuse(cmd, opt, text, range, "it is too small");
    if (v > max)
        return refuse(cmd, opt, text, range, "it is too large");
    *out = v;
    return 0;
}

int cli_parse_u64(const char *cmd, const char *opt, const char *text, unsigned long long *out)
{
    uint64_t v;
    int rc = cli_parse_uint64(cmd, opt, text, 0, UINT64_MAX, &v);
    if (rc == 0)
        *out = v;
    return rc;
}

int cli_parse_double(const char *cmd, const char *opt, const char *text, double *out)
{
    return cli_parse_real(cmd, opt, text, 0, DBL_MAX, out);
}
