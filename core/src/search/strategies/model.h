/* An additive model of a space's log-times over the parameter grid: log t(x) is a sum of
 * one term per parameter and level, fitted by ridge regression to the configs measured so
 * far (failed configs count as slower than the slowest ok one). Cheap enough to refit at
 * every proposal: the normal equations grow by one config at a time, and the solve is
 * over the levels of all parameters (a few dozen unknowns). */
#ifndef CUTUNE_STRATEGIES_MODEL_H
#define CUTUNE_STRATEGIES_MODEL_H

#include "search.h"

typedef struct SearchModel {
    const SearchGrid *g;
    size_t d;       /* unknowns: one per level of every parameter */
    size_t *off;    /* per parameter: its first unknown */
    double *ata;    /* d x d: sum of x x^T over measured configs */
    double *xt_ok;  /* sum of x log t over the ok ones */
    double *x_fail; /* sum of x over the failed ones */
    double *x_all;  /* sum of x over all */
    double sum_t, max_t;
    size_t nok, nfail;
    double *w;    /* the fitted terms */
    double *chol; /* workspace d x d */
    double *rhs;
    int fitted;
} SearchModel;

int search_model_init(SearchModel *m, const SearchGrid *g);
void search_model_free(SearchModel *m);
/* Add a measured config: cost in ms, +inf for a failure. */
void search_model_add(SearchModel *m, size_t i, double cost);
/* Refit to what was added; returns 0, or -1 when there is too little to fit (fewer than
 * two ok configs). */
int search_model_fit(SearchModel *m);
/* The fitted log-time of config i (relative: only differences mean something). */
double search_model_predict(const SearchModel *m, size_t i);

#endif
