/* The plot of `cutune replay`: fraction of the optimum against evaluations, one line per
 * strategy (the median over seeds), log x axis. Plain SVG written by hand: no plotting
 * dependency. */
#include "replay_svg.h"
#include "outfile.h"

#include <errno.h>
#include <math.h>
#include <string.h>

static const char *const colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                      "#ff7f0e", "#8c564b", "#e377c2", "#7f7f7f"};

static void xml_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '<')
            fputs("&lt;", f);
        else if (*s == '>')
            fputs("&gt;", f);
        else if (*s == '&')
            fputs("&amp;", f);
        else
            fputc(*s, f);
    }
}

int replay_svg_write(const char *path, const char *title, const char *const *names,
                     const CutuneReplayStat *const *stats, size_t nstrategies, size_t nbudgets,
                     CutuneError *err)
{
    const double W = 720, H = 440, L = 70, R = 170, T = 50, B = 60;
    double pw = W - L - R, ph = H - T - B;
    if (nbudgets == 0 || nstrategies == 0)
        return cutune_error(err, CUTUNE_ERR_INVALID, "nothing to plot");
    double xmin = (double)stats[0][0].budget, xmax = (double)stats[0][nbudgets - 1].budget;
    if (!(xmax > xmin))
        xmax = xmin * 2;
    double ymin = 1.0;
    for (size_t s = 0; s < nstrategies; s++)
        for (size_t b = 0; b < nbudgets; b++)
            ymin = fmin(ymin, stats[s][b].median);
    ymin = floor(ymin * 10) / 10;
    if (ymin > 0.9)
        ymin = 0.9;
    CutuneOutFile out;
    if (cutune_outfile_open(&out, path, err))
        return err ? err->code : CUTUNE_ERR_IO;
    FILE *f = out.f;
#define X(v) (L + pw * (log((v) / xmin) / log(xmax / xmin)))
#define Y(v) (T + ph * (1.0 - ((v)-ymin) / (1.0 - ymin)))
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
            "font-family=\"sans-serif\" font-size=\"12\">\n",
            W, H);
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
    fprintf(f, "<text x=\"%.0f\" y=\"24\" font-size=\"14\">", L);
    xml_text(f, title);
    fprintf(f, "</text>\n");
    /* grid and ticks */
    for (int k = 0; k <= 10; k++) {
        double v = ymin + (1.0 - ymin) * k / 10.0;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", L,
                Y(v), L + pw, Y(v));
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.2f</text>\n", L - 6, Y(v) + 4,
                v);
    }
    for (size_t b = 0; b < nbudgets; b++) {
        double v = (double)stats[0][b].budget;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
                X(v), T, X(v), T + ph);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%zu</text>\n", X(v),
                T + ph + 18, stats[0][b].budget);
    }
    fprintf(f,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
            "stroke=\"black\"/>\n",
            L, T, pw, ph);
    fprintf(f,
            "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">evaluations (log scale)"
            "</text>\n",
            L + pw / 2, H - 18);
    fprintf(f,
            "<text transform=\"translate(18,%.1f) rotate(-90)\" text-anchor=\"middle\">"
            "fraction of the optimum (median over seeds)</text>\n",
            T + ph / 2);
    for (size_t s = 0; s < nstrategies; s++) {
        const char *c = colours[s % (sizeof colours / sizeof colours[0])];
        int dash = strcmp(names[s], "random") == 0;
        fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s points=\"", c,
                dash ? " stroke-dasharray=\"6,4\"" : "");
        for (size_t b = 0; b < nbudgets; b++)
            fprintf(f, "%s%.1f,%.1f", b ? " " : "", X((double)stats[s][b].budget),
                    Y(fmax(stats[s][b].median, ymin)));
        fprintf(f, "\"/>\n");
        for (size_t b = 0; b < nbudgets; b++)
            fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n",
                    X((double)stats[s][b].budget), Y(fmax(stats[s][b].median, ymin)), c);
        double ly = T + 10 + 20.0 * (double)s;
        fprintf(f,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                "stroke-width=\"2\"%s/>\n",
                L + pw + 12, ly, L + pw + 40, ly, c, dash ? " stroke-dasharray=\"6,4\"" : "");
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">", L + pw + 46, ly + 4);
        xml_text(f, names[s]);
        fprintf(f, "</text>\n");
    }
#undef X
#undef Y
    fprintf(f, "</svg>\n");
    return cutune_outfile_commit(&out, err);
}
