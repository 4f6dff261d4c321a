/* C literals from untrusted data (see cliteral.h). */
#include "cliteral.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

static const char *const keywords[] = {
    "auto",          "break",        "case",      "char",    "const",   "continue",
    "default",       "do",           "double",    "else",    "enum",    "extern",
    "float",         "for",          "goto",      "if",      "inline",  "int",
    "long",          "register",     "restrict",  "return",  "short",   "signed",
    "sizeof",        "static",       "struct",    "switch",  "typedef", "union",
    "unsigned",      "void",         "volatile",  "while",   "asm",     "typeof",
    "bool",          "true",         "false",     "nullptr", "alignas", "alignof",
    "static_assert", "thread_local", "constexpr", "defined",
};

int cutune_c_identifier_valid(const char *s)
{
    if (!s)
        return 0;
    size_t n = 0;
    for (const char *p = s; *p; p++, n++) {
        char c = *p;
        int alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
        if (!alpha && !(n > 0 && c >= '0' && c <= '9'))
            return 0;
    }
    if (n == 0 || n > 63)
        return 0;
    if (s[0] == '_' && (s[1] == '_' || (s[1] >= 'A' && s[1] <= 'Z')))
        return 0;
    for (size_t i = 0; i < sizeof keywords / sizeof keywords[0]; i++)
        if (strcmp(s, keywords[i]) == 0)
            return 0;
    return 1;
}

void cutune_c_string(FILE *f, const char *s)
{
    if (!s) {
        fputs("NULL", f);
        return;
    }
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\' || *p == '?')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20 || *p >= 0x7f)
            fprintf(f, "\\%03o", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

void cutune_c_int64(FILE *f, int64_t v)
{
    if (v == INT64_MIN) /* 9223372036854775808LL does not fit: negate a smaller one */
        fputs("(-9223372036854775807LL - 1)", f);
    else
        fprintf(f, "%" PRId64 "LL", v);
}

void cutune_c_double(FILE *f, double v)
{
    if (!isfinite(v)) {
        fputs("0.0", f);
        return;
    }
    char buf[40];
    snprintf(buf, sizeof buf, "%.17g", v);
    fputs(buf, f);
    if (!strpbrk(buf, ".eE")) /* 3 would be an int: keep it a double literal */
        fputs(".0", f);
}

void cutune_c_comment_text(FILE *f, const char *s)
{
    if (!s)
        return;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if ((p[0] == '*' && p[1] == '/') ||
            (p[0] == '*' && p > (const unsigned char *)s && p[-1] == '/'))
            fputc('_', f); /* neither closes the comment nor opens a nested one */
        else if (*p < 0x20 || *p == 0x7f)
            fputc('?', f);
        else
            fputc(*p, f);
    }
}
