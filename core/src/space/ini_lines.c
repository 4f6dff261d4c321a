/* Reading a tuning space file with inih (see ini_lines.h).
 *
 * inih's ini_parse_stream() takes its lines from a reader callback, next_line() below, which
 * sees every physical line before inih parses it. What inih gives is used as it is; what
 * Debian's build of it (the options are fixed when the library is compiled) does not give
 * is done here, each for a reason:
 *   - line numbers: the handler has no line (INI_HANDLER_LINENO is off), so next_line()
 *     counts, and inih calls the handler for a line before it reads the next;
 *   - section headers: the handler is called only for keys (INI_CALL_HANDLER_ON_NEW_SECTION
 *     is off), so an empty [param.X] would go unseen; inih also cuts a section name at 49
 *     bytes (MAX_SECTION, not an option) while [param.NAME] takes 6 + 63, and it takes an
 *     indented header for a continuation and text after ']' without a word. next_line()
 *     reads the header and reports it;
 *   - a continuation calls the handler with the key it continues, as a repeated key does:
 *     next_line() notes whether the line was indented;
 *   - inih cuts no comment on a continuation line, and its continuations carry the key cut
 *     at 49 bytes (MAX_NAME): on_pair() cuts the comment and keeps the whole key;
 *   - inih also splits "key: value" at ':' (Python configparser's style), which a space file
 *     refuses;
 *   - inih's errors are a line number alone; and a NUL byte or a line over its buffer would
 *     be cut silently: next_line() refuses those with a message. */
#include "ini_lines.h"
#include "space_limits.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define SYNTAX_FIX \
    "each line must be 'key = value', a [section] header, a comment (# or ;) or an " \
    "indented continuation of the previous value"
#define SYNTAX_ERROR "syntax error; " SYNTAX_FIX " (check for a missing '=' or ']')"

typedef struct {
    FILE *f;
    const CutuneIniEvents *ev;
    int lineno;
    int cont;     /* the line inih parses now continues the previous key */
    int has_key;  /* a key was read in the current section: indented lines continue it */
    int stopped;  /* a callback returned 0 */
    int rc, line; /* next_line()'s error and its line */
    char why[256];
    char key[CUTUNE_MAX_LINE + 1];
    char buf[CUTUNE_MAX_LINE + 2];
} Reader;

/* inih's options in Debian's build are variables (a patch of Debian's): its line buffer must
 * hold CUTUNE_MAX_LINE characters, '\n' and NUL, and it stops at the first error. Set once,
 * before any parse. */
static pthread_once_t options_once = PTHREAD_ONCE_INIT;
static void set_options(void)
{
    ini_max_line = CUTUNE_MAX_LINE + 3;
    ini_stop_on_first_error = 1;
    ini_allow_multiline = 1;
    ini_allow_inline_comments = 1;
}

static char *refuse(Reader *r, int code, const char *text)
{
    r->rc = code;
    r->line = r->lineno + 1;
    snprintf(r->why, sizeof r->why, "%s", text);
    return NULL;
}

static char *read_failed(Reader *r)
{
    r->rc = CUTUNE_ERR_IO;
    r->line = r->lineno + 1;
    snprintf(r->why, sizeof r->why,
             "cannot read the file: %s; check that it is a readable text file", strerror(errno));
    return NULL;
}

/* One physical line into r->buf, without its newline: its length, or -1 at the end or on
 * an error (r->rc). */
static long read_line(Reader *r)
{
    size_t n = 0;
    int ch = getc(r->f);
    if (ch == EOF) {
        if (ferror(r->f))
            read_failed(r);
        return -1;
    }
    for (; ch != EOF && ch != '\n'; ch = getc(r->f)) {
        if (ch == '\0') {
            refuse(r, CUTUNE_ERR_PARSE,
                   "the line contains a NUL byte; a space file must be plain text");
            return -1;
        }
        if (n == CUTUNE_MAX_LINE) {
            refuse(
                r, CUTUNE_ERR_PARSE,
                "line is longer than " CUTUNE_STR(
                    CUTUNE_MAX_LINE) " characters; split "
                                     "long lists over several lines (indented lines continue the previous value)");
            return -1;
        }
        r->buf[n++] = (char)ch;
    }
    if (ch == EOF && ferror(r->f)) {
        read_failed(r);
        return -1;
    }
    r->buf[n] = '\0';
    return (long)n;
}

