/* CSV fields as RFC 4180 writes them: a field holding a comma, a quote, CR or LF, or
 * beginning or ending with a blank, is quoted, and quotes inside are doubled. Every CSV that cutune writes (export, replay
 * results, recordings) goes through it, so that a name from a database (a device, a
 * variant, a strategy) cannot add a column or a row; and a line is read back by
 * cutune_csv_split, which keeps every field, empty ones too. */
#ifndef CUTUNE_CSV_H
#define CUTUNE_CSV_H

#include <stdio.h>

/* Write one field of s (NULL: empty), then ',' or, when last, "\n". */
void cutune_csv_field(FILE *f, const char *s, int last);

/* Write a comment line "# key: value\n" (a recording's header): CR and LF in value become
 * spaces, so that the value stays on its line. */
void cutune_csv_comment(FILE *f, const char *key, const char *value);

/* Split one line of CSV (without its line end) into fields, in place: fields[i] points
 * into line. Every comma outside quotes ends a field, so "a,,b" is three fields, the second
 * empty. A field in double quotes may hold commas, and "" for a quote; blanks around a
 * field are not part of it. Returns the number of fields, or CUTUNE_CSV_TOO_MANY when
 * there are more than max, CUTUNE_CSV_BAD_QUOTE when a quote is not closed or text follows
 * a closing quote. */
enum { CUTUNE_CSV_TOO_MANY = -1, CUTUNE_CSV_BAD_QUOTE = -2 };
int cutune_csv_split(char *line, char **fields, int max);

#endif
