/* UTF-8 checking and terminal-safe text (see utf8.h). */
#include "utf8.h"

#include <string.h>

size_t cutune_utf8_decode(const unsigned char *s, size_t avail, uint32_t *cp)
{
    if (avail == 0 || s[0] == 0)
        return 0;
    unsigned char c = s[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    size_t n;
    uint32_t v, min;
    if (c >= 0xc2 && c <= 0xdf)
        n = 2, v = c & 0x1f, min = 0x80;
    else if (c >= 0xe0 && c <= 0xef)
        n = 3, v = c & 0x0f, min = 0x800;
    else if (c >= 0xf0 && c <= 0xf4)
        n = 4, v = c & 0x07, min = 0x10000;
    else
        return 0; /* a continuation byte, an overlong lead (c0, c1) or beyond f4 */
    if (avail < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0; /* also stops at a NUL */
        v = (v << 6) | (s[i] & 0x3f);
    }
    if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
        return 0;
    *cp = v;
    return n;
}

size_t cutune_text_write(FILE *f, const char *s, size_t max_bytes)
{
    if (!s) {
        fputs("(null)", f);
        return 0;
    }
    const unsigned char *p = (const unsigned char *)s;
    size_t escaped = 0, done = 0, left = 0;
    while (p[left])
        left++;
    while (*p) {
        if (max_bytes && done >= max_bytes) {
            fputs("...", f);
            break;
        }
        uint32_t cp;
        size_t n = cutune_utf8_decode(p, left, &cp);
        if (n == 0) {
            fprintf(f, "\\x%02x", *p);
            escaped++;
            n = 1;
        } else if (cp == '\t') {
            fputs("\\t", f);
            escaped++;
        } else if (cp == '\n') {
            fputs("\\n", f);
            escaped++;
        } else if (cp < 0x20 || cp == 0x7f) {
            fprintf(f, "\\x%02x", (unsigned)cp);
            escaped++;
        } else if (cp >= 0x80 && cp < 0xa0) { /* C1 controls, e.g. CSI */
            fprintf(f, "\\u{%02x}", (unsigned)cp);
            escaped++;
        } else {
            fwrite(p, 1, n, f);
        }
        p += n;
        left -= n;
        done += n;
    }
    return escaped;
}

void cutune_text_format(char *buf, size_t len, const char *s, size_t max_bytes)
{
    if (len == 0)
        return;
    buf[0] = '\0';
    FILE *f = fmemopen(buf, len, "w");
    if (!f)
        return;
    setvbuf(f, NULL, _IONBF, 0);
    cutune_text_write(f, s, max_bytes);
    long n = ftell(f);
    fclose(f);
    buf[n >= 0 && (size_t)n < len ? (size_t)n : len - 1] = '\0';
}
