/* The sections of `cutune report --html` but the parameters' (report_html.h). */
#include "report_html.h"
#include "report_svg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double report_median(double *v, size_t n)
{
    for (size_t i = 1; i < n; i++) /* insertion sort: the lists are short */
        for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return n == 0 ? 0 : n % 2 ? v[n / 2] : 0.5 * v[n / 2 - 1] + 0.5 * v[n / 2];
}

long report_best_group(const Report *r, const char *size)
{
    long best = -1;
    for (size_t g = 0; g < r->ngroups; g++)
        if (!strcmp(r->groups[g].size, size) && r->groups[g].best_ms > 0 &&
            (best < 0 || r->groups[g].best_ms < r->groups[best].best_ms))
            best = (long)g;
    return best;
}

const ReportYardstick *report_yardstick(const Report *r, const char *size)
{
    for (size_t i = 0; i < r->nyard; i++)
        if (!strcmp(r->yard[i].size, size))
            return &r->yard[i];
    return NULL;
}

size_t report_variant_index(const Report *r, const char *variant)
{
    for (size_t i = 0; i < r->nvariants; i++)
        if (!strcmp(r->variants[i], variant))
            return i;
    return 0;
}

ReportRate report_rate(const ReportTrial *t)
{
    if (t->gflops > 0 && !(t->gbps > 0 && t->gflops < 4 * t->gbps))
        return (ReportRate){t->gflops / 1e3, "TFLOP/s", 1};
    return (ReportRate){t->gbps, "GB/s", 0};
}

void report_td(FILE *f, const char *s)
{
    fputs("<td>", f);
    report_text(f, s);
    fputs("</td>", f);
}

void report_td_config(FILE *f, const char *config)
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

void report_tdf(FILE *f, const char *fmt, double v)
{
    fputs("<td class=\"num\">", f);
    /* fmt is never NULL, but GCC cannot see that under -fsanitize=undefined (-Werror) */
    if (fmt && isfinite(v))
        fprintf(f, fmt, v);
    else
        fputs("n/a", f);
    fputs("</td>", f);
}

/* A CUDA version number (13000) as people write it (13.0); "not recorded" for 0. */
static void cuda_version(FILE *f, const char *what, int v)
{
    fprintf(f, "<li>%s: ", what);
    if (v > 0)
        fprintf(f, "%d.%d", v / 1000, v % 1000 / 10);
    else
        fputs("not recorded", f);
    fputs("</li>\n", f);
}

void report_meta(FILE *f, const Report *r, const char *db_path)
{
    fputs("<h2 id=\"run\">Run and device</h2>\n", f);
    if (r->latest_run) {
        fprintf(f,
                "<p class=\"warning\" id=\"not-latest\">Run %lld, the newest, searched nothing "
                "(it re-timed the best configs): this is run %lld, the latest that searched. "
                "<code>cutune report %lld</code> shows the newest.</p>\n",
                (long long)r->latest_run, (long long)r->run_id, (long long)r->latest_run);
    }
    fputs("<ul class=\"meta\" id=\"versions\">\n<li>device: ", f);
    report_text(f, r->device[0] ? r->device : "not recorded");
    fputs(" <code>", f);
    report_text(f, r->uuid);
    fputs("</code>", f);
    if (r->cc_major > 0)
        fprintf(f, ", compute capability %d.%d, %d SMs, %.1f GiB", r->cc_major, r->cc_minor,
                r->sm_count, (double)r->total_mem / (1024.0 * 1024 * 1024));
    fputs("</li>\n", f);
    cuda_version(f, "CUDA driver", r->driver_version);
    cuda_version(f, "CUDA runtime", r->runtime_version);
    /* cuBLASLt's version is in the version of the variant that calls it
     * (plugins/matmul_cublaslt: "1+cublaslt.13.1.0") */
    const char *lt = NULL;
    for (size_t g = 0; g < r->ngroups && !lt; g++)
        if ((lt = strstr(r->groups[g].version, "+cublaslt.")))
            lt += strlen("+cublaslt.");
    fputs("<li>cuBLASLt: ", f);
    report_text(f, lt ? lt
                      : "not recorded (the matmul_cublaslt variant's version names it "
                        "where it ran)");
    fputs("</li>\n<li>NVRTC: not recorded by the run (the database keeps no compiler "
          "version)</li>\n<li>started ",
          f);
    report_text(f, r->started);
    fputs(" UTC, ", f);
    report_text(f, r->finished[0] ? r->finished : "not finished");
    fputs(", status ", f);
    report_text(f, r->status);
    fprintf(f, ", %zu trials</li>\n<li>command: <code>", r->ntrials);
    report_text(f, r->argv);
    fputs("</code></li>\n<li>database: <code>", f);
    report_text(f, db_path);
    fputs("</code></li>\n</ul>\n", f);
}