/* "[name]" with p at '[' (r->buf, which inih no longer needs): reported, or refused. */
static char *section(Reader *r, char *p)
{
    char *close = strchr(p, ']');
    if (!close)
        return refuse(r, CUTUNE_ERR_PARSE,
                      "syntax error: the section header has no ']'; write [name]");
    char *after = close + 1;
    while (isspace((unsigned char)*after))
        after++;
    if (*after && *after != ';' && *after != '#')
        return refuse(r, CUTUNE_ERR_PARSE,
                      "unexpected text after the section header; put nothing but a comment "
                      "after ']'");
    *close = '\0';
    r->has_key = 0;
    if (!r->ev->section(r->ev->user, cutune_trim_in_place(p + 1), r->lineno + 1)) {
        r->stopped = 1;
        return NULL;
    }
    return p;
}

/* inih's reader: the next line into str (num bytes, CUTUNE_MAX_LINE + 3 at least), looked
 * at first for what inih does not tell (see the top of the file). */
static char *next_line(char *str, int num, void *stream)
{
    Reader *r = stream;
    if (r->rc || r->stopped)
        return NULL;
    long n = read_line(r);
    if (n < 0)
        return NULL;
    if (n + 2 > num)
        return refuse(r, CUTUNE_ERR_PARSE, "inih's line buffer is too short; rebuild cutune");
    memcpy(str, r->buf, (size_t)n);
    memcpy(str + n, "\n", 2);
    char *p = r->buf;
    if (r->lineno == 0 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
        p += 3;
    int indented = isspace((unsigned char)*p) != 0;
    p = cutune_trim_in_place(p);
    r->cont = 0;
    if (*p == '[') {
        if (indented)
            return refuse(r, CUTUNE_ERR_PARSE,
                          "indented section header; start '[' at the beginning of the line "
                          "(indented lines continue the previous value)");
        if (!section(r, p))
            return NULL;
    } else if (*p && *p != '#' && *p != ';') {
        r->cont = indented && r->has_key;
        if (!r->cont && p[strcspn(p, "=:")] == ':')
            return refuse(r, CUTUNE_ERR_PARSE, SYNTAX_ERROR);
    }
    r->lineno++;
    return str;
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

/* inih's handler: a key or a continuation of line r->lineno. */
static int on_pair(void *user, const char *section, const char *name, const char *value)
{
    (void)section; /* next_line() reported it, whole */
    Reader *r = user;
    if (!r->cont) {
        snprintf(r->key, sizeof r->key, "%s", name);
        r->has_key = *name != '\0'; /* as inih: an empty key is continued by no line */
    } else {
        /* the line's text, after the key's copy in r->buf was read: r->buf is free again */
        snprintf(r->buf, sizeof r->buf, "%s", value);
        cut_comment(r->buf);
        value = cutune_trim_in_place(r->buf);
    }
    if (!r->ev->key(r->ev->user, r->key, value, r->lineno, r->cont)) {
        r->stopped = 1;
        return 0;
    }
    return 1;
}

int cutune_ini_read(FILE *f, const CutuneIniEvents *ev, int *line, int *last, char *why, size_t len)
{
    pthread_once(&options_once, set_options);
    Reader *r = calloc(1, sizeof *r);
    if (!r) {
        *line = *last = 0;
        snprintf(why, len, "out of memory");
        return CUTUNE_ERR_NOMEM;
    }
    r->f = f;
    r->ev = ev;
    int bad = ini_parse_stream(next_line, r, on_pair, r);
    int rc = 0;
    *last = r->lineno;
    if (r->rc) {
        rc = r->rc;
        *line = r->line;
        snprintf(why, len, "%s", r->why);
    } else if (bad != 0 && !r->stopped) {
        /* inih refused a line that it had read: a key line with no '=' */
        rc = bad < 0 ? CUTUNE_ERR_NOMEM : CUTUNE_ERR_PARSE;
        *line = bad < 0 ? r->lineno : bad;
        snprintf(why, len, "%s", bad < 0 ? "out of memory" : SYNTAX_ERROR);
    }
    free(r);
    return rc;
}
