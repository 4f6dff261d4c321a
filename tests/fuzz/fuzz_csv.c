/* libFuzzer harness for the CSV recording reader (core/src/replay/recording_csv.c) and the
 * CSV line splitter under it (core/src/util/csv.c). The input is the file's text.
 * Invariants: a read that fails names the file (and carries a message); one that succeeds
 * gives configs that all have the header's parameters, each with a value, in order, a
 * known status and a finite median >= 0; and every line that splits writes back
 * (cutune_csv_field) to text that splits into the same fields. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "fuzz_text.h"
#include "recording_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAX = 64 };

/* Split each line, write its fields back, split again: the same fields. */
static void round_trip(char *text)
{
    for (char *line = text, *next; line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        char *f[MAX], *g[MAX], *copy = strdup(line);
        int n = copy ? cutune_csv_split(copy, f, MAX) : -1;
        if (n < 0) {
            free(copy);
            continue;
        }
        char *buf = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&buf, &len);
        if (!m)
            abort();
        for (int i = 0; i < n; i++)
            cutune_csv_field(m, f[i], i + 1 == n);
        fclose(m);
        int written_lines = 0; /* a field holding a line end makes the line two in a file */
        for (size_t i = 0; i < len; i++)
            written_lines += buf[i] == '\n';
        buf[len - 1] = '\0';
        int k = cutune_csv_split(buf, g, MAX);
        if (written_lines == 1 && k != n) {
            fprintf(stderr, "'%s' split into %d fields, written back into %d\n", line, n, k);
            abort();
        }
        for (int i = 0; written_lines == 1 && i < n; i++)
            if (strcmp(f[i], g[i]) != 0)
                abort();
        free(buf);
        free(copy);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) /* fmemopen refuses an empty buffer */
        return 0;
    FILE *f = fmemopen((void *)data, size, "r");
    if (!f)
        abort();
    CutuneRecEntries es = {0};
    CutuneRecording r;
    CutuneError err = {0};
    memset(&r, 0, sizeof r);
    int rc = cutune_recording_read_csv(f, "fuzz.csv", &es, &r, &err);
    fclose(f);
    if (rc != 0 && (err.msg[0] == '\0' || (strncmp(err.msg, "fuzz.csv", 8) != 0 &&
                                           strcmp(err.msg, "out of memory") != 0))) {
        fprintf(stderr, "bad failure: rc %d message '%s'\n", rc, err.msg);
        abort();
    }
    for (size_t i = 0; rc == 0 && i < es.n; i++) {
        const CutuneRecEntry *e = &es.e[i];
        size_t eq = 0, commas = 0, first = 0;
        for (const char *p = e->config; *p; p++) {
            eq += *p == '=';
            commas += *p == ',';
            if (*p == '=' && (p[1] == ',' || p[1] == '\0'))
                abort(); /* a parameter without its value */
        }
        for (const char *p = es.e[0].config; *p; p++)
            first += *p == '=';
        if (eq == 0 || eq != commas + 1 || eq != first || e->status < 0 ||
            e->status >= CUTUNE_STATUS_COUNT || !isfinite(e->median_ms) || e->median_ms < 0)
            abort();
    }
    cutune_rec_entries_free(&es);
    char *text = fuzz_text(data, size);
    if (text)
        round_trip(text);
    free(text);
    return 0;
}
