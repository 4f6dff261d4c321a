/* The figures and text of `cutune report`: inline SVG and escaped HTML text, written by
 * hand (no plotting library, no JavaScript), for one self-contained HTML file. */
#ifndef CUTUNE_CLI_REPORT_SVG_H
#define CUTUNE_CLI_REPORT_SVG_H

#include <stddef.h>
#include <stdio.h>

/* Text for HTML or SVG: & < > " ' escaped, invalid UTF-8 and control characters replaced
 * by U+FFFD (names and messages come from databases anyone may have written). */
void report_text(FILE *f, const char *s);

/* The colour of the i-th variant of a page (a palette of 10, then again): every figure
 * draws variant i in it, so that a variant is one colour across the page. */
const char *report_colour(size_t i);

/* A line of points (x ascending) for report_svg_lines, drawn in colour. */
typedef struct ReportSeries {
    const char *name, *colour;
    const double *x, *y;
    size_t n;
} ReportSeries;

/* A level drawn across a plot: the vendor library's time, say. */
typedef struct ReportRef {
    const char *name;
    double y; /* not drawn unless finite and > 0 */
} ReportRef;

/* A step plot of best-so-far curves: y on a log scale, x linear over the data (from its
 * smallest x, not from 0), with ref (NULL: none) as a dashed line. id names the <svg>
 * element (for tests and links). */
void report_svg_lines(FILE *f, const char *id, const char *title, const char *xlabel,
                      const char *ylabel, const ReportSeries *s, size_t ns, const ReportRef *ref);

/* A strip plot: one row per group in colours[g], each value a dot on a shared log axis
 * (titled labels[g][k] and its value: a browser shows it on hover), the median a bar.
 * values[g] holds n[g] values > 0. */
void report_svg_strips(FILE *f, const char *id, const char *title, const char *xlabel,
                       const char *const *names, const char *const *colours,
                       const double *const *values, const char *const *const *labels,
                       const size_t *n, size_t ngroups);

/* Paired bars on a linear axis from 0: per row, a (in colour_a, named name_a) above b (grey,
 * name_b); a value that is not finite and > 0 draws no bar. */
void report_svg_pairs(FILE *f, const char *id, const char *title, const char *xlabel,
                      const char *const *rows, const double *a, const char *const *colour_a,
                      const char *name_a, const double *b, const char *name_b, size_t nrows);

/* A horizontal bar of value within [0, max], `width` pixels wide at max: for tables. */
void report_svg_bar(FILE *f, double value, double max, int width);

#endif