/* Links to each size's heading of a section: ids prefix-0, prefix-1 and so on. */
static void toc_size_links(FILE *f, const Report *r, const char *prefix)
{
    fputs("<ol>", f);
    for (size_t s = 0; s < r->nsizes; s++) {
        fprintf(f, "<li><a href=\"#%s-%zu\">", prefix, s);
        report_text(f, r->sizes[s]);
        fputs("</a></li>", f);
    }
    fputs("</ol>", f);
}

void report_toc(FILE *f, const Report *r)
{
    fputs("<nav id=\"toc\"><h2>Contents</h2><ol>\n"
          "<li><a href=\"#run\">Run and device</a> (versions)</li>\n"
          "<li><a href=\"#best\">Best per size</a>: time, rate, spread, vendor</li>\n"
          "<li><a href=\"#vs-vendor\">Best against the vendor, per size</a></li>\n"
          "<li><a href=\"#searches\">How each variant and size was searched</a></li>\n"
          "<li><a href=\"#convergence\">Convergence</a> ",
          f);
    toc_size_links(f, r, "conv");
    fputs("</li>\n<li><a href=\"#spread\">Spread of all configs' times</a> ", f);
    toc_size_links(f, r, "spread-size");
    fputs("</li>\n<li><a href=\"#params\">Parameters: importance and effects</a></li>\n"
          "<li><a href=\"#failed\">Failed configs</a></li>\n</ol></nav>\n",
          f);
}

void report_legend(FILE *f, const Report *r)
{
    fputs("<p id=\"legend\">Variants (one colour each, in every figure):", f);
    for (size_t i = 0; i < r->nvariants; i++) {
        fprintf(f,
                " <span class=\"key\"><span class=\"swatch\" style=\"background:%s\">"
                "</span>",
                report_colour(i));
        report_text(f, r->variants[i]);
        fputs("</span>", f);
    }
    fputs("</p>\n", f);
}

void report_best(FILE *f, const Report *r)
{
    fputs("<h2 id=\"best\">Best per size</h2>\n<table id=\"best-table\"><tr><th>size</th>"
          "<th>variant</th><th>config</th><th>median ms</th><th>rate</th><th>share of "
          "peak</th><th>spread of its samples</th><th>vendor yardstick</th><th>yardstick "
          "ms</th><th>speed vs yardstick</th></tr>\n",
          f);
    for (size_t s = 0; s < r->nsizes; s++) {
        long g = report_best_group(r, r->sizes[s]);
        const ReportYardstick *y = report_yardstick(r, r->sizes[s]);
        const ReportTrial *t = g >= 0 ? &r->trials[r->groups[g].best] : NULL;
        ReportRate rate = t ? report_rate(t) : (ReportRate){0, "", 0};
        char text[96];
        fputs("<tr>", f);
        report_td(f, r->sizes[s]);
        if (!t) {
            fputs("<td colspan=\"6\">no config ran correctly</td>", f);
        } else {
            report_td(f, r->groups[g].variant);
            report_td_config(f, t->config);
            report_tdf(f, "%.6g", r->groups[g].best_ms);
            snprintf(text, sizeof text, "%.4g %s", rate.value, rate.unit);
            report_td(f, rate.value > 0 ? text : "not recorded");
            const char *kind = "";
            double peak = rate.compute ? report_peak_tflops(r, r->sizes[s], &kind) : 0;
            if (peak > 0 && rate.value > 0) {
                snprintf(text, sizeof text, "%.1f%% of %.4g TFLOP/s (%s)", 100 * rate.value / peak,
                         peak, kind);
                report_td(f, text);
            } else {
                report_td(f, "n/a");
            }
            snprintf(text, sizeof text, "fastest %.4g ms, s.d. %.2g ms, %lld samples", t->min_ms,
                     t->stddev_ms, (long long)t->samples);
            report_td(f, t->samples > 0 ? text : "not recorded");
        }
        if (y) {
            report_td(f, y->name);
            report_tdf(f, "%.6g", y->ms);
            if (t)
                report_tdf(f, "%.1f%%", 100.0 * y->ms / r->groups[g].best_ms);
            else
                report_td(f, "");
        } else {
            fputs("<td colspan=\"3\">not measured</td>", f);
        }
        fputs("</tr>\n", f);
    }
    fputs(
        "</table>\n<p class=\"note\">Rate: TFLOP/s for an op of 4 flops a byte or more "
        "(matmul), else GB/s, from the op's count of its work. Share of peak: of the dense peak of the element "
        "type's units (tensor cores for BF16, FP16 and TF32, CUDA cores for FP32, which "
        "3xTF32 can pass) at the device's recorded peak SM clock, for matmul on compute "
        "capability 8.0 and 9.0; n/a for GB/s, since the database records no memory bus "
        "width. Spread: the fastest "
        "of the winner's own samples, their standard deviation and count (its median is the "
        "time shown). Speed vs yardstick: the yardstick's time over the tuned kernel's (above "
        "100% the tuned kernel is faster); the chart below shows both rates.</p>\n",
        f);
}

