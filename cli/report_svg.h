/* The figures and text of `cutune report`: inline SVG and escaped HTML text, written by
 * hand (no plotting library, no JavaScript), for one self-contained HTML file. */
#ifndef CUTUNE_CLI_REPORT_SVG_H
#define CUTUNE_CLI_REPORT_SVG_H

#include <stddef.h>
#include <stdio.h>

/* Text for HTML or SVG: & < > " ' escaped, invalid UTF-8 and control characters replaced
 * by U+FFFD (names and messages come from databases anyone may have written). */
void report_text(FILE *f, const char *s);

/* A line of points (x ascending) for report_svg_lines. */
typedef struct ReportSeries {
    const char *name;
    const double *x, *y;
    size_t n;
} ReportSeries;

/* A step plot of best-so-far curves: y on a log scale, x linear from 0. id names the <svg>
 * element (for tests and links). */
void report_svg_lines(FILE *f, const char *id, const char *title, const char *xlabel,
                      const char *ylabel, const ReportSeries *s, size_t ns);

/* A strip plot: one row per group, each value a dot on a shared log axis, the median a
 * bar. values[g] holds n[g] values > 0. */
void report_svg_strips(FILE *f, const char *id, const char *title, const char *xlabel,
                       const char *const *names, const double *const *values, const size_t *n,
                       size_t ngroups);

/* A horizontal bar of value within [0, max], `width` pixels wide at max: for tables. */
void report_svg_bar(FILE *f, double value, double max, int width);

#endif
