/* The JSON writer (see json.h). */
#include "json.h"

#include <inttypes.h>
#include <math.h>

#include "cutune/cutune.h"
#include "utf8.h"

void cutune_json_init(CutuneJson *j, FILE *f, int pretty)
{
    *j = (CutuneJson){.f = f, .pretty = pretty};
}

static int breaks(const CutuneJson *j, int depth)
{
    return j->pretty < 0 || depth <= j->pretty;
}

static void indent(CutuneJson *j, int depth)
{
    fputc('\n', j->f);
    for (int i = 0; i < depth; i++)
        fputs("  ", j->f);
}

/* Before a member of the innermost container: the comma, and the line or space. */
static void separate(CutuneJson *j)
{
    int d = j->depth - 1;
    if (j->has_member[d])
        fputc(',', j->f);
    if (breaks(j, j->depth))
        indent(j, j->depth);
    else if (j->has_member[d])
        fputc(' ', j->f);
    j->has_member[d] = 1;
}

/* Before a value: check that one is due here, and write the separator. 0: write it. */
static int value_start(CutuneJson *j)
{
    if (j->misuse || !j->f)
        return -1;
    if (j->depth == 0) {
        if (j->done) {
            j->misuse = 1; /* one top-level value per document */
            return -1;
        }
        return 0;
    }
    int d = j->depth - 1;
    if (j->is_object[d]) {
        if (!j->after_key) {
            j->misuse = 1;
            return -1;
        }
        j->after_key = 0;
        return 0;
    }
    separate(j);
    return 0;
}

static void value_end(CutuneJson *j)
{
    if (j->depth == 0)
        j->done = 1;
}

static void begin(CutuneJson *j, int object)
{
    if (value_start(j))
        return;
    if (j->depth == CUTUNE_JSON_MAX_DEPTH) {
        j->misuse = 1;
        return;
    }
    fputc(object ? '{' : '[', j->f);
    j->is_object[j->depth] = (unsigned char)object;
    j->has_member[j->depth] = 0;
    j->depth++;
}

static void end(CutuneJson *j, int object)
{
    if (j->misuse || !j->f)
        return;
    if (j->depth == 0 || j->is_object[j->depth - 1] != object || j->after_key) {
        j->misuse = 1;
        return;
    }
    j->depth--;
    if (j->has_member[j->depth] && breaks(j, j->depth + 1))
        indent(j, j->depth);
    fputc(object ? '}' : ']', j->f);
    value_end(j);
}

void cutune_json_begin_object(CutuneJson *j)
{
    begin(j, 1);
}
void cutune_json_end_object(CutuneJson *j)
{
    end(j, 1);
}
void cutune_json_begin_array(CutuneJson *j)
{
    begin(j, 0);
}
void cutune_json_end_array(CutuneJson *j)
{
    end(j, 0);
}

static void write_string(CutuneJson *j, const char *s)
{
    FILE *f = j->f;
    const unsigned char *p = (const unsigned char *)s;
    size_t left = 0;
    while (p[left])
        left++;
    fputc('"', f);
    while (*p) {
        uint32_t cp;
        size_t n = cutune_utf8_decode(p, left, &cp);
        if (n == 0) {
            fputs("\xef\xbf\xbd", f); /* U+FFFD for the byte that is not UTF-8 */
            j->replaced++;
            n = 1;
        } else if (cp == '"' || cp == '\\') {
            fputc('\\', f);
            fputc((int)cp, f);
        } else if (cp == '\n') {
            fputs("\\n", f);
        } else if (cp == '\t') {
            fputs("\\t", f);
        } else if (cp == '\r') {
            fputs("\\r", f);
        } else if (cp < 0x20 || cp == 0x7f || cp == 0x2028 || cp == 0x2029) {
            fprintf(f, "\\u%04x", (unsigned)cp);
        } else {
            fwrite(p, 1, n, f);
        }
        p += n;
        left -= n;
    }
    fputc('"', f);
}

void cutune_json_key(CutuneJson *j, const char *key)
{
    if (j->misuse || !j->f)
        return;
    int d = j->depth - 1;
    if (j->depth == 0 || !j->is_object[d] || j->after_key || !key) {
        j->misuse = 1;
        return;
    }
    separate(j);
    write_string(j, key);
    fputs(": ", j->f);
    j->after_key = 1;
}

void cutune_json_string(CutuneJson *j, const char *s)
{
    if (!s) {
        cutune_json_null(j);
        return;
    }
    if (value_start(j))
        return;
    write_string(j, s);
    value_end(j);
}

void cutune_json_number(CutuneJson *j, double v)
{
    if (value_start(j))
        return;
    if (isfinite(v))
        fprintf(j->f, "%.17g", v);
    else
        fputs("null", j->f);
    value_end(j);
}

void cutune_json_int(CutuneJson *j, int64_t v)
{
    if (value_start(j))
        return;
    fprintf(j->f, "%" PRId64, v);
    value_end(j);
}

void cutune_json_bool(CutuneJson *j, int v)
{
    if (value_start(j))
        return;
    fputs(v ? "true" : "false", j->f);
    value_end(j);
}

void cutune_json_null(CutuneJson *j)
{
    if (value_start(j))
        return;
    fputs("null", j->f);
    value_end(j);
}

void cutune_json_member_string(CutuneJson *j, const char *key, const char *s)
{
    cutune_json_key(j, key);
    cutune_json_string(j, s);
}

void cutune_json_member_number(CutuneJson *j, const char *key, double v)
{
    cutune_json_key(j, key);
    cutune_json_number(j, v);
}

void cutune_json_member_int(CutuneJson *j, const char *key, int64_t v)
{
    cutune_json_key(j, key);
    cutune_json_int(j, v);
}

int cutune_json_error(const CutuneJson *j)
{
    if (!j || !j->f || j->misuse)
        return CUTUNE_ERR_INVALID;
    return ferror(j->f) ? CUTUNE_ERR_IO : 0;
}

size_t cutune_json_replaced(const CutuneJson *j)
{
    return j ? j->replaced : 0;
}

int cutune_json_finish(CutuneJson *j)
{
    if (!j || !j->f)
        return CUTUNE_ERR_INVALID;
    if (j->depth != 0 || !j->done)
        j->misuse = 1;
    if (!j->misuse) {
        fputc('\n', j->f);
        fflush(j->f);
    }
    return cutune_json_error(j);
}
