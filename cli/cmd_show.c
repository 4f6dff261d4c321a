/* cutune show: the trials of a run. */
#include "cli.h"
#include "db.h"
#include "utf8.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char help[] =
    "usage: cutune show [RUN] [--db PATH] [--status S]\n"
    "\n"
    "Print the trials of run RUN (default: the latest run), one line each: variant, size,\n"
    "config, status, median time, rate, and the reason for a failure; a longer reason (the\n"
    "compiler's errors, the check's verdict) follows on up to MESSAGE_LINES indented lines.\n"
    "--status keeps one status (ok, wrong_result, compile_error, launch_error,\n"
    "skipped_resources, timeout, crashed).\n";

enum { MESSAGE_LINES = 4 }; /* of a failure's message */

typedef struct {
    const char *status;
    size_t shown;
} Show;

/* A column of the table: the text made safe, padded to width. */
static void cell(const char *text, int width)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m)
        return;
    cutune_text_write(m, text, 0);
    fclose(m);
    printf("%-*s ", width, buf ? buf : "");
    free(buf);
}

static int row(const CutuneTrialRow *r, void *user)
{
    Show *s = user;
    if (s->status && strcmp(s->status, r->status))
        return 0;
    if (s->shown++ == 0)
        printf("%-8s %-14s %-16s %-18s %10s %10s  %s\n", "trial", "variant", "size", "status",
               "median_ms", "rate", "config / message");
    char rate[32] = "-";
    if (r->gflops > 0)
        snprintf(rate, sizeof rate, "%.1fGF/s", r->gflops);
    else if (r->gbps > 0)
        snprintf(rate, sizeof rate, "%.1fGB/s", r->gbps);
    char med[32] = "-";
    if (r->median_ms > 0)
        snprintf(med, sizeof med, "%.4f", r->median_ms);
    /* names, configs and messages come from the database: escaped, so that control
     * sequences (ESC[2J clears a screen) reach no terminal */
    printf("%-8lld ", (long long)r->id);
    cell(r->variant, 14);
    cell(r->size, 16);
    cell(r->status, 18);
    printf("%10s %10s  ", med, rate);
    cutune_text_write(stdout, r->config, 0);
    if (r->message && *r->message) {
        const char *nl = strchr(r->message, '\n');
        char first[256];
        snprintf(first, sizeof first, "%.*s", nl ? (int)(nl - r->message) : 200, r->message);
        printf("  (");
        cutune_text_write(stdout, first, 0);
        printf(")");
        /* the lines after: NVRTC's log starts with the errors, file(line): error: ... */
        for (int k = 1; nl && k < MESSAGE_LINES; k++) {
            const char *line = nl + 1;
            nl = strchr(line, '\n');
            int len = nl ? (int)(nl - line) : (int)strlen(line);
            if (len > 0) {
                snprintf(first, sizeof first, "%.*s", len < 200 ? len : 200, line);
                printf("\n         ");
                cutune_text_write(stdout, first, 0);
            }
        }
    }
    printf("\n");
    return 0;
}

/* --status: one of the statuses, kept as given. */
static int parse_status(const char *cmd, const char *opt, const char *value, void *status)
{
    (void)opt;
    if (cutune_status_parse(value) < 0)
        return cli_usage_error(cmd, "unknown status '%s'", value);
    *(const char **)status = value;
    return 0;
}

int cmd_show(int argc, char **argv)
{
    const char *db_path = NULL;
    Show s = {0};
    const CliOption opts[] = {CLI_TEXT("db", &db_path), CLI_CALL("status", parse_status, &s.status),
                              CLI_END};
    int rc = cli_parse_options("show", help, argc, argv, opts);
    if (rc >= 0)
        return rc;
    if (argc - optind > 1)
        return cli_usage_error("show", "expected at most one run id");
    int64_t run = 0;
    if (optind < argc && cli_parse_int64("show", "RUN", argv[optind], 1, INT64_MAX, &run))
        return EXIT_USAGE;

    CutuneError err = {0};
    char path[4096];
    CutuneDb *db = NULL;
    if (!db_path) {
        if (cutune_db_default_path(path, sizeof path, &err))
            return cli_fail("show", &err);
        db_path = path;
    }
    int64_t run_id = run;
    if (cutune_db_open(db_path, CUTUNE_DB_READONLY, &db, &err) ||
        (run_id == 0 && cutune_db_last_run(db, &run_id, &err)) ||
        cutune_db_trials_foreach(db, run_id, row, &s, &err)) {
        cutune_db_close(&db);
        return cli_fail("show", &err);
    }
    cutune_db_close(&db);
    if (s.shown == 0) {
        fprintf(stderr, "cutune show: run %lld has no trials%s%s\n", (long long)run_id,
                s.status ? " with status " : "", s.status ? s.status : "");
        return EXIT_NOT_FOUND;
    }
    printf("(%zu trials of run %lld)\n", s.shown, (long long)run_id);
    return EXIT_OK;
}
