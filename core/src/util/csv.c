/* RFC 4180 fields, written and read (see csv.h). */
#include "csv.h"

#include <string.h>

void cutune_csv_field(FILE *f, const char *s, int last)
{
    if (!s)
        s = "";
    size_t len = strlen(s);
    /* blanks at an end are quoted too: the reader drops those around a field */
    int blank_end = len && (s[0] == ' ' || s[0] == '\t' || s[len - 1] == ' ' || s[len - 1] == '\t');
    if (blank_end || strpbrk(s, ",\"\r\n")) {
        fputc('"', f);
        for (; *s; s++) {
            if (*s == '"')
                fputc('"', f);
            fputc(*s, f);
        }
        fputc('"', f);
    } else {
        fputs(s, f);
    }
    fputc(last ? '\n' : ',', f);
}

void cutune_csv_comment(FILE *f, const char *key, const char *value)
{
    fprintf(f, "# %s: ", key);
    for (const char *s = value ? value : ""; *s; s++)
        fputc(*s == '\r' || *s == '\n' ? ' ' : *s, f);
    fputc('\n', f);
}

static char *skip_blanks(char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

int cutune_csv_split(char *line, char **fields, int max)
{
    int n = 0;
    for (char *p = line;;) {
        p = skip_blanks(p);
        if (n == max)
            return CUTUNE_CSV_TOO_MANY;
        char *start = p, *w = p;
        if (*p == '"') { /* unquoted into place: w trails p by the quotes dropped */
            for (p++;; p++) {
                if (*p == '\0')
                    return CUTUNE_CSV_BAD_QUOTE;
                if (*p == '"' && p[1] != '"')
                    break;
                p += *p == '"';
                *w++ = *p;
            }
            p = skip_blanks(p + 1);
            if (*p != ',' && *p != '\0')
                return CUTUNE_CSV_BAD_QUOTE;
        } else {
            while (*p && *p != ',')
                p++;
            for (w = p; w > start && (w[-1] == ' ' || w[-1] == '\t');)
                w--;
        }
        char end = *p;
        *w = '\0';
        fields[n++] = start;
        if (end == '\0')
            return n;
        p++;
    }
}
