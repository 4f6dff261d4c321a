/* The one JSON writer of cutune: every command's JSON goes through it.
 *
 *     CutuneJson j;
 *     cutune_json_init(&j, stdout, 1);
 *     cutune_json_begin_object(&j);
 *     cutune_json_key(&j, "op");      cutune_json_string(&j, op);
 *     cutune_json_key(&j, "median");  cutune_json_number(&j, ms);
 *     cutune_json_end_object(&j);
 *     if (cutune_json_finish(&j)) ...the stream failed, or the calls were out of order...
 *
 * The output is valid JSON (RFC 8259) whatever the strings and numbers hold, because
 * everything written comes from untrusted places (databases are merged and shared):
 * - strings are escaped; invalid UTF-8 is replaced by U+FFFD and counted
 *   (cutune_json_replaced), so that the caller can say so;
 * - DEL, U+2028 and U+2029 are escaped too, so that the text is also safe for JavaScript
 *   and a terminal;
 * - a number that is not finite (inf, NaN) is written as null.
 *
 * The writer owns no memory and never closes f. Calls in the wrong order (a value where a
 * key is due, an end that does not match, more than CUTUNE_JSON_MAX_DEPTH levels) write
 * nothing and are reported by cutune_json_error as CUTUNE_ERR_INVALID: a bug in the caller.
 * A failed stream (a full disk, /dev/full, a closed pipe) is CUTUNE_ERR_IO. */
#ifndef CUTUNE_JSON_H
#define CUTUNE_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CUTUNE_JSON_MAX_DEPTH 32

typedef struct CutuneJson {
    FILE *f;
    int pretty;      /* containers down to this depth put each member on its own line */
    int depth;       /* open containers */
    int after_key;   /* a key was written: its value is due */
    int misuse;      /* a call out of order */
    int done;        /* a whole top-level value was written */
    size_t replaced; /* invalid UTF-8 sequences replaced */
    unsigned char is_object[CUTUNE_JSON_MAX_DEPTH]; /* per open container */
    unsigned char has_member[CUTUNE_JSON_MAX_DEPTH];
} CutuneJson;

/* pretty: 0 writes everything on one line ({"a": 1, "b": [2, 3]}); N > 0 puts the members
 * of the outer N levels of containers on their own lines, indented by two spaces, and
 * keeps deeper ones on one line (pretty = 2 gives one line per row of a list of rows);
 * a negative value breaks every level. */
void cutune_json_init(CutuneJson *j, FILE *f, int pretty);

void cutune_json_begin_object(CutuneJson *j);
void cutune_json_end_object(CutuneJson *j);
void cutune_json_begin_array(CutuneJson *j);
void cutune_json_end_array(CutuneJson *j);
/* The name of the next member of the object open; escaped as a string. */
void cutune_json_key(CutuneJson *j, const char *key);
/* A string value; NULL writes null. */
void cutune_json_string(CutuneJson *j, const char *s);
/* A number with the precision to read back the same double; inf and NaN write null. */
void cutune_json_number(CutuneJson *j, double v);
void cutune_json_int(CutuneJson *j, int64_t v);
void cutune_json_bool(CutuneJson *j, int v);
void cutune_json_null(CutuneJson *j);

/* A member of the object open: the key, then the value. */
void cutune_json_member_string(CutuneJson *j, const char *key, const char *s);
void cutune_json_member_number(CutuneJson *j, const char *key, double v);
void cutune_json_member_int(CutuneJson *j, const char *key, int64_t v);

/* 0 while all is well; CUTUNE_ERR_INVALID after a call out of order; CUTUNE_ERR_IO when
 * the stream has an error (ferror). */
int cutune_json_error(const CutuneJson *j);
/* How many invalid UTF-8 sequences were replaced by U+FFFD so far. */
size_t cutune_json_replaced(const CutuneJson *j);
/* End the document: a newline, and fflush. Returns cutune_json_error afterwards, and
 * CUTUNE_ERR_INVALID when containers are still open or nothing was written. */
int cutune_json_finish(CutuneJson *j);

#endif
