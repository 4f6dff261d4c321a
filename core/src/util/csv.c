/* RFC 4180 fields (see csv.h). */
#include "csv.h"

#include <string.h>

void cutune_csv_field(FILE *f, const char *s, int last)
{
    if (!s)
        s = "";
    if (strpbrk(s, ",\"\r\n")) {
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