void report_vs_vendor(FILE *f, const Report *r)
{
    fputs("<h2 id=\"vs-vendor\">Best against the vendor, per size</h2>\n", f);
    const char **rows = calloc(r->nsizes + 1, sizeof *rows);
    const char **colours = calloc(r->nsizes + 1, sizeof *colours);
    double *a = calloc(r->nsizes + 1, sizeof *a), *b = calloc(r->nsizes + 1, sizeof *b);
    size_t n = 0, with_rate = 0;
    const char *unit = "TFLOP/s";
    for (size_t s = 0; rows && colours && a && b && s < r->nsizes; s++) {
        long g = report_best_group(r, r->sizes[s]);
        const ReportYardstick *y = report_yardstick(r, r->sizes[s]);
        if (g < 0 || !y)
            continue;
        ReportRate rate = report_rate(&r->trials[r->groups[g].best]);
        with_rate += rate.value > 0;
        unit = rate.unit;
        rows[n] = r->sizes[s];
        colours[n] = report_colour(report_variant_index(r, r->groups[g].variant));
        a[n] = rate.value; /* replaced by times below if a size has no rate */
        b[n++] = rate.value * r->groups[g].best_ms / y->ms;
    }
    if (!n) {
        fputs("<p class=\"note\">No vendor yardstick was measured for this run's sizes on this "
              "device: nothing to compare.</p>\n",
              f);
    } else {
        char xlabel[96];
        if (with_rate == n) {
            snprintf(xlabel, sizeof xlabel, "%s (longer is faster)", unit);
        } else { /* a rate missing: times, which every row has */
            snprintf(xlabel, sizeof xlabel, "median time in ms (shorter is faster)");
            for (size_t i = 0, s = 0; s < r->nsizes; s++) {
                long g = report_best_group(r, r->sizes[s]);
                const ReportYardstick *y = report_yardstick(r, r->sizes[s]);
                if (g >= 0 && y) {
                    a[i] = r->groups[g].best_ms;
                    b[i++] = y->ms;
                }
            }
        }
        fputs("<figure><figcaption class=\"title\">The best config of each size (in its "
              "variant's colour) against the vendor yardstick (grey)</figcaption>\n",
              f);
        report_svg_pairs(f, "vs-vendor-chart", "best against vendor per size", xlabel, rows, a,
                         colours, "best config (its variant's colour)", b, "vendor yardstick", n);
        fputs("</figure>\n", f);
    }
    free(rows);
    free(colours);
    free(a);
    free(b);
}

void report_searches(FILE *f, const Report *r)
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
        report_td(f, gr->variant);
        report_td(f, gr->size);
        if (gr->searched) {
            report_td(f, gr->strategy);
            report_tdf(f, "%.0f", (double)gr->nvalid);
            report_tdf(f, "%.0f", (double)gr->evaluated);
            report_tdf(f, "%.1f", gr->seconds);
            report_td(f, gr->status);
        } else {
            report_td(f, r->strategy[0] ? r->strategy : "?");
            fputs("<td colspan=\"4\">not recorded by this run</td>", f);
        }
        report_tdf(f, "%.0f", (double)ok);
        report_tdf(f, "%.0f", (double)(gr->n - ok));
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
}

/* Best-so-far curves of one size, one per variant with an ok trial: x is the evaluation or
 * the time. Returns how many curves were drawn (none: no figure). */
