/* Figures of `cutune report` (see report_svg.h). */
#include "report_svg.h"
#include "utf8.h"
#include "util.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *const colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                      "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};
#define NCOLOURS (sizeof colours / sizeof colours[0])

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
static size_t log_ticks(LogAxis a, double *ticks, double *logs, size_t max)
{
    static const double m[] = {1, 2, 5};
    double e0 = floor(a.lo / log(10)), e1 = ceil(a.hi / log(10));
    /* over more decades than max / 3 (times from 1e-300 to 1e300 ms), powers of ten only,
     * spread over the whole axis */
    int per = 3 * (e1 - e0 + 1) <= (double)max ? 3 : 1;
    double step = per == 3 ? 1 : ceil((e1 - e0 + 1) / (double)max);
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

void report_svg_lines(FILE *f, const char *id, const char *title, const char *xlabel,
                      const char *ylabel, const ReportSeries *s, size_t ns)
{
    const double W = 720, H = 360, L = 70, R = 190, T = 30, B = 50;
    const double pw = W - L - R, ph = H - T - B;
    double xmax = 0, ymin = INFINITY, ymax = 0;
    for (size_t i = 0; i < ns; i++)
        for (size_t k = 0; k < s[i].n; k++) {
            if (isfinite(s[i].x[k]))
                xmax = fmax(xmax, s[i].x[k]);
            if (drawable(s[i].y[k])) {
                ymin = fmin(ymin, s[i].y[k]);
                ymax = fmax(ymax, s[i].y[k]);
            }
        }
    if (!(xmax >= 1e-6)) /* nothing, or so little that a round step of it would be 0 */
        xmax = 1;
    LogAxis ya = log_axis(ymin, ymax);
    head(f, id, W, H, title);
#define PX(v) (L + pw * fmin(fmax((v), 0) / xmax, 1))
#define PY(v) (T + ph * (1.0 - log_frac(ya, (v))))
    double ticks[40], logs[40];
    size_t nt = log_ticks(ya, ticks, logs, 40);
    for (size_t k = 0; k < nt; k++) {
        double y = T + ph * (1.0 - (logs[k] - ya.lo) / (ya.hi - ya.lo));
        fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", L,
                L + pw, y, y);
        number_label(f, L - 6, y + 4, "end", ticks[k]);
    }
    /* a round step (1, 2 or 5 times a power of ten) giving at most 6 intervals */
    double step = pow(10, floor(log10(xmax / 6)));
    step *= xmax / step <= 6 ? 1 : xmax / (2 * step) <= 6 ? 2 : xmax / (5 * step) <= 6 ? 5 : 10;
    for (double v = 0; v <= xmax * (1 + 1e-9); v += step) {
        fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>\n",
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
    for (size_t i = 0; i < ns; i++) {
        const char *c = colours[i % NCOLOURS];
        fprintf(f,
                "<polyline class=\"series\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\" "
                "points=\"",
                c);
        double prev = 0;
        for (size_t k = 0; k < s[i].n; k++) {
            if (!drawable(s[i].y[k]) || !isfinite(s[i].x[k]))
                continue;
            if (prev > 0) /* a step: the best so far holds until the next improvement */
                fprintf(f, "%.1f,%.1f ", PX(s[i].x[k]), PY(prev));
            fprintf(f, "%.1f,%.1f ", PX(s[i].x[k]), PY(s[i].y[k]));
            prev = s[i].y[k];
        }
        fputs("\"/>\n", f);
        double ly = T + 14 + 18.0 * (double)i;
        fprintf(f,
                "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                "stroke-width=\"3\"/>\n",
                L + pw + 12, L + pw + 32, ly - 4, ly - 4, c);
        label(f, L + pw + 38, ly, "start", "", s[i].name);
    }
#undef PX
#undef PY
    fputs("</svg>\n", f);
}

void report_svg_strips(FILE *f, const char *id, const char *title, const char *xlabel,
                       const char *const *names, const double *const *values, const size_t *n,
                       size_t ngroups)
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
        fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", x,
                x, T, H - B);
        number_label(f, x, H - B + 16, "middle", ticks[k]);
    }
    label(f, L + pw / 2, H - 10, "middle", "", xlabel);
    for (size_t g = 0; g < ngroups; g++) {
        double cy = T + row * ((double)g + 0.5);
        const char *c = colours[g % NCOLOURS];
        label(f, L - 8, cy + 4, "end", "", names[g]);
        double *sorted = malloc((n[g] ? n[g] : 1) * sizeof *sorted);
        size_t m = 0;
        for (size_t k = 0; k < n[g]; k++) {
            if (!drawable(values[g][k]))
                continue;
            /* a fixed jitter from the index spreads equal times vertically */
            double dy = ((double)((k * 2654435761u) % 1000) / 1000.0 - 0.5) * row * 0.6;
            fprintf(f,
                    "<circle class=\"dot\" cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\" "
                    "fill-opacity=\"0.55\"/>\n",
                    PX(values[g][k]), cy + dy, c);
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
