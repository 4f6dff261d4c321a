/* The sections of `cutune report --html` (report_sections.c, report_params.c) and what they
 * share: the best of a size, its vendor yardstick, its rate, and table cells. */
#ifndef CUTUNE_CLI_REPORT_HTML_H
#define CUTUNE_CLI_REPORT_HTML_H

#include <stdio.h>

#include "report.h"

/* The median of v[0..n) (sorted in place); 0 for none. */
double report_median(double *v, size_t n);
/* The best group of a size (fastest ok), or -1. */
long report_best_group(const Report *r, const char *size);
/* The vendor yardstick of a size, or NULL. */
const ReportYardstick *report_yardstick(const Report *r, const char *size);
/* The index of a variant among the page's variants (first seen first), for its colour. */
size_t report_variant_index(const Report *r, const char *variant);

/* A trial's rate as an engineer reads it: TFLOP/s for an op that does 4 or more flops a
 * byte (matmul), else GB/s (the memory-bound ops), as `cutune run`'s table says it. */
typedef struct ReportRate {
    double value;     /* in unit; 0 where the trial recorded neither rate */
    const char *unit; /* "TFLOP/s" or "GB/s" */
    int compute;
} ReportRate;
ReportRate report_rate(const ReportTrial *t);

/* Table cells: text (escaped), a config that may wrap after its commas, a number through
 * fmt ("n/a" when it is not finite). */
void report_td(FILE *f, const char *s);
void report_td_config(FILE *f, const char *config);
void report_tdf(FILE *f, const char *fmt, double v);

/* The sections, each under an <h2> whose id the table of contents links to. */
void report_meta(FILE *f, const Report *r, const char *db_path);
void report_toc(FILE *f, const Report *r);
void report_legend(FILE *f, const Report *r);
void report_best(FILE *f, const Report *r);
/* The best's rate (else time) and the vendor's per size, as paired bars. */
void report_vs_vendor(FILE *f, const Report *r);
void report_searches(FILE *f, const Report *r);
void report_convergence(FILE *f, const Report *r);
void report_spread(FILE *f, const Report *r);
void report_params(FILE *f, const Report *r);
void report_failures(FILE *f, const Report *r);

/* A parameter effect is shown for the values with at least this many ok configs, and only
 * where two values or more have them: a median of fewer is mostly noise. */
#define REPORT_MIN_PER_LEVEL 5

#endif
