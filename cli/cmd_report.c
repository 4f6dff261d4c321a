/* cutune report: one run, for a person: a self-contained HTML file (inline SVG, no script,
 * nothing fetched), or a short summary on the terminal. */
#include "cli.h"
#include "db.h"
#include "outfile.h"
#include "report.h"
#include "report_svg.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char help[] =
    "usage: cutune report [RUN] [--html FILE] [--db PATH]\n"
    "\n"
    "Report run RUN (default: the latest). With --html, write one self-contained HTML file\n"
    "(figures as inline SVG; no JavaScript, nothing fetched from a network):\n"
    "  - per size, the best config of the run and its variant, and its speed against the\n"
    "    vendor yardstick (cuBLAS, cudaMemcpy, CUB) where one was measured on that device;\n"
    "  - how each variant and size was searched (strategy, valid configs, evaluated, time);\n"
    "  - per size, the best time so far against evaluations and against wall time;\n"
    "  - per size, the spread of every ok config's time, one row per variant;\n"
    "  - per variant and size, each parameter's effect: the median time per value;\n"
    "  - the failed configs, grouped by status, with their messages.\n"
    "Without --html, print the best per size. Works without a GPU. A time that is not a\n"
    "positive finite number (inf, zero, negative), which no measurement gives, is left out\n"
    "of every table and figure, and the report says how many were.\n";

static double median(double *v, size_t n)
{
    for (size_t i = 1; i < n; i++) /* insertion sort: the lists are short */
        for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return n == 0 ? 0 : n % 2 ? v[n / 2] : 0.5 * v[n / 2 - 1] + 0.5 * v[n / 2];
}

/* The best group of a size (fastest ok), or -1. */
static long best_group(const Report *r, const char *size)
{
    long best = -1;
    for (size_t g = 0; g < r->ngroups; g++)
        if (!strcmp(r->groups[g].size, size) && r->groups[g].best_ms > 0 &&
            (best < 0 || r->groups[g].best_ms < r->groups[best].best_ms))
            best = (long)g;
    return best;
}

static const ReportYardstick *yardstick(const Report *r, const char *size)
{
    for (size_t i = 0; i < r->nyard; i++)
        if (!strcmp(r->yard[i].size, size))
            return &r->yard[i];
    return NULL;
}

static void td(FILE *f, const char *s)
{
    fputs("<td>", f);
    report_text(f, s);
    fputs("</td>", f);
}

/* A config may break after each comma: long ones wrap in a narrow window. */
static void td_config(FILE *f, const char *config)
{
    fputs("<td>", f);
    for (const char *p = config; p && *p;) {
        const char *comma = strchr(p, ',');
        char part[512];
        size_t n = comma ? (size_t)(comma - p + 1) : strlen(p);
        snprintf(part, sizeof part, "%.*s", (int)(n < sizeof part ? n : sizeof part - 1), p);
        report_text(f, part);
        if (comma)
            fputs("<wbr>", f);
        p = comma ? comma + 1 : NULL;
    }
    fputs("</td>", f);
}

/* A number; one that overflowed (a ratio of two extreme times) is no number to show. */
static void tdf(FILE *f, const char *fmt, double v)
{
    fputs("<td class=\"num\">", f);
    if (isfinite(v))
        fprintf(f, fmt, v);
    else
        fputs("n/a", f);
    fputs("</td>", f);
}

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

static void best_table(FILE *f, const Report *r)
{
    fputs("<h2 id=\"best\">Best per size</h2>\n<table id=\"best-table\"><tr><th>size</th>"
          "<th>variant</th><th>config</th><th>median ms</th><th>vendor yardstick</th>"
          "<th>yardstick ms</th><th>speed vs yardstick</th></tr>\n",
          f);
    for (size_t s = 0; s < r->nsizes; s++) {
        long g = best_group(r, r->sizes[s]);
        const ReportYardstick *y = yardstick(r, r->sizes[s]);
        fputs("<tr>", f);
        td(f, r->sizes[s]);
        if (g < 0) {
            fputs("<td colspan=\"3\">no config ran correctly</td>", f);
        } else {
            td(f, r->groups[g].variant);
            td_config(f, r->trials[r->groups[g].best].config);
            tdf(f, "%.6g", r->groups[g].best_ms);
        }
        if (y) {
            td(f, y->name);
            tdf(f, "%.6g", y->ms);
            if (g >= 0)
                tdf(f, "%.1f%%", 100.0 * y->ms / r->groups[g].best_ms);
            else
                td(f, "");
        } else {
            fputs("<td colspan=\"3\">not measured</td>", f);
        }
        fputs("</tr>\n", f);
    }
    fputs("</table>\n<p class=\"note\">Speed vs yardstick: the yardstick's time over the "
          "tuned kernel's (above 100% the tuned kernel is faster).</p>\n",
          f);
}

