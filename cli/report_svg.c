/* Figures of `cutune report` (see report_svg.h). */
#include "report_svg.h"
#include "utf8.h"
#include "util.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *const colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e",
                                      "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"};
#define NCOLOURS (sizeof colours / sizeof colours[0])

const char *report_colour(size_t i)
{
    return colours[i % NCOLOURS];
}

void report_text(FILE *f, const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        uint32_t cp = 0;
        size_t n = cutune_utf8_decode(p, strlen((const char *)p), &cp);
        if (n == 0 || (cp < 0x20 && cp != '\n' && cp != '\t') || (cp >= 0x7f && cp < 0xa0)) {
            fputs("\xEF\xBF\xBD", f); /* U+FFFD */
            p += n ? n : 1;
            continue;
        }
        switch (cp) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fwrite(p, 1, n, f);
        }
        p += n;
    }
}

/* A time that can be drawn on a log axis (report.h drops the others; this holds the
 * figures to it whatever they are given). */
static int drawable(double v)
{
    return isfinite(v) && v > 0;
}

/* A log axis over the drawable values in [vmin, vmax], with a margin: the natural logs of
 * its ends, so that no ratio of two times (1e300 over 1e-300) overflows into inf or NaN. */
typedef struct LogAxis {
    double lo, hi;
} LogAxis;

static LogAxis log_axis(double vmin, double vmax)
{
    if (!drawable(vmin) || !drawable(vmax) || vmax < vmin) {
        vmin = 1;
        vmax = 10;
    }
    return (LogAxis){log(vmin) - log(1.15), log(vmax) + log(1.15)};
}

/* Where v lies on the axis, from 0 (lo) to 1 (hi). */
static double log_frac(LogAxis a, double v)
{
    return (log(v) - a.lo) / (a.hi - a.lo);
}

/* Round ticks of a log axis: 1, 2 and 5 times the powers of ten, at most max of them, as
 * their values and their natural logs. The powers are counted as integers (a power of ten
 * that is 0 as a double, 1e-324, would never reach the axis), and a tick that is no double
 * (0, inf) is left out. */
static size_t log_ticks_of(LogAxis a, const double *m, int nm, double *ticks, double *logs,
                           size_t max)
{
    double e0 = floor(a.lo / log(10)), e1 = ceil(a.hi / log(10));
    /* over more decades than max / nm (times from 1e-300 to 1e300 ms), powers of ten only,
     * spread over the whole axis */
    int per = nm * (e1 - e0 + 1) <= (double)max ? nm : 1;
    double step = per == nm ? 1 : ceil((e1 - e0 + 1) / (double)max);
    size_t n = 0;
    for (double e = e0; e <= e1 && n < max; e += step)
        for (int k = 0; k < per && n < max; k++) {
            double lt = log(m[k]) + e * log(10);
            double t = m[k] * pow(10, e);
            if (lt >= a.lo && lt <= a.hi && drawable(t)) {
                ticks[n] = t;
                logs[n++] = lt;
            }
        }
    return n;
}

/* Ticks of 1, 2 and 5 times a power of ten; on a short axis (a span of less than 2.5x,
 * where those give one tick or none) every whole mantissa from 1 to 9, and on one shorter
 * still the two ends of the data, 3 significant digits each: never fewer than 2. */
