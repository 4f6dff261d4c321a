/* The one writer of C source text from untrusted data, for `cutune export --format header`
 * (and anything else that generates C).
 *
 * Strings and numbers read from a database must never become code: a config value such
 * as `1);system("id");//` or a name with a quote in it is data. Names that will be used as
 * C identifiers or macro names are checked with cutune_c_identifier_valid first, and a
 * row that fails is left out by the caller with a warning. Everything else goes through
 * the writers below, which produce a literal that compiles as the same value, whatever
 * the input bytes. None of them allocates; errors show as ferror(f). */
#ifndef CUTUNE_CLITERAL_H
#define CUTUNE_CLITERAL_H

#include <stdint.h>
#include <stdio.h>

/* 1 when s is a C identifier of at most 63 characters ([A-Za-z_][A-Za-z0-9_]*) that is
 * not a C keyword and not reserved (a leading "__" or "_" and a capital); 0 otherwise. */
int cutune_c_identifier_valid(const char *s);

/* A string literal: printable ASCII as it is; '"', '\\' and '?' (no trigraphs) escaped;
 * every other byte as a three-digit octal escape, which cannot run into the next
 * character. NULL writes NULL. */
void cutune_c_string(FILE *f, const char *s);

/* A long long literal that reads back as v, INT64_MIN included. */
void cutune_c_int64(FILE *f, int64_t v);

/* A double literal that reads back as v; a value that is not finite writes 0.0, which the
 * caller must not rely on: check isfinite first and leave such a row out. */
void cutune_c_double(FILE *f, double v);

/* Text inside a block comment: a '*' next to a '/' becomes '_' (the comment can neither
 * close nor seem to nest), and control bytes (newlines, escapes) become '?'. */
void cutune_c_comment_text(FILE *f, const char *s);

#endif
