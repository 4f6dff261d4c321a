/* Reading a config's canonical text strictly (see config_text.h). */
#include "config_text.h"
#include "json.h"
#include "util.h"

#include <string.h>

static int is_ident(const char *s, size_t len)
{
    if (len == 0 || len >= CUTUNE_NAME_MAX)
        return 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
                 (i > 0 && c >= '0' && c <= '9');
        if (!ok)
            return 0;
    }
    return 1;
}

/* Strict decimal int64 as the canonical text writes it: an optional '-', then digits. */
static int parse_value(const char *s, size_t len, int64_t *out)
{
    return len && s[0] == '+' ? -1 : cutune_parse_i64(s, len, out);
}

static int refuse(CutuneConfigPairs *out, CutuneError *err, const char *text, const char *item,
                  size_t len, const char *why)
{
    out->count = 0;
    return cutune_error(err, CUTUNE_ERR_PARSE, "config '%.200s': item '%.*s' %s", text,
                        (int)(len > 80 ? 80 : len), item, why);
}

int cutune_config_pairs_parse(const char *text, CutuneConfigPairs *out, CutuneError *err)
{
    if (!out)
        return cutune_error(err, CUTUNE_ERR_INVALID, "cutune_config_pairs_parse: no output");
    out->count = 0;
    if (!text)
        return cutune_error(err, CUTUNE_ERR_INVALID, "cutune_config_pairs_parse: no text");
    if (!*text)
        return 0;
    for (const char *p = text;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        const char *eq = memchr(p, '=', len);
        if (len == 0)
            return refuse(out, err, text, p, len,
                          "is empty (two commas in a row, or one at an "
                          "end)");
        if (!eq)
            return refuse(out, err, text, p, len, "is not NAME=value");
        size_t nlen = (size_t)(eq - p);
        if (!is_ident(p, nlen))
            return refuse(out, err, text, p, len,
                          "does not start with a parameter name (letters, "
                          "digits and '_', not a digit first, under 64 "
                          "bytes)");
        if (out->count == CUTUNE_MAX_PARAMS) /* before anything is stored at count */
            return refuse(out, err, text, p, len,
                          "is one more than the " CUTUNE_STR(
                              CUTUNE_MAX_PARAMS) " parameters a config "
                                                 "may have");
        if (parse_value(eq + 1, len - nlen - 1, &out->values[out->count]))
            return refuse(out, err, text, p, len,
                          "has a value that is not a whole number in the "
                          "int64 range");
        for (size_t i = 0; i < out->count; i++)
            if (strlen(out->names[i]) == nlen && memcmp(out->names[i], p, nlen) == 0)
                return refuse(out, err, text, p, len, "names a parameter a second time");
        memcpy(out->names[out->count], p, nlen);
        out->names[out->count][nlen] = '\0';
        out->count++;
        if (!comma)
            return 0;
        p = comma + 1;
    }
}

void cutune_config_pairs_json(CutuneJson *j, const CutuneConfigPairs *p)
{
    cutune_json_begin_object(j);
    for (size_t i = 0; i < p->count; i++)
        cutune_json_member_int(j, p->names[i], p->values[i]);
    cutune_json_end_object(j);
}
