/* cutune report: one run, for a person: a self-contained HTML file (inline SVG, no script,
 * nothing fetched), or a short summary on the terminal. */
#include "cli.h"
#include "db.h"
#include "outfile.h"
#include "report.h"
#include "report_html.h"
#include "report_svg.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char help[] =
    "usage: cutune report [RUN] [--html FILE] [--db PATH]\n"
    "\n"
    "Report run RUN (default: the latest run that searched, not one that only re-timed the\n"
    "best configs). With --html, write one self-contained HTML file (figures as inline SVG;\n"
    "no JavaScript, nothing fetched from a network), with a table of contents and one\n"
    "colour per variant in every figure:\n"
    "  - the device, the CUDA driver and runtime versions and cuBLASLt's where recorded;\n"
    "  - per size, the best config of the run and its variant, its rate (TFLOP/s, or GB/s\n"
    "    for a memory-bound op), the spread of its samples, and its speed against the vendor\n"
    "    yardstick (cuBLAS, cudaMemcpy, CUB) where one was measured on that device, also as\n"
    "    a chart;\n"
    "  - how each variant and size was searched (strategy, valid configs, evaluated, time);\n"
    "  - per size, the best time so far against evaluations and against wall time, with\n"
    "    the yardstick as a dashed line;\n"
    "  - per size, the spread of every ok config's time, one row per variant (each dot's\n"
    "    title names its config);\n"
    "  - the parameters' importance (the variance of the log times their values' medians\n"
    "    explain) and each one's effect, where a value has at least 5 ok configs;\n"
    "  - the failed configs, grouped by status, with their messages.\n"
    "Without --html, print the best per size. Works without a GPU. A run with no trials is\n"
    "not found (exit 4). A time that is not a positive finite number (inf, zero,\n"
    "negative), which no measurement gives, is left out of every table and figure, and the\n"
    "report says how many were.\n";

/* The times left out (report.h), said where the reader starts, or nothing. */
static void skipped_times(FILE *f, const Report *r, int html)
{
    if (!r->bad_trial_times && !r->bad_yardstick_times)
        return;
    char text[400];
    snprintf(text, sizeof text,
             "%zu trial(s) recorded ok and %zu yardstick(s) have a time that is not a positive "
             "finite number (inf, zero, negative or none), which no measurement gives: they "
             "are left out of every table and figure.",
             r->bad_trial_times, r->bad_yardstick_times);
    if (html) {
        fputs("<p class=\"warning\" id=\"skipped-times\">", f);
        report_text(f, text);
        fputs("</p>\n", f);
    } else {
        printf("  note: %s\n", text);
    }
}

static const char style[] =
    "<style>\n"
    "body{font-family:sans-serif;margin:2em auto;max-width:64em;color:#222}\n"
    "table{font-size:92%} #best-table td:nth-child(3){max-width:14em}\n"
    "table{border-collapse:collapse;margin:0.5em 0 1.5em}\n"
    "th,td{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top}\n"
    "th{background:#f0f0f0} td.num{text-align:right;font-variant-numeric:tabular-nums}\n"
    ".meta,.note{color:#555} .warning{color:#a00} figure{margin:1em 0 2em}\n"
    "svg.plot{max-width:100%;height:auto;display:block}\n"
    "figcaption.title{font-weight:bold;margin:0 0 0.3em}\n"
    "nav#toc{background:#f7f7f7;padding:0.3em 1em;border:1px solid #ddd}\n"
    "nav#toc ol ol{display:inline;padding:0} nav#toc ol ol li{display:inline;margin-right:0.8em}\n"
    ".swatch{display:inline-block;width:1.6em;height:0.8em;margin:0 0.3em 0 0.8em}\n"
    ".pgroup{display:inline-block;vertical-align:top;margin-right:2em}\n"
    "table.failed td:nth-child(4){font-family:monospace;font-size:90%}\n"
    "</style>\n";

