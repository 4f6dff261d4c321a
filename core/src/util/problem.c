/* Problem strings: "4096x4096x4096", and with an element type, a layout and an epilogue
 * that are not the defaults, "4096x4096x4096-bf16-nt-bias" (cutune/op.h). */
#include "utf8.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

#define DIM_MAX 2147483647LL

/* The index of the n characters at tok among count names, name(0) to name(count - 1), or -1. */
static int name_index(const char *tok, size_t n, const char *(*name)(int), int count)
{
    for (int i = 0; i < count; i++)
        if (strlen(name(i)) == n && !strncmp(tok, name(i), n))
            return i;
    return -1;
}

/* "-bf16-nt-bias" after the dimensions: an element type, a layout and an epilogue, each at
 * most once, in any order (canonical: type, layout, epilogue, defaults left out). */
static int parse_kind(const char *text, const char *s, CutuneProblem *p, CutuneError *err)
{
    int have_dtype = 0, have_layout = 0, have_epilogue = 0;
    while (*s == '-') {
        const char *tok = ++s;
        while (*s && *s != '-')
            s++;
        size_t n = (size_t)(s - tok);
        const int d = name_index(tok, n, cutune_dtype_name, CUTUNE_DTYPE_COUNT);
        const int l = d < 0 ? name_index(tok, n, cutune_layout_name, CUTUNE_LAYOUT_COUNT) : -1;
        const int e = d < 0 && l < 0
                          ? name_index(tok, n, cutune_epilogue_name, CUTUNE_EPILOGUE_COUNT)
                          : -1;
        if (d >= 0) {
            if (have_dtype++)
                return cutune_error(err, CUTUNE_ERR_PARSE,
                                    "problem '%s' names two element types; give one", text);
            p->dtype = d;
        } else if (l >= 0) {
            if (have_layout++)
                return cutune_error(err, CUTUNE_ERR_PARSE,
                                    "problem '%s' names two layouts; give one", text);
            p->layout = l;
        } else if (e >= 0) {
            if (have_epilogue++)
                return cutune_error(err, CUTUNE_ERR_PARSE,
                                    "problem '%s' names two epilogues; give one", text);
            p->epilogue = e;
        } else {
            char word[40], shown[160];
            snprintf(word, sizeof word, "%.*s", (int)(n > 32 ? 32 : n), tok);
            cutune_text_format(shown, sizeof shown, word, 0);
            return cutune_error(err, CUTUNE_ERR_PARSE,
                                "problem '%s': '%s' is not an element type (fp32, tf32, fp16, "
                                "bf16), a layout (nn, nt) or an epilogue (none, bias); write "
                                "e.g. 4096x4096x4096-bf16-nt or 4096x1024x1024-bf16-nt-bias",
                                text, shown);
        }
    }
    return 0; /* the loop ends at the end of the text */
}

/* The character at s for a message: printable, as itself and its code point ('×'
 * (U+00D7), never the lone first byte of it), else escaped (\xc3, \x1b). */
static void show_char(const char *s, char *buf, size_t len)
{
    uint32_t cp = 0;
    size_t n = cutune_utf8_decode((const unsigned char *)s, strlen(s), &cp);
    char one[8];
    snprintf(one, sizeof one, "%.*s", (int)(n ? n : 1), s);
    char shown[40];
    cutune_text_format(shown, sizeof shown, one, 0);
    if (cp >= 0xa0 && n > 1)
        snprintf(buf, len, "'%s' (U+%04X)", shown, (unsigned)cp);
    else
        snprintf(buf, len, "'%s'", shown);
}

int cutune_problem_parse(const char *text, CutuneProblem *p, CutuneError *err)
{
    const char *hint = "write positive integers separated by 'x', e.g. 4096x4096x4096";
    memset(p, 0, sizeof *p);
    if (!text || !*text)
        return cutune_error(err, CUTUNE_ERR_PARSE, "empty problem size; %s", hint);
    /* the size as typed or read from a file, escaped for a terminal where it is not text */
    char shown[200];
    cutune_text_format(shown, sizeof shown, text, 40);
    const char *s = text;
    for (;;) {
        if (p->ndims == CUTUNE_MAX_DIMS)
            return cutune_error(err, CUTUNE_ERR_PARSE,
                                "problem size '%s' has more than %d dimensions; %s", shown,
                                CUTUNE_MAX_DIMS, hint);
        if (*s == '-')
            return cutune_error(err, CUTUNE_ERR_PARSE,
                                "problem size '%s': dimension %d is negative; %s", shown,
                                p->ndims + 1, hint);
        if (*s == '\0')
            return cutune_error(err, CUTUNE_ERR_PARSE,
                                "problem size '%s' ends after an 'x': dimension %d is missing; %s",
                                shown, p->ndims + 1, hint);
        if (*s < '0' || *s > '9') {
            char at[200];
            cutune_text_format(at, sizeof at, s, 40);
            return cutune_error(err, CUTUNE_ERR_PARSE,
                                "problem size '%s': expected a number at '%s'; %s", shown, at,
                                hint);
        }
        long long v = 0;
        while (*s >= '0' && *s <= '9') {
            v = v * 10 + (*s - '0');
            if (v > DIM_MAX)
                return cutune_error(err, CUTUNE_ERR_RANGE,
                                    "problem size '%s': dimension %d is larger than %lld", shown,
                                    p->ndims + 1, DIM_MAX);
            s++;
        }
        if (v == 0)
            return cutune_error(err, CUTUNE_ERR_RANGE,
                                "problem size '%s': dimension %d is zero; %s", shown, p->ndims + 1,
                                hint);
        p->dim[p->ndims++] = v;
        if (*s == '\0')
            return 0;
        if (*s == '-')
            return parse_kind(shown, s, p, err);
        if (*s != 'x' && *s != 'X') {
            char c[64];
            show_char(s, c, sizeof c);
            return cutune_error(err, CUTUNE_ERR_PARSE,
                                "problem size '%s': unexpected %s after dimension %d; "
                                "separate the dimensions with the letter x, e.g. 4096x4096x4096",
                                shown, c, p->ndims);
        }
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
    if (p->dtype != CUTUNE_DTYPE_FP32 && used < len && cutune_dtype_name(p->dtype))
        used += (size_t)snprintf(buf + used, len - used, "-%s", cutune_dtype_name(p->dtype));
    if (p->layout != CUTUNE_LAYOUT_NN && used < len && cutune_layout_name(p->layout))
        used += (size_t)snprintf(buf + used, len - used, "-%s", cutune_layout_name(p->layout));
    if (p->epilogue != CUTUNE_EPILOGUE_NONE && used < len && cutune_epilogue_name(p->epilogue))
        snprintf(buf + used, len - used, "-%s", cutune_epilogue_name(p->epilogue));
}
