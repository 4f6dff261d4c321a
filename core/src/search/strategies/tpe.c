/* A model-based search: a tree-structured Parzen estimator (TPE) over the parameter grid.
 *
 * The measured configs are split into the good (the fastest fraction GAMMA) and the rest
 * (slower or failed). For each parameter, a smoothed histogram over its levels is built
 * from each group: l(level) from the good ones, g(level) from the rest, each with a prior
 * of one count spread over every level and half a count leaking to the adjacent levels
 * (times vary smoothly along a parameter). The model's score of a config is the product
 * over its parameters of l/g: high where the fast configs cluster and the slow or failed
 * ones do not. Each step proposes the BATCH unmeasured configs of highest score (scoring
 * every valid config is cheap: nconfigs x nparams sums), so failed regions are learned
 * and avoided. (Adding the best-scoring neighbours of the fastest configs to each batch,
 * as local refinement, did worse on the synthetic landscapes: it held the search in the
 * first basin it found.) The first configs are random, to give the model something to
 * learn from. */
#include "search.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TPE_GAMMA 0.15
enum { TPE_START = 12, TPE_BATCH = 4, TPE_MIN_GOOD = 3 };

typedef struct {
    SearchBase base;  /* first: see search_base_create */
    size_t *measured; /* measured configs, kept sorted by (cost, index) */
    size_t nmeasured;
    size_t nlv;  /* total levels over all parameters */
    size_t *off; /* per parameter: its first slot in the histograms */
    double *lg;  /* log(l/g) per level slot */
    double *good, *bad;
} Tpe;

static void tpe_destroy(void *state)
{
    Tpe *s = state;
    if (!s)
        return;
    free(s->measured);
    free(s->off);
    free(s->lg);
    free(s->good);
    free(s->bad);
    search_base_destroy(s);
}

static void tpe_step(void *state);

static int tpe_create(const CutuneStrategyArgs *a, void **state)
{
    void *st;
    int rc = search_base_create(sizeof(Tpe), a, 0x7e000000ULL, tpe_step, &st);
    if (rc)
        return rc;
    Tpe *s = st;
    size_t n = a->configs->nconfigs, p = a->configs->nparams;
    s->off = calloc(p + 1, sizeof *s->off);
    s->measured = malloc((n ? n : 1) * sizeof *s->measured);
    if (!s->off || !s->measured)
        goto fail;
    for (size_t j = 0; j < p; j++)
        s->off[j + 1] = s->off[j] + s->base.g.nlevels[j];
    s->nlv = s->off[p];
    s->lg = malloc((s->nlv + 1) * sizeof *s->lg);
    s->good = malloc((s->nlv + 1) * sizeof *s->good);
    s->bad = malloc((s->nlv + 1) * sizeof *s->bad);
    if (!s->lg || !s->good || !s->bad)
        goto fail;
    *state = s;
    return 0;
fail:
    tpe_destroy(s);
    return CUTUNE_ERR_NOMEM;
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

/* The (at most) want new configs of highest score among list[0..n), best first; ties go
 * to the earlier in the list. */
static size_t best_scored(Tpe *s, const size_t *list, size_t n, size_t *top, size_t want)
{
    const SearchBook *b = &s->base.b;
    size_t p = s->base.g.nparams, ntop = 0;
    double topv[TPE_BATCH];
    if (want > TPE_BATCH)
        want = TPE_BATCH;
    for (size_t k = 0; k < n && want; k++) {
        size_t i = list[k];
        if (b->state[i] != SEARCH_NEW)
            continue;
        double sc = 0;
        for (size_t j = 0; j < p; j++)
            sc += s->lg[s->off[j] + s->base.g.level[i * p + j]];
        if (ntop == want && sc <= topv[ntop - 1])
            continue;
        size_t at = ntop < want ? ntop++ : ntop - 1;
        while (at > 0 && topv[at - 1] < sc) {
            top[at] = top[at - 1];
            topv[at] = topv[at - 1];
            at--;
        }
        top[at] = i;
        topv[at] = sc;
    }
    return ntop;
}

static void tpe_step(void *state)
{
    Tpe *s = state;
    SearchBook *b = &s->base.b;
    size_t n = b->n, p = s->base.g.nparams, m = s->nmeasured;
    if (m < TPE_START) {
        search_book_queue_random(b, NULL, 0, TPE_BATCH);
        return;
    }
    size_t ngood = (size_t)ceil(TPE_GAMMA * (double)m);
    if (ngood < TPE_MIN_GOOD)
        ngood = TPE_MIN_GOOD;
    while (ngood > 0 && !isfinite(b->cost[s->measured[ngood - 1]]))
        ngood--; /* a failed config is never good */
    for (size_t j = 0; j < p; j++) {
        size_t nl = s->base.g.nlevels[j];
        double *gd = s->good + s->off[j], *bd = s->bad + s->off[j];
        for (size_t v = 0; v < nl; v++)
            gd[v] = bd[v] = 1.0 / (double)nl;
        for (size_t k = 0; k < m; k++) {
            size_t v = s->base.g.level[s->measured[k] * p + j];
            deposit(k < ngood ? gd : bd, nl, v, 1.0);
        }
        double sg = 0, sb = 0;
        for (size_t v = 0; v < nl; v++)
            sg += gd[v], sb += bd[v];
        for (size_t v = 0; v < nl; v++)
            s->lg[s->off[j] + v] = log(gd[v] / sg) - log(bd[v] / sb);
    }
    /* the best-scoring new configs; ties go to the earlier in the seeded order */
    size_t pick[TPE_BATCH];
    size_t np = best_scored(s, b->order, n, pick, TPE_BATCH);
    for (size_t k = 0; k < np; k++)
        search_book_queue(b, pick[k]);
}

static void tpe_feedback(void *state, size_t index, CutuneStatus status, double median_ms)
{
    Tpe *s = state;
    SearchBook *b = &s->base.b;
    if (search_book_feedback(b, index, status, median_ms))
        search_sorted_insert(s->measured, &s->nmeasured, b->cost, index);
}

SEARCH_OPS(cutune_strategy_tpe, "tpe",
           "model-based: tree-structured Parzen estimator over the parameter levels, "
           "learns fast and failing regions from the trials so far",
           tpe_create, search_base_next, tpe_feedback, tpe_destroy);
