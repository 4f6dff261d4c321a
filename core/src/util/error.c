/* The one error table and the one way to record a message for a person. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cutune/cutune.h"

const char *cutune_strerror(int code)
{
    switch (code) {
#define CUTUNE_X_CASE(name, value, text) \
    case value: return text;
        CUTUNE_ERROR_TABLE(CUTUNE_X_CASE)
#undef CUTUNE_X_CASE
    }
    return "unknown error";
}

int cutune_error(CutuneError *err, int code, const char *fmt, ...)
{
    if (!err || err->msg[0])
        return code; /* keep the first, most specific message */
    err->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return code;
}

void cutune_error_clear(CutuneError *err)
{
    if (err) {
        err->code = 0;
        err->msg[0] = '\0';
    }
}

static const char *const status_names[] = {
#define CUTUNE_X_NAME(name, text) text,
    CUTUNE_STATUS_TABLE(CUTUNE_X_NAME)
#undef CUTUNE_X_NAME
};

const char *cutune_status_name(CutuneStatus s)
{
    if ((int)s < 0 || s >= CUTUNE_STATUS_COUNT)
        return "unknown";
    return status_names[s];
}

int cutune_status_parse(const char *name)
{
    for (int i = 0; i < CUTUNE_STATUS_COUNT; i++)
        if (strcmp(status_names[i], name) == 0)
            return i;
    return -1;
}