static size_t log_ticks(LogAxis a, double *ticks, double *logs, size_t max)
{
    static const double coarse[] = {1, 2, 5}, fine[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    size_t n = log_ticks_of(a, coarse, 3, ticks, logs, max);
    if (n < 2)
        n = log_ticks_of(a, fine, 9, ticks, logs, max);
    if (n < 2 && max >= 2) {
        double margin = log(1.15); /* log_axis's, inside which the data lie */
        for (int k = 0; k < 2; k++) {
            char buf[32];
            snprintf(buf, sizeof buf, "%.3g", exp(k ? a.hi - margin : a.lo + margin));
            ticks[k] = strtod(buf, NULL);
            logs[k] = log(ticks[k]);
        }
        n = drawable(ticks[0]) && drawable(ticks[1]) && ticks[0] < ticks[1] ? 2 : 0;
    }
    return n;
}

/* A round step (1, 2 or 5 times a power of ten) giving at most 6 intervals over span. */
static double round_step(double span)
{
    double step = pow(10, floor(log10(span / 6)));
    return step * (span / step <= 6         ? 1
                   : span / (2 * step) <= 6 ? 2
                   : span / (5 * step) <= 6 ? 5
                                            : 10);
}

static void head(FILE *f, const char *id, double w, double h, const char *title)
{
    fprintf(f, "<svg id=\"");
    report_text(f, id);
    fprintf(f,
            "\" class=\"plot\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
            "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" "
            "font-size=\"12\" role=\"img\">\n<title>",
            w, h, w, h);
    report_text(f, title);
    fprintf(f, "</title>\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
}

static void label(FILE *f, double x, double y, const char *anchor, const char *extra,
                  const char *text)
{
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"%s>", x, y, anchor, extra);
    report_text(f, text);
    fputs("</text>\n", f);
}

static void number_label(FILE *f, double x, double y, const char *anchor, double v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%g", v);
    label(f, x, y, anchor, "", buf);
}

/* The legend's entry i at the right of a plot whose frame ends at x. */
static void legend(FILE *f, double x, double y, const char *colour, const char *dash,
                   const char *name)
{
    fprintf(f,
            "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
            "stroke-width=\"3\"%s/>\n",
            x + 12, x + 32, y - 4, y - 4, colour, dash);
    label(f, x + 38, y, "start", "", name);
}

void report_svg_lines(FILE *f, const char *id, const char *title, const char *xlabel,
                      const char *ylabel, const ReportSeries *s, size_t ns, const ReportRef *ref)
{
    const double W = 720, H = 360, L = 70, R = 190, T = 30, B = 50;
    const double pw = W - L - R, ph = H - T - B;
    double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = 0;
    for (size_t i = 0; i < ns; i++)
        for (size_t k = 0; k < s[i].n; k++)
            if (drawable(s[i].y[k]) && isfinite(s[i].x[k])) {
                xmin = fmin(xmin, s[i].x[k]);
                xmax = fmax(xmax, s[i].x[k]);
                ymin = fmin(ymin, s[i].y[k]);
                ymax = fmax(ymax, s[i].y[k]);
            }
    int has_ref = ref && drawable(ref->y);
    if (has_ref) {
        ymin = fmin(ymin, ref->y);
        ymax = fmax(ymax, ref->y);
    }
    /* the axis spans the data; one point, or none, gets a span of 1 around it */
    if (!(xmax - xmin >= 1e-6)) {
        xmin = isfinite(xmin) ? xmin - 0.5 : 0;
        xmax = xmin + 1;
    }
    double step = round_step(xmax - xmin);
    double x0 = floor(xmin / step + 1e-9) * step; /* a round start at or below the first point */
    LogAxis ya = log_axis(ymin, ymax);
    head(f, id, W, H, title);
#define PX(v) (L + pw * fmin(fmax(((v)-x0) / (xmax - x0), 0), 1))
#define PY(v) (T + ph * (1.0 - log_frac(ya, (v))))
    double ticks[40], logs[40];
    size_t nt = log_ticks(ya, ticks, logs, 40);
    for (size_t k = 0; k < nt; k++) {
        double y = T + ph * (1.0 - (logs[k] - ya.lo) / (ya.hi - ya.lo));
        fprintf(f,
                "<line class=\"ytick\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
                "stroke=\"#ddd\"/>\n",
                L, L + pw, y, y);
        number_label(f, L - 6, y + 4, "end", ticks[k]);
    }
    for (double v = x0; v <= xmax * (1 + 1e-9) + 1e-9; v += step) {
        fprintf(f,
                "<line class=\"xtick\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
                "stroke=\"#eee\"/>\n",
                PX(v), PX(v), T, T + ph);
        number_label(f, PX(v), T + ph + 16, "middle", v);
    }
    fprintf(f,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
            "stroke=\"#333\"/>\n",
            L, T, pw, ph);
    label(f, L + pw / 2, H - 12, "middle", "", xlabel);
    char rot[96];
    snprintf(rot, sizeof rot, " transform=\"rotate(-90 16 %.1f)\"", T + ph / 2);
    label(f, 16, T + ph / 2, "middle", rot, ylabel);
    size_t row = 0;
    if (has_ref) {
        fprintf(f,
                "<line class=\"vendor\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
                "stroke=\"#000\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"><title>",
                L, L + pw, PY(ref->y), PY(ref->y));
        report_text(f, ref->name);
        fprintf(f, ": %.6g ms</title></line>\n", ref->y);
        legend(f, L + pw, T + 14, "#000", " stroke-dasharray=\"6 4\"", ref->name);
        row++;
    }
    for (size_t i = 0; i < ns; i++) {
        fputs("<polyline class=\"series\" data-variant=\"", f);
        report_text(f, s[i].name);
        fprintf(f, "\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", s[i].colour);
        double prev = 0;
        for (size_t k = 0; k < s[i].n; k++) {
            if (!drawable(s[i].y[k]) || !isfinite(s[i].x[k]))
                continue;
            if (prev > 0) /* a step: the best so far holds until the next improvement */
                fprintf(f, "%.1f,%.1f ", PX(s[i].x[k]), PY(prev));
            fprintf(f, "%.1f,%.1f ", PX(s[i].x[k]), PY(s[i].y[k]));
            prev = s[i].y[k];
        }
        fputs("\"><title>", f);
        report_text(f, s[i].name);
        fputs("</title></polyline>\n", f);
        legend(f, L + pw, T + 14 + 18.0 * (double)row++, s[i].colour, "", s[i].name);
    }
#undef PX
#undef PY
    fputs("</svg>\n", f);
}

void report_svg_strips(FILE *f, const char *id, const char *title, const char *xlabel,
                       const char *const *names, const char *const *colours_,
                       const double *const *values, const char *const *const *labels,
                       const size_t *n, size_t ngroups)
{
    const double W = 720, L = 170, R = 30, T = 20, B = 46, row = 34;
    const double H = T + B + row * (double)(ngroups ? ngroups : 1), pw = W - L - R;
    double lo = INFINITY, hi = 0;
    for (size_t g = 0; g < ngroups; g++)
        for (size_t k = 0; k < n[g]; k++)
            if (drawable(values[g][k])) {
                lo = fmin(lo, values[g][k]);
                hi = fmax(hi, values[g][k]);
            }
    LogAxis xa = log_axis(lo, hi);
    head(f, id, W, H, title);
#define PX(v) (L + pw * log_frac(xa, (v)))
    double ticks[40], logs[40];
    size_t nt = log_ticks(xa, ticks, logs, 40);
    for (size_t k = 0; k < nt; k++) {
        double x = L + pw * (logs[k] - xa.lo) / (xa.hi - xa.lo);
        fprintf(f,
                "<line class=\"xtick\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
                "stroke=\"#ddd\"/>\n",
                x, x, T, H - B);
        number_label(f, x, H - B + 16, "middle", ticks[k]);
    }
    label(f, L + pw / 2, H - 10, "middle", "", xlabel);
    for (size_t g = 0; g < ngroups; g++) {
        double cy = T + row * ((double)g + 0.5);
        const char *c = colours_[g];
        label(f, L - 8, cy + 4, "end", "", names[g]);
        double *sorted = malloc((n[g] ? n[g] : 1) * sizeof *sorted);
        size_t m = 0;
        for (size_t k = 0; k < n[g]; k++) {
            if (!drawable(values[g][k]))
                continue;
            /* a fixed jitter from the index spreads equal times vertically */
            double dy = ((double)((k * 2654435761u) % 1000) / 1000.0 - 0.5) * row * 0.6;
            fputs("<circle class=\"dot\" data-variant=\"", f);
            report_text(f, names[g]);
            fprintf(f,
                    "\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\" fill-opacity=\"0.6\">"
                    "<title>",
                    PX(values[g][k]), cy + dy, c);
            report_text(f, names[g]);
            fputc(' ', f);
            report_text(f, labels[g][k]);
            fprintf(f, ": %.6g ms</title></circle>\n", values[g][k]);
            if (sorted)
                sorted[m++] = values[g][k];
        }
        if (sorted && m) {
            qsort(sorted, m, sizeof *sorted, cutune_cmp_double);
            /* halves added: the sum of two times near DBL_MAX is inf */
            double med = m % 2 ? sorted[m / 2] : 0.5 * sorted[m / 2 - 1] + 0.5 * sorted[m / 2];
            fprintf(f,
                    "<line class=\"median\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
                    "stroke=\"#000\" stroke-width=\"2\"/>\n",
                    PX(med), PX(med), cy - row * 0.4, cy + row * 0.4);
        }
        free(sorted);
    }
    fprintf(f,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
            "stroke=\"#333\"/>\n",
            L, T, pw, H - T - B);
#undef PX
    fputs("</svg>\n", f);
}

void report_svg_bar(FILE *f, double value, double max, int width)
{
    double w = drawable(max) && drawable(value) ? width * fmin(value / max, 1.0) : 0;
    fprintf(f,
            "<svg class=\"bar\" width=\"%d\" height=\"12\" xmlns=\"http://www.w3.org/2000/svg\">"
            "<rect width=\"%.1f\" height=\"12\" fill=\"#1f77b4\"/></svg>",
            width, w);
}

void report_svg_pairs(FILE *f, const char *id, const char *title, const char *xlabel,
                      const char *const *rows, const double *a, const char *const *colour_a,
                      const char *name_a, const double *b, const char *name_b, size_t nrows)
{
    const double W = 720, L = 170, R = 30, T = 34, B = 46, row = 30;
    const double H = T + B + row * (double)(nrows ? nrows : 1), pw = W - L - R;
    double hi = 0;
    for (size_t i = 0; i < nrows; i++) {
        if (drawable(a[i]))
            hi = fmax(hi, a[i]);
        if (drawable(b[i]))
            hi = fmax(hi, b[i]);
    }
    if (!drawable(hi))
        hi = 1;
    double step = round_step(hi), top = ceil(hi / step * (1 - 1e-9)) * step;
    if (!isfinite(top) || !(step > 0)) { /* a rate near DBL_MAX: four steps to the largest */
        top = hi;
        step = hi / 4;
    }
    head(f, id, W, H, title);
#define PX(v) (L + pw * fmin((v) / top, 1))
    for (double v = 0; v <= top * (1 + 1e-9); v += step) {
        fprintf(f,
                "<line class=\"xtick\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
                "stroke=\"#ddd\"/>\n",
                PX(v), PX(v), T, H - B);
        number_label(f, PX(v), H - B + 16, "middle", v);
    }
    label(f, L + pw / 2, H - 10, "middle", "", xlabel);
    for (size_t i = 0; i < nrows; i++) {
        double y = T + row * (double)i;
        label(f, L - 8, y + row / 2 + 4, "end", "", rows[i]);
        for (int k = 0; k < 2; k++) {
            double v = k ? b[i] : a[i];
            if (!drawable(v))
                continue;
            fprintf(f,
                    "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                    "fill=\"%s\"><title>",
                    k ? "vendor" : "best", L, y + 3 + k * (row - 6) / 2, PX(v) - L, (row - 6) / 2,
                    k ? "#999" : colour_a[i]);
            report_text(f, rows[i]);
            fputs(", ", f);
            report_text(f, k ? name_b : name_a);
            fprintf(f, ": %.4g</title></rect>\n", v);
        }
    }
    fprintf(f,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
            "stroke=\"#333\"/>\n",
            L, T, pw, H - T - B);
    fprintf(f, "<rect x=\"%.1f\" y=\"8\" width=\"14\" height=\"10\" fill=\"#1f77b4\"/>\n", L);
    label(f, L + 20, 17, "start", "", name_a);
    fprintf(f, "<rect x=\"%.1f\" y=\"8\" width=\"14\" height=\"10\" fill=\"#999\"/>\n", L + 260);
    label(f, L + 280, 17, "start", "", name_b);
#undef PX
    fputs("</svg>\n", f);
}
