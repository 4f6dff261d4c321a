/* Reading a CSV recording (the format is in recording.c) into entries, and the entries
 * that both readers of recordings fill (recording_int.h). Fields are split by
 * cutune_csv_split, which keeps empty ones: "64,,8" is three fields, never two. */
#include "csv.h"
#include "recording_int.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A CSV line: the parameters, then status and median_ms. */
enum { MAX_FIELDS = CUTUNE_MAX_PARAMS + 2 };

void cutune_rec_entries_free(CutuneRecEntries *es)
{
    for (size_t i = 0; i < es->n; i++)
        free(es->e[i].config);
    free(es->e);
    memset(es, 0, sizeof *es);
}

int cutune_rec_entries_add(CutuneRecEntries *es, const char *config, int status, double ms,
                           double compile_ms)
{
    if (es->n == es->cap) {
        size_t cap = es->cap ? 2 * es->cap : 256;
        CutuneRecEntry *e = cutune_realloc_array(es->e, cap, sizeof *e);
        if (!e)
            return CUTUNE_ERR_NOMEM;
        es->e = e;
        es->cap = cap;
    }
    if (!(es->e[es->n].config = strdup(config)))
        return CUTUNE_ERR_NOMEM;
    es->e[es->n].status = status;
    es->e[es->n].median_ms = ms;
    es->e[es->n].compile_ms = compile_ms > 0 && isfinite(compile_ms) ? compile_ms : 0;
    es->n++;
    return 0;
}

/* A "# key: value" line: the recording's device, date, variant, size or source. */
static void comment(char *t, CutuneRecording *r)
{
    char *colon = strchr(t, ':');
    if (!colon)
        return;
    *colon = '\0';
    char *key = cutune_trim_in_place(t + 1), *val = cutune_trim_in_place(colon + 1);
    if (!strcmp(key, "device"))
        snprintf(r->device, sizeof r->device, "%s", val);
    else if (!strcmp(key, "date"))
        snprintf(r->date, sizeof r->date, "%s", val);
    else if (!strcmp(key, "variant"))
        snprintf(r->variant, sizeof r->variant, "%s", val);
    else if (!strcmp(key, "size"))
        snprintf(r->size, sizeof r->size, "%s", val);
    else if (!strcmp(key, "source"))
        snprintf(r->origin, sizeof r->origin, "%s", val);
}

/* A name or a value goes into the config text "A=1,B=2": it must be there, and hold
 * neither of the text's separators. NULL, or what is wrong with it. */
static const char *unfit(const char *s)
{
    return !*s ? "is empty" : strpbrk(s, ",=") ? "holds ',' or '='" : NULL;
}

/* The header line: the parameters' names, then status and median_ms. */
static int header(const char *path, int lineno, char **fields, int nf,
                  char (*names)[CUTUNE_NAME_MAX], CutuneError *err)
{
    if (nf < 3 || strcmp(fields[nf - 2], "status") || strcmp(fields[nf - 1], "median_ms"))
        return cutune_error(err, CUTUNE_ERR_PARSE,
                            "%s:%d: expected the header line PARAM,...,status,median_ms", path,
                            lineno);
    for (int i = 0; i + 2 < nf; i++) {
        const char *why = unfit(fields[i]);
        if (why)
            return cutune_error(err, CUTUNE_ERR_PARSE,
                                "%s:%d: the name of parameter %d '%.80s' %s: the header names "
                                "every parameter once, then status and median_ms",
                                path, lineno, i + 1, fields[i], why);
        if (strlen(fields[i]) >= CUTUNE_NAME_MAX)
            return cutune_error(err, CUTUNE_ERR_PARSE,
                                "%s:%d: parameter name '%.80s...' is longer than %d bytes", path,
                                lineno, fields[i], CUTUNE_NAME_MAX - 1);
        snprintf(names[i], CUTUNE_NAME_MAX, "%s", fields[i]);
    }
    return 0;
}

/* A line of a config: its values, status and median (a failed config's may be empty, or
 * missing with its comma). */
static int config_line(const char *path, int lineno, char **fields, int nf, int ncols,
                       char (*names)[CUTUNE_NAME_MAX], CutuneRecEntries *es, CutuneError *err)
{
    if (nf != ncols && nf != ncols - 1)
        return cutune_error(err, CUTUNE_ERR_PARSE, "%s:%d: expected %d fields, found %d", path,
                            lineno, ncols, nf);
    char config[CUTUNE_REC_CONFIG_MAX];
    size_t k = 0;
    config[0] = '\0';
    for (int i = 0; i + 2 < ncols && k < sizeof config; i++) {
        const char *why = unfit(fields[i]);
        if (why)
            return cutune_error(err, CUTUNE_ERR_PARSE, "%s:%d: the value of parameter %s %s", path,
                                lineno, names[i], why);
        k += (size_t)snprintf(config + k, sizeof config - k, "%s%s=%s", i ? "," : "", names[i],
                              fields[i]);
    }
    int status = cutune_status_parse(fields[ncols - 2]);
    if (status < 0)
        return cutune_error(err, CUTUNE_ERR_PARSE, "%s:%d: unknown status '%.80s'", path, lineno,
                            fields[ncols - 2]);
    const char *text = nf == ncols ? fields[ncols - 1] : "";
    char *end = NULL;
    double ms = *text ? strtod(text, &end) : 0;
    if (*text && (*end || !isfinite(ms) || ms < 0))
        return cutune_error(err, CUTUNE_ERR_PARSE,
                            "%s:%d: median_ms '%.80s' is not a finite number >= 0", path, lineno,
                            text);
    if (cutune_rec_entries_add(es, config, status, ms, 0))
        return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
    return 0;
}

int cutune_recording_read_csv(FILE *f, const char *path, CutuneRecEntries *es, CutuneRecording *r,
                              CutuneError *err)
{
    char names[CUTUNE_MAX_PARAMS][CUTUNE_NAME_MAX];
    char line[8192];
    char *fields[MAX_FIELDS];
    int ncols = 0, lineno = 0, rc = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        lineno++;
        if (!strchr(line, '\n') && !feof(f))
            return cutune_error(err, CUTUNE_ERR_PARSE, "%s:%d: the line is longer than %zu bytes",
                                path, lineno, sizeof line - 2);
        char *t = cutune_trim_in_place(line);
        if (*t == '\0')
            continue;
        if (*t == '#') {
            comment(t, r);
            continue;
        }
        int nf = cutune_csv_split(t, fields, MAX_FIELDS);
        if (nf == CUTUNE_CSV_TOO_MANY)
            return cutune_error(err, CUTUNE_ERR_PARSE,
                                "%s:%d: more than %d fields (at most %d parameters, then status "
                                "and median_ms)",
                                path, lineno, MAX_FIELDS, CUTUNE_MAX_PARAMS);
        if (nf < 0)
            return cutune_error(err, CUTUNE_ERR_PARSE,
                                "%s:%d: a quoted field is not closed, or text follows its "
                                "closing quote",
                                path, lineno);
        if (ncols == 0) {
            if ((rc = header(path, lineno, fields, nf, names, err)) == 0)
                ncols = nf;
            continue;
        }
        rc = config_line(path, lineno, fields, nf, ncols, names, es, err);
    }
    if (rc == 0 && es->n == 0)
        rc = cutune_error(err, CUTUNE_ERR_PARSE, "%s holds no config", path);
    return rc;
}
