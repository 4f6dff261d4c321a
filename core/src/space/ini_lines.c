/* Reading a tuning space file line by line (see ini_lines.h). */
#include "ini_lines.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>

#define SYNTAX_FIX \
    "each line must be 'key = value', a [section] header, a comment (# or ;) or an " \
    "indented continuation of the previous value"

void cutune_ini_init(CutuneIniReader *r, FILE *f)
{
    memset(r, 0, sizeof *r);
    r->f = f;
}

static int refuse(int code, int *line, int at, char *why, size_t len, const char *text)
{
    *line = at;
    snprintf(why, len, "%s", text);
    return code;
}

/* One physical line into r->buf, without its newline. 1, 0 at the end, or an error. */
static int read_line(CutuneIniReader *r, int *line, char *why, size_t len)
{
    size_t n = 0;
    int ch = getc(r->f);
    if (ch == EOF) {
        if (!ferror(r->f))
            return 0;
        snprintf(why, len, "cannot read the file: %s; check that it is a readable text file",
                 strerror(errno));
        *line = r->lineno + 1;
        return CUTUNE_ERR_IO;
    }
    for (; ch != EOF && ch != '\n'; ch = getc(r->f)) {
        if (ch == '\0')
            return refuse(CUTUNE_ERR_PARSE, line, r->lineno + 1, why, len,
                          "the line contains a NUL byte; a space file must be plain text");
        if (n == CUTUNE_MAX_LINE) {
            *line = r->lineno + 1;
            snprintf(why, len,
                     "line is longer than %d characters; split long lists over "
                     "several lines (indented lines continue the previous value)",
                     CUTUNE_MAX_LINE);
            return CUTUNE_ERR_PARSE;
        }
        r->buf[n++] = (char)ch;
    }
    if (ch == EOF && ferror(r->f)) {
        snprintf(why, len, "cannot read the file: %s; check that it is a readable text file",
                 strerror(errno));
        *line = r->lineno + 1;
        return CUTUNE_ERR_IO;
    }
    r->buf[n] = '\0';
    r->lineno++;
    return 1;
}

/* Cut a value at its comment: ';' at the start or after white space. */
static void cut_comment(char *v)
{
    for (char *q = v; *q; q++) {
        if (*q == ';' && (q == v || isspace((unsigned char)q[-1]))) {
            *q = '\0';
            return;
        }
    }
}

static int section(CutuneIniReader *r, char *p, CutuneIniLine *out, int *line, char *why,
                   size_t len)
{
    char *close = strchr(p, ']');
    if (!close)
        return refuse(CUTUNE_ERR_PARSE, line, r->lineno, why, len,
                      "syntax error: the section header has no ']'; write [name]");
    char *after = close + 1;
    while (isspace((unsigned char)*after))
        after++;
    if (*after && *after != ';' && *after != '#')
        return refuse(CUTUNE_ERR_PARSE, line, r->lineno, why, len,
                      "unexpected text after the section header; put nothing but a comment "
                      "after ']'");
    *close = '\0';
    out->kind = CUTUNE_INI_SECTION;
    out->name = cutune_trim_in_place(p + 1);
    out->value = "";
    r->has_key = 0;
    return 1;
}

int cutune_ini_next(CutuneIniReader *r, CutuneIniLine *out, int *line, char *why, size_t len)
{
    for (;;) {
        int rc = read_line(r, line, why, len);
        if (rc <= 0)
            return rc;
        char *p = r->buf;
        if (r->lineno == 1 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
            p += 3;
        int indented = isspace((unsigned char)*p) != 0;
        p = cutune_trim_in_place(p);
        if (*p == '\0' || *p == '#' || *p == ';')
            continue;
        out->line = r->lineno;
        if (*p == '[') {
            if (indented)
                return refuse(CUTUNE_ERR_PARSE, line, r->lineno, why, len,
                              "indented section header; start '[' at the beginning of the "
                              "line (indented lines continue the previous value)");
            return section(r, p, out, line, why, len);
        }
        if (indented && r->has_key) {
            cut_comment(p);
            out->kind = CUTUNE_INI_CONTINUATION;
            out->name = r->key;
            out->value = cutune_trim_in_place(p);
            return 1;
        }
        /* the key ends at the first '=', unless a comment starts before it */
        char *eq = strchr(p, '=');
        cut_comment(p);
        if (!eq || eq >= p + strlen(p))
            return refuse(CUTUNE_ERR_PARSE, line, r->lineno, why, len,
                          "syntax error; " SYNTAX_FIX " (check for a missing '=' or ']')");
        *eq = '\0';
        out->kind = CUTUNE_INI_KEY;
        out->name = cutune_trim_in_place(p);
        out->value = cutune_trim_in_place(eq + 1);
        memcpy(r->key, out->name, strlen(out->name) + 1);
        out->name = r->key;
        r->has_key = 1;
        return 1;
    }
}
