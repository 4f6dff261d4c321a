/* The lines of a tuning space file, one at a time, with their numbers.
 *
 * cutune owns this small reader rather than wrapping a general INI library: a space file
 * needs the line of every key and every section header (an error names file:line), section
 * headers as events (an empty [param.X] is an error), and continuation lines told apart from
 * keys; those are exactly what a callback-per-pair INI library does not give.
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

#include "space_limits.h"

typedef enum {
    CUTUNE_INI_SECTION,      /* name: the section's name, trimmed */
    CUTUNE_INI_KEY,          /* name: the key; value: the value */
    CUTUNE_INI_CONTINUATION, /* name: the key it continues; value: this line's text */
} CutuneIniKind;

typedef struct CutuneIniLine {
    CutuneIniKind kind;
    int line;          /* 1-based */
    const char *name;  /* NUL-terminated; valid until the next call */
    const char *value; /* NUL-terminated, trimmed, comment cut; "" for a section */
} CutuneIniLine;

typedef struct CutuneIniReader {
    FILE *f;
    int lineno;
    int has_key; /* a key was read in the current section: indented lines continue it */
    char key[CUTUNE_MAX_LINE + 1];
    char buf[CUTUNE_MAX_LINE + 2];
} CutuneIniReader;

/* Start reading f (owned by the caller). */
void cutune_ini_init(CutuneIniReader *r, FILE *f);

/* The next meaningful line. Returns 1 and fills *out; 0 at the end of the file; or a
 * negative CUTUNE_ERR_* with why = "<what is wrong>; <how to fix it>" and *line = the line
 * it is on. */
int cutune_ini_next(CutuneIniReader *r, CutuneIniLine *out, int *line, char *why, size_t len);

#endif