static void write_html(FILE *f, const Report *r, const char *db_path)
{
    char title[256];
    snprintf(title, sizeof title, "cutune run %lld: %s on %s", (long long)r->run_id,
             r->op[0] ? r->op : "?", r->device[0] ? r->device : "?");
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>", f);
    report_text(f, title);
    fprintf(f, "</title>\n%s</head>\n<body>\n<h1>", style);
    report_text(f, title);
    fputs("</h1>\n", f);
    report_toc(f, r);
    skipped_times(f, r, 1);
    report_meta(f, r, db_path);
    report_legend(f, r);
    report_best(f, r);
    report_vs_vendor(f, r);
    report_searches(f, r);
    report_convergence(f, r);
    report_spread(f, r);
    report_params(f, r);
    report_failures(f, r);
    fprintf(f, "<p class=\"note\">Written by cutune %s.</p>\n</body>\n</html>\n", CUTUNE_VERSION);
}

static void print_summary(const Report *r)
{
    printf("run %lld: %s on %s, %s, %zu trials\n", (long long)r->run_id, r->op, r->device,
           r->status, r->ntrials);
    if (r->latest_run)
        printf("  (the latest run that searched; run %lld, the newest, only re-timed)\n",
               (long long)r->latest_run);
    for (size_t s = 0; s < r->nsizes; s++) {
        long g = report_best_group(r, r->sizes[s]);
        const ReportYardstick *y = report_yardstick(r, r->sizes[s]);
        if (g < 0) {
            printf("  %-20s no config ran correctly\n", r->sizes[s]);
            continue;
        }
        ReportRate rate = report_rate(&r->trials[r->groups[g].best]);
        printf("  %-20s %-16s %.6g ms", r->sizes[s], r->groups[g].variant, r->groups[g].best_ms);
        if (rate.value > 0)
            printf("  %.4g %s", rate.value, rate.unit);
        printf("  %s", r->trials[r->groups[g].best].config);
        double pct = y ? 100.0 * y->ms / r->groups[g].best_ms : 0;
        if (y && isfinite(pct))
            printf("  (%.1f%% of %s)", pct, y->name);
        putchar('\n');
    }
    skipped_times(stdout, r, 0);
    printf("`cutune report %lld --html FILE` writes the whole report\n", (long long)r->run_id);
}

int cmd_report(int argc, char **argv)
{
    const char *html = NULL, *db_path = NULL;
    const CliOption opts[] = {CLI_TEXT("html", &html), CLI_TEXT("db", &db_path), CLI_END};
    int parsed = cli_parse_options("report", help, argc, argv, opts);
    if (parsed >= 0)
        return parsed;
    int64_t run = 0;
    if (argc - optind > 1)
        return cli_usage_error("report", "unexpected argument '%s'", argv[optind + 1]);
    if (argc - optind == 1 &&
        cli_parse_int64("report", "RUN", argv[optind], 1, INT64_MAX, &run) != 0)
        return EXIT_USAGE;
    CutuneError err = {0};
    char path[4096];
    if (!db_path) {
        if (cutune_db_default_path(path, sizeof path, &err))
            return cli_fail("report", &err);
        db_path = path;
    }
    int rc;
    if (html && (rc = cli_refuse_db_output("report", html, db_path)))
        return rc;
    CutuneDb *db = NULL;
    Report r;
    memset(&r, 0, sizeof r);
    CutuneOutFile out = {0};
    if (cutune_db_open(db_path, CUTUNE_DB_READONLY, &db, &err) || report_load(db, run, &r, &err))
        goto fail;
    if (r.ntrials == 0) { /* nothing to show: said, and not found */
        cutune_error(&err, CUTUNE_ERR_NOT_FOUND,
                     "run %lld of %s recorded no trials (it stopped before measuring, or found "
                     "everything already measured); `cutune show` lists the runs' trials, and "
                     "`cutune report RUN` reports another run",
                     (long long)r.run_id, db_path);
        goto fail;
    }
    if (!html) {
        print_summary(&r);
    } else {
        if (cutune_outfile_open(&out, html, &err))
            goto fail;
        write_html(out.f, &r, db_path);
        if (cutune_outfile_commit(&out, &err))
            goto fail;
        printf("wrote %s: run %lld, %zu trials, %zu sizes\n", html, (long long)r.run_id, r.ntrials,
               r.nsizes);
    }
    report_free(&r);
    cutune_db_close(&db);
    return EXIT_OK;
fail:
    cutune_outfile_abort(&out);
    report_free(&r);
    cutune_db_close(&db);
    return cli_fail("report", &err);
}