static size_t convergence(FILE *f, const Report *r, size_t s, int by_time)
{
    ReportSeries series[64];
    double *buf = malloc((2 * r->ntrials + 1) * sizeof *buf);
    size_t ns = 0, used = 0;
    for (size_t g = 0; buf && g < r->ngroups && ns < 64; g++) {
        const ReportGroup *gr = &r->groups[g];
        if (strcmp(gr->size, r->sizes[s]) != 0 || !(gr->best_ms > 0))
            continue;
        double *x = buf + used, *y = x + gr->n, best = 0;
        for (size_t k = 0; k < gr->n; k++) {
            const ReportTrial *t = &r->trials[gr->trials[k]];
            if (t->status == CUTUNE_STATUS_OK && t->ms > 0 && (!(best > 0) || t->ms < best))
                best = t->ms;
            /* commit times follow the trials' order; one that does not (a clock set back)
             * is drawn at the time before it, so that the curve never runs backwards */
            x[k] = by_time ? fmax(t->t, k ? x[k - 1] : 0) : (double)(k + 1);
            y[k] = best;
        }
        series[ns++] = (ReportSeries){gr->variant,
                                      report_colour(report_variant_index(r, gr->variant)), x, y,
                                      gr->n};
        used += 2 * gr->n;
    }
    if (ns) {
        char id[96], title[160];
        snprintf(id, sizeof id, "convergence-%s-%zu", by_time ? "time" : "evals", s);
        snprintf(title, sizeof title, "%s: best time so far against %s", r->sizes[s],
                 by_time ? "wall time" : "evaluations");
        const ReportYardstick *yard = report_yardstick(r, r->sizes[s]);
        ReportRef ref = {yard ? yard->name : "", yard ? yard->ms : 0};
        fputs("<figure>\n<figcaption class=\"title\">", f);
        report_text(f, title);
        fputs("</figcaption>\n", f);
        report_svg_lines(f, id, title,
                         by_time ? "seconds since the run started" : "evaluations of the variant",
                         "best median so far (ms)", series, ns, yard ? &ref : NULL);
        fputs("</figure>\n", f);
    }
    free(buf);
    return ns;
}

void report_convergence(FILE *f, const Report *r)
{
    fputs("<h2 id=\"convergence\">Convergence</h2>\n<p class=\"note\">Per size, the best "
          "time so far of each variant against its evaluations and against wall time (read "
          "from the trials' commit times, whole seconds; the axis starts at the size's first "
          "trial), with the vendor yardstick dashed.</p>\n",
          f);
    for (size_t s = 0; s < r->nsizes; s++) {
        fprintf(f, "<h3 id=\"conv-%zu\">", s);
        report_text(f, r->sizes[s]);
        fputs("</h3>\n", f);
        if (!convergence(f, r, s, 0))
            fputs("<p class=\"note\">No config ran correctly at this size: nothing to "
                  "plot.</p>\n",
                  f);
        else
            convergence(f, r, s, 1);
    }
}

/* The strip plot of one size: every ok config's time, a row per variant with one. */
static void spread(FILE *f, const Report *r, size_t s)
{
    const char *names[64], *colours[64];
    const double *vals[64];
    const char *const *labels[64];
    size_t n[64], ng = 0;
    double *buf = malloc((r->ntrials + 1) * sizeof *buf);
    const char **lbuf = malloc((r->ntrials + 1) * sizeof *lbuf);
    size_t used = 0;
    for (size_t g = 0; buf && lbuf && g < r->ngroups && ng < 64; g++) {
        const ReportGroup *gr = &r->groups[g];
        if (strcmp(gr->size, r->sizes[s]) != 0 || !(gr->best_ms > 0))
            continue;
        double *v = buf + used;
        const char **l = lbuf + used;
        size_t m = 0;
        for (size_t k = 0; k < gr->n; k++) {
            const ReportTrial *t = &r->trials[gr->trials[k]];
            if (t->status == CUTUNE_STATUS_OK && t->ms > 0) {
                l[m] = t->config;
                v[m++] = t->ms;
            }
        }
        names[ng] = gr->variant;
        colours[ng] = report_colour(report_variant_index(r, gr->variant));
        vals[ng] = v;
        labels[ng] = l;
        n[ng++] = m;
        used += m;
    }
    if (ng) {
        char id[64], title[160];
        snprintf(id, sizeof id, "spread-%zu", s);
        snprintf(title, sizeof title, "%s: the median time of every ok config", r->sizes[s]);
        fputs("<figure>\n<figcaption class=\"title\">", f);
        report_text(f, title);
        fputs("</figcaption>\n", f);
        report_svg_strips(f, id, title,
                          "median time (ms), one dot per config (hover: its config); bar: the "
                          "median",
                          names, colours, vals, labels, n, ng);
        fputs("</figure>\n", f);
    } else {
        fputs("<p class=\"note\">No config ran correctly at this size: nothing to plot.</p>\n", f);
    }
    free(buf);
    free(lbuf);
}

void report_spread(FILE *f, const Report *r)
{
    fputs("<h2 id=\"spread\">Spread of all configs' times</h2>\n", f);
    for (size_t s = 0; s < r->nsizes; s++) {
        fprintf(f, "<h3 id=\"spread-size-%zu\">", s);
        report_text(f, r->sizes[s]);
        fputs("</h3>\n", f);
        spread(f, r, s);
    }
}

void report_failures(FILE *f, const Report *r)
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
            report_td(f, r->groups[t->group].variant);
            report_td(f, r->groups[t->group].size);
            report_td_config(f, t->config);
            report_td(f, t->message);
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
