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

/* Round ticks of a log axis over [lo, hi]: 1, 2 and 5 times the powers of ten. */
static size_t log_ticks(double lo, double hi, double *ticks, size_t max)
{
    size_t n = 0;
    for (double dec = pow(10, floor(log10(lo))); dec <= hi && n < max; dec *= 10)
        for (int m = 0; m < 3 && n < max; m++) {
            double t = dec * (m == 0 ? 1 : m == 1 ? 2 : 5);
            if (t >= lo && t <= hi)
                ticks[n++] = t;
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
            xmax = fmax(xmax, s[i].x[k]);
            if (s[i].y[k] > 0) {
                ymin = fmin(ymin, s[i].y[k]);
                ymax = fmax(ymax, s[i].y[k]);
            }
        }
    if (!(ymax > 0)) {
        ymin = 1;
        ymax = 10;
    }
    if (!(xmax > 0))
        xmax = 1;
    double lo = ymin / 1.15, hi = ymax * 1.15;
    head(f, id, W, H, title);
#define PX(v) (L + pw * (v) / xmax)
#define PY(v) (T + ph * (1.0 - log((v) / lo) / log(hi / lo)))
    double ticks[40];
    size_t nt = log_ticks(lo, hi, ticks, 40);
    for (size_t k = 0; k < nt; k++) {
        fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", L,
                L + pw, PY(ticks[k]), PY(ticks[k]));
        number_label(f, L - 6, PY(ticks[k]) + 4, "end", ticks[k]);
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
            if (!(s[i].y[k] > 0))
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
            if (values[g][k] > 0) {
                lo = fmin(lo, values[g][k]);
                hi = fmax(hi, values[g][k]);
            }
    if (!(hi > 0)) {
        lo = 1;
        hi = 10;
    }
    lo /= 1.15;
    hi *= 1.15;
    head(f, id, W, H, title);
#define PX(v) (L + pw * log((v) / lo) / log(hi / lo))
    double ticks[40];
    size_t nt = log_ticks(lo, hi, ticks, 40);
    for (size_t k = 0; k < nt; k++) {
        fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
                PX(ticks[k]), PX(ticks[k]), T, H - B);
        number_label(f, PX(ticks[k]), H - B + 16, "middle", ticks[k]);
    }
    label(f, L + pw / 2, H - 10, "middle", "", xlabel);
    for (size_t g = 0; g < ngroups; g++) {
        double cy = T + row * ((double)g + 0.5);
        const char *c = colours[g % NCOLOURS];
        label(f, L - 8, cy + 4, "end", "", names[g]);
        double *sorted = malloc((n[g] ? n[g] : 1) * sizeof *sorted);
        size_t m = 0;
        for (size_t k = 0; k < n[g]; k++) {
            if (!(values[g][k] > 0))
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
            double med = m % 2 ? sorted[m / 2] : 0.5 * (sorted[m / 2 - 1] + sorted[m / 2]);
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
    double w = max > 0 && value > 0 ? width * fmin(value / max, 1.0) : 0;
    fprintf(f,
            "<svg class=\"bar\" width=\"%d\" height=\"12\" xmlns=\"http://www.w3.org/2000/svg\">"
            "<rect width=\"%.1f\" height=\"12\" fill=\"#1f77b4\"/></svg>",
            width, w);
}
