/* The TPE densities over the parameter levels (see density.h). */
#include "density.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int search_density_init(SearchDensity *d, const SearchGrid *g)
{
    memset(d, 0, sizeof *d);
    d->g = g;
    size_t p = g->nparams;
    d->off = calloc(p + 1, sizeof *d->off);
    if (!d->off)
        return CUTUNE_ERR_NOMEM;
    for (size_t j = 0; j < p; j++)
        d->off[j + 1] = d->off[j] + g->nlevels[j];
    size_t nlv = d->off[p] + 1;
    d->lg = calloc(nlv, sizeof *d->lg);
    d->good = malloc(nlv * sizeof *d->good);
    d->bad = malloc(nlv * sizeof *d->bad);
    if (!d->lg || !d->good || !d->bad) {
        search_density_free(d);
        return CUTUNE_ERR_NOMEM;
    }
    return 0;
}

void search_density_free(SearchDensity *d)
{
    free(d->off);
    free(d->lg);
    free(d->good);
    free(d->bad);
    memset(d, 0, sizeof *d);
}

/* Add a count to a parameter's histogram, with half of it on each adjacent level. */
static void deposit(double *h, size_t nl, size_t v, double w)
{
    h[v] += w;
    if (v > 0)
        h[v - 1] += 0.5 * w;
    if (v + 1 < nl)
        h[v + 1] += 0.5 * w;
}

void search_density_fit(SearchDensity *d, const size_t *measured, size_t m, const double *cost,
                        double gamma, size_t min_good)
{
    const SearchGrid *g = d->g;
    size_t p = g->nparams;
    size_t ngood = (size_t)ceil(gamma * (double)m);
    if (ngood < min_good)
        ngood = min_good;
    if (ngood > m)
        ngood = m;
    while (ngood > 0 && !isfinite(cost[measured[ngood - 1]]))
        ngood--; /* a failed config is never good */
    for (size_t j = 0; j < p; j++) {
        size_t nl = g->nlevels[j];
        double *gd = d->good + d->off[j], *bd = d->bad + d->off[j];
        for (size_t v = 0; v < nl; v++)
            gd[v] = bd[v] = 1.0 / (double)nl;
        for (size_t k = 0; k < m; k++)
            deposit(k < ngood ? gd : bd, nl, g->level[measured[k] * p + j], 1.0);
        double sg = 0, sb = 0;
        for (size_t v = 0; v < nl; v++)
            sg += gd[v], sb += bd[v];
        for (size_t v = 0; v < nl; v++)
            d->lg[d->off[j] + v] = log(gd[v] / sg) - log(bd[v] / sb);
    }
}

double search_density_score(const SearchDensity *d, size_t i)
{
    const SearchGrid *g = d->g;
    size_t p = g->nparams;
    double sc = 0;
    for (size_t j = 0; j < p; j++)
        sc += d->lg[d->off[j] + g->level[i * p + j]];
    return sc;
}
