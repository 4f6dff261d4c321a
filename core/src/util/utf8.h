/* UTF-8 checking, and text that is safe to print on a terminal.
 *
 * Strings read from a database or a recording are untrusted: a name or a message may hold
 * invalid UTF-8 or control sequences (ESC[2J clears a screen). Everything that prints such
 * a string for a person goes through cutune_text_write. */
#ifndef CUTUNE_UTF8_H
#define CUTUNE_UTF8_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Decode the UTF-8 sequence at s (at most `avail` bytes; a NUL ends the text). Returns its
 * length (1 to 4) with *cp set, or 0 when the bytes there are not valid UTF-8 (overlong,
 * surrogate, above U+10FFFF, truncated, or a stray continuation byte): the caller then
 * skips one byte. */
size_t cutune_utf8_decode(const unsigned char *s, size_t avail, uint32_t *cp);

/* Write s for a person on a terminal or in a log: printable text as it is; tab, newline and
 * the other control characters (C0, DEL, C1) as \t, \n, \xNN or \u{NN}; invalid UTF-8 as
 * \xNN per byte. At most max_bytes of s are written (0: all), then "...". NULL writes
 * "(null)". Returns the number of sequences escaped. */
size_t cutune_text_write(FILE *f, const char *s, size_t max_bytes);

/* cutune_text_write into buf: at most len - 1 bytes and a NUL (len > 0), for a message that
 * quotes text a person typed or a file held. */
void cutune_text_format(char *buf, size_t len, const char *s, size_t max_bytes);

#endif
