/* An additive model of a space's log-times over the parameter grid: log t(x) is a sum of
 * one term per parameter and level, fitted by ridge regression to the configs measured so
 * far. The response is clipped: a log-time above the median of the ok ones counts as that
 * median, and a failed config counts as it too. The model is there to say where the fast
 * configs are, and a fit to the raw log-times spends its terms on the slow tail (configs
 * many times slower than the best, which weigh most in a least-squares fit): with the
 * clip, a level is judged by how often it is fast, not by how slow it can be. Cheap enough
 * to refit at every proposal: the normal matrix grows by one config at a time, the solve is
 * over the levels of all parameters (a few dozen unknowns), and the right-hand side is one
 * pass over the measured configs. */
#ifndef CUTUNE_STRATEGIES_MODEL_H
#define CUTUNE_STRATEGIES_MODEL_H

#include "search.h"

typedef struct SearchModel {
    const SearchGrid *g;
    size_t d;      /* unknowns: one per level of every parameter */
    size_t *off;   /* per parameter: its first unknown */
    double *ata;   /* d x d: sum of x x^T over measured configs */
    size_t *obs;   /* the measured configs, in the order added */
    double *obs_t; /* their log-times, +inf for failures */
    double *ok_t;  /* the ok log-times, sorted */
    size_t nobs, nok;
    double *w;    /* the fitted terms */
    double *chol; /* workspace d x d */
    double *rhs;
    int fitted;
} SearchModel;

int search_model_init(SearchModel *m, const SearchGrid *g);
void search_model_free(SearchModel *m);
/* Add a measured config: cost in ms, +inf for a failure. Each config at most once. */
void search_model_add(SearchModel *m, size_t i, double cost);
/* Refit to what was added; returns 0, or -1 when there is too little to fit (fewer than
 * two ok configs). */
int search_model_fit(SearchModel *m);
/* The fitted log-time of config i (relative: only differences mean something). */
double search_model_predict(const SearchModel *m, size_t i);

#endif
