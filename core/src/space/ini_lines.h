/* The lines of a tuning space file, parsed by inih (Debian's libinih, linked statically).
 *
 * inih splits "key = value", trims both sides, cuts inline comments, skips comment lines and
 * a UTF-8 byte order mark, and hands an indented line after a key to the same key. Around it
 * sits the least code that gives what Debian's build of inih does not (ini_lines.c says why
 * for each): the number of every line, section headers as events (an empty [param.X] is an
 * error), a continuation told apart from a repeated key, and an error message that says what
 * is wrong with a line and how to fix it.
 *
 * The syntax:
 *   - blank lines, and lines whose first non-blank character is '#' or ';', are comments;
 *   - "[name]" starts a section; only a comment may follow the ']'; never indented;
 *   - "key = value": the key is what comes before the first '=', both sides trimmed;
 *   - an indented line after a key of the same section continues that key's value;
 *   - in a value, ';' after white space starts a comment to the end of the line;
 *   - a UTF-8 byte order mark before the first line is skipped;
 *   - a line holds at most CUTUNE_MAX_LINE characters and no NUL byte.
 */
#ifndef CUTUNE_INI_LINES_H
#define CUTUNE_INI_LINES_H

#include <stddef.h>
#include <stdio.h>

/* What the reader calls, in the order of the file. Each returns 1 to go on, 0 to stop (the
 * callee keeps its own error). */
typedef struct CutuneIniEvents {
    void *user;
    /* "[name]" at line: name trimmed */
    int (*section)(void *user, const char *name, int line);
    /* "key = value" (cont 0), or an indented line that continues key (cont 1, value this
     * line's text); value trimmed, its comment cut */
    int (*key)(void *user, const char *key, const char *value, int line, int cont);
} CutuneIniEvents;

/* Read f (owned by the caller) to its end, calling ev. Returns 0 at the end or when a
 * callback stopped; or a negative CUTUNE_ERR_* with why = "<what is wrong>; <how to fix
 * it>" and *line = the line it is on. *last = the number of lines read. */
int cutune_ini_read(FILE *f, const CutuneIniEvents *ev, int *line, int *last, char *why,
                    size_t len);

#endif