static void search_table(FILE *f, const Report *r)
{
    fputs("<h2 id=\"searches\">How each variant and size was searched</h2>\n<table "
          "id=\"search-table\"><tr><th>variant</th><th>size</th><th>strategy</th><th>valid "
          "configs</th><th>evaluated</th><th>seconds</th><th>ended</th><th>ok</th>"
          "<th>failed</th></tr>\n",
          f);
    for (size_t g = 0; g < r->ngroups; g++) {
        const ReportGroup *gr = &r->groups[g];
        size_t ok = 0;
        for (size_t k = 0; k < gr->n; k++)
            ok += r->trials[gr->trials[k]].status == CUTUNE_STATUS_OK;
        fputs("<tr>", f);
        td(f, gr->variant);
        td(f, gr->size);
        if (gr->searched) {
            td(f, gr->strategy);
            tdf(f, "%.0f", (double)gr->nvalid);
            tdf(f, "%.0f", (double)gr->evaluated);
            tdf(f, "%.1f", gr->seconds);
            td(f, gr->status);
        } else {
            td(f, r->strategy[0] ? r->strategy : "?");
            fputs("<td colspan=\"4\">not recorded by this run</td>", f);
        }
        tdf(f, "%.0f", (double)ok);
        tdf(f, "%.0f", (double)(gr->n - ok));
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
}

/* Best-so-far curves of one size, one per variant: x is the evaluation or the time. */
static void convergence(FILE *f, const Report *r, size_t s, int by_time)
{
    ReportSeries series[64];
    double *buf = malloc((2 * r->ntrials + 1) * sizeof *buf);
    size_t ns = 0, used = 0;
    for (size_t g = 0; buf && g < r->ngroups && ns < 64; g++) {
        const ReportGroup *gr = &r->groups[g];
        if (strcmp(gr->size, r->sizes[s]) != 0)
            continue;
        double *x = buf + used, *y = x + gr->n, best = 0;
        for (size_t k = 0; k < gr->n; k++) {
            const ReportTrial *t = &r->trials[gr->trials[k]];
            if (t->status == CUTUNE_STATUS_OK && t->ms > 0 && (!(best > 0) || t->ms < best))
                best = t->ms;
            x[k] = by_time ? fmax(t->t, 0) : (double)(k + 1);
            y[k] = best;
        }
        series[ns++] = (ReportSeries){gr->variant, x, y, gr->n};
        used += 2 * gr->n;
    }
    char id[96], title[160];
    snprintf(id, sizeof id, "convergence-%s-%zu", by_time ? "time" : "evals", s);
    snprintf(title, sizeof title, "%s: best time so far against %s", r->sizes[s],
             by_time ? "wall time" : "evaluations");
    report_svg_lines(f, id, title, by_time ? "seconds since the run started" : "evaluations",
                     "best median so far (ms)", series, ns);
    free(buf);
}

static void spread(FILE *f, const Report *r, size_t s)
{
    const char *names[64];
    const double *vals[64];
    size_t n[64], ng = 0;
    double *buf = malloc((r->ntrials + 1) * sizeof *buf);
    size_t used = 0;
    for (size_t g = 0; buf && g < r->ngroups && ng < 64; g++) {
        const ReportGroup *gr = &r->groups[g];
        if (strcmp(gr->size, r->sizes[s]) != 0)
            continue;
        double *v = buf + used;
        size_t m = 0;
        for (size_t k = 0; k < gr->n; k++) {
            const ReportTrial *t = &r->trials[gr->trials[k]];
            if (t->status == CUTUNE_STATUS_OK && t->ms > 0)
                v[m++] = t->ms;
        }
        names[ng] = gr->variant;
        vals[ng] = v;
        n[ng++] = m;
        used += m;
    }
    char id[64], title[160];
    snprintf(id, sizeof id, "spread-%zu", s);
    snprintf(title, sizeof title, "%s: the median time of every ok config", r->sizes[s]);
    report_svg_strips(f, id, title, "median time (ms), one dot per config; bar: the median", names,
                      vals, n, ng);
    free(buf);
}

/* The values a parameter takes in a group's ok trials, with the median time of each. */
static void parameter_effect(FILE *f, const Report *r, const ReportGroup *gr, size_t g)
{
    const ReportTrial *first = NULL;
    for (size_t k = 0; k < gr->n && !first; k++)
        if (r->trials[gr->trials[k]].status == CUTUNE_STATUS_OK)
            first = &r->trials[gr->trials[k]];
    if (!first)
        return;
    double *times = malloc((gr->n + 1) * sizeof *times);
    long long *values = malloc((gr->n + 1) * sizeof *values);
    if (!times || !values)
        goto out;
    fputs("<div class=\"pgroup\"><h3>", f);
    report_text(f, gr->variant);
    fputs(" at ", f);
    report_text(f, gr->size);
    fprintf(f,
            "</h3>\n<table class=\"params\" id=\"params-%zu\"><tr><th>parameter</th>"
            "<th>value</th><th>configs</th><th>median ms</th><th></th></tr>\n",
            g);
    char names[2048];
    snprintf(names, sizeof names, "%s", first->config);
    char *save = NULL;
    for (char *kv = strtok_r(names, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '=');
        if (!eq)
            continue;
        *eq = '\0';
        size_t nv = 0, klen = strlen(kv);
        for (size_t k = 0; k < gr->n; k++) { /* the distinct values */
            const ReportTrial *t = &r->trials[gr->trials[k]];
            const char *p = t->status == CUTUNE_STATUS_OK ? t->config : NULL;
            while (p && !(strncmp(p, kv, klen) == 0 && p[klen] == '='))
                p = (p = strchr(p, ',')) ? p + 1 : NULL;
            if (!p)
                continue;
            long long v = strtoll(p + klen + 1, NULL, 10);
            size_t i = 0;
            while (i < nv && values[i] != v)
                i++;
            if (i == nv)
                values[nv++] = v;
        }
        for (size_t i = 1; i < nv; i++) /* ascending */
            for (size_t j = i; j > 0 && values[j - 1] > values[j]; j--) {
                long long t = values[j];
                values[j] = values[j - 1];
                values[j - 1] = t;
            }
        double meds[256], worst = 0;
        size_t counts[256];
        for (size_t i = 0; i < nv && i < 256; i++) {
            size_t m = 0;
            char want[96];
            snprintf(want, sizeof want, "%s=%lld", kv, values[i]);
            size_t wl = strlen(want);
            for (size_t k = 0; k < gr->n; k++) {
                const ReportTrial *t = &r->trials[gr->trials[k]];
                if (t->status != CUTUNE_STATUS_OK || !(t->ms > 0))
                    continue;
                for (const char *p = t->config; p; p = (p = strchr(p, ',')) ? p + 1 : NULL)
                    if (strncmp(p, want, wl) == 0 && (p[wl] == ',' || p[wl] == '\0')) {
                        times[m++] = t->ms;
                        break;
                    }
            }
            meds[i] = median(times, m);
            counts[i] = m;
            worst = fmax(worst, meds[i]);
        }
        for (size_t i = 0; i < nv && i < 256; i++) {
            fputs("<tr>", f);
            if (i == 0) {
                fprintf(f, "<td rowspan=\"%zu\">", nv < 256 ? nv : 256);
                report_text(f, kv);
                fputs("</td>", f);
            }
            fprintf(f, "<td class=\"num\">%lld</td>", values[i]);
            tdf(f, "%.0f", (double)counts[i]);
            tdf(f, "%.6g", meds[i]);
            fputs("<td>", f);
            report_svg_bar(f, meds[i], worst, 160);
            fputs("</td></tr>\n", f);
        }
    }
    fputs("</table></div>\n", f);
out:
    free(times);
    free(values);
}

static void failures(FILE *f, const Report *r)
{
    fputs("<h2 id=\"failed\">Failed configs, by status</h2>\n", f);
    size_t total = 0;
    for (int st = 1; st < CUTUNE_STATUS_COUNT; st++) {
        size_t n = 0;
        for (size_t i = 0; i < r->ntrials; i++)
            n += r->trials[i].status == st;
        if (!n)
            continue;
        total += n;
        fprintf(f,
                "<h3>%s: %zu</h3>\n<table class=\"failed\" id=\"failed-%s\"><tr><th>variant"
                "</th><th>size</th><th>config</th><th>message</th></tr>\n",
                cutune_status_name((CutuneStatus)st), n, cutune_status_name((CutuneStatus)st));
        size_t shown = 0;
        for (size_t i = 0; i < r->ntrials && shown < 50; i++) {
            const ReportTrial *t = &r->trials[i];
            if (t->status != st)
                continue;
            fputs("<tr>", f);
            td(f, r->groups[t->group].variant);
            td(f, r->groups[t->group].size);
            td_config(f, t->config);
            td(f, t->message);
            fputs("</tr>\n", f);
            shown++;
        }
        if (n > shown)
            fprintf(f, "<tr><td colspan=\"4\">and %zu more</td></tr>\n", n - shown);
        fputs("</table>\n", f);
    }
    if (!total)
        fputs("<p>None: every config of the run ran correctly.</p>\n", f);
}

static const char style[] =
    "<style>\n"
    "body{font-family:sans-serif;margin:2em auto;max-width:60em;color:#222}\n"
    "table{border-collapse:collapse;margin:0.5em 0 1.5em}\n"
    "th,td{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top}\n"
    "th{background:#f0f0f0} td.num{text-align:right;font-variant-numeric:tabular-nums}\n"
    ".meta,.note{color:#555} .warning{color:#a00} figure{margin:1em 0} svg.plot{max-width:100%;height:auto}\n"
    "figcaption{color:#333;font-size:90%}\n"
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
    fputs("</h1>\n<p class=\"meta\">", f);
    report_text(f, r->uuid);
    fputs(" &middot; started ", f);
    report_text(f, r->started);
    fputs(" UTC, ", f);
    report_text(f, r->finished[0] ? r->finished : "not finished");
    fputs(" &middot; status ", f);
    report_text(f, r->status);
    fprintf(f, " &middot; %zu trials<br>command: <code>", r->ntrials);
    report_text(f, r->argv);
    fputs("</code><br>database: <code>", f);
    report_text(f, db_path);
    fputs("</code></p>\n", f);
    skipped_times(f, r, 1);
    best_table(f, r);
    search_table(f, r);
    fputs("<h2 id=\"convergence\">Convergence</h2>\n", f);
    for (size_t s = 0; s < r->nsizes; s++)
        for (int by_time = 0; by_time < 2; by_time++) {
            fputs("<figure>\n", f);
            convergence(f, r, s, by_time);
            fputs("<figcaption>", f);
            report_text(f, r->sizes[s]);
            fputs(by_time ? ": the best time so far against wall time"
                          : ": the best time so far "
                            "against evaluations, one line per variant",
                  f);
            fputs("</figcaption>\n</figure>\n", f);
        }
    fputs("<p class=\"note\">Wall time is read from the trials' commit times (whole "
          "seconds).</p>\n<h2 id=\"spread\">Spread of all configs' times</h2>\n",
          f);
    for (size_t s = 0; s < r->nsizes; s++) {
        fputs("<figure>\n", f);
        spread(f, r, s);
        fputs("<figcaption>", f);
        report_text(f, r->sizes[s]);
        fputs(": the median time of every config that ran correctly, one row per variant", f);
        fputs("</figcaption>\n</figure>\n", f);
    }
    fputs("<h2 id=\"params\">Each parameter's effect</h2>\n<p class=\"note\">The median "
          "time of the ok configs with each value of a parameter, the others varying.</p>\n",
          f);
    for (size_t g = 0; g < r->ngroups; g++)
        parameter_effect(f, r, &r->groups[g], g);
    failures(f, r);
    fprintf(f, "<p class=\"note\">Written by cutune %s.</p>\n</body>\n</html>\n", CUTUNE_VERSION);
}

static void print_summary(const Report *r)
{
    printf("run %lld: %s on %s, %s, %zu trials\n", (long long)r->run_id, r->op, r->device,
           r->status, r->ntrials);
    for (size_t s = 0; s < r->nsizes; s++) {
        long g = best_group(r, r->sizes[s]);
        const ReportYardstick *y = yardstick(r, r->sizes[s]);
        if (g < 0) {
            printf("  %-20s no config ran correctly\n", r->sizes[s]);
            continue;
        }
        printf("  %-20s %-16s %.6g ms  %s", r->sizes[s], r->groups[g].variant, r->groups[g].best_ms,
               r->trials[r->groups[g].best].config);
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
