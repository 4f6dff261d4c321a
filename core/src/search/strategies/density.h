/* The tree-structured Parzen estimator's view of the measured configs (Bergstra et al.,
 * 2011), per parameter: the measured configs are split into the good ones (the fastest
 * fraction gamma) and the rest (slower or failed); each parameter gets a smoothed
 * histogram over its levels from each group, l(level) from the good ones and g(level)
 * from the rest, each with a prior of one count spread over every level and half a count
 * leaking to the adjacent levels (times vary smoothly along a parameter). A config's
 * score is the sum over its parameters of log(l/g): high where the fast configs cluster
 * and the slow or failed ones do not. Used by the `tpe` strategy and by the default's
 * global picks. */
#ifndef CUTUNE_STRATEGIES_DENSITY_H
#define CUTUNE_STRATEGIES_DENSITY_H

#include "search.h"

typedef struct SearchDensity {
    const SearchGrid *g;
    size_t *off;             /* per parameter: its first slot (level 0) */
    double *lg, *good, *bad; /* per level slot: log(l/g), and the two histograms */
} SearchDensity;

int search_density_init(SearchDensity *d, const SearchGrid *g);
void search_density_free(SearchDensity *d);
/* Fit to the m measured configs of measured[], sorted by (cost, index) as
 * search_sorted_insert keeps them: the fastest ceil(gamma m), at least min_good of them but
 * never a failed one (cost +inf), are the good ones. */
void search_density_fit(SearchDensity *d, const size_t *measured, size_t m, const double *cost,
                        double gamma, size_t min_good);
/* The score of config i: the sum of log(l/g) over its parameters. */
double search_density_score(const SearchDensity *d, size_t i);

/* The default search's global picks (portfolio.c) count as good only the fastest
 * SEARCH_GLOBAL_GOOD configs measured (gamma 0), not a fraction of them: on a plateau,
 * where hundreds of configs lie within 2% of the optimum, the fastest 15% hold every level
 * of the parameters that decide the last percent, and only the very best few show which
 * levels those are (bench/RESULTS.md, "Search on foreign spaces (replay)"). */
enum { SEARCH_GLOBAL_GOOD = 2 };

#endif
