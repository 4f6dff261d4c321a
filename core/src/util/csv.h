/* CSV fields as RFC 4180 writes them: a field holding a comma, a quote, CR or LF is
 * quoted, and quotes inside are doubled. Every CSV that cutune writes (export, replay
 * results, recordings) goes through it, so that a name from a database (a device, a
 * variant, a strategy) cannot add a column or a row. */
#ifndef CUTUNE_CSV_H
#define CUTUNE_CSV_H

#include <stdio.h>

/* Write one field of s (NULL: empty), then ',' or, when last, "\n". */
void cutune_csv_field(FILE *f, const char *s, int last);

/* Write a comment line "# key: value\n" (a recording's header): CR and LF in value become
 * spaces, so that the value stays on its line. */
void cutune_csv_comment(FILE *f, const char *key, const char *value);

#endif
