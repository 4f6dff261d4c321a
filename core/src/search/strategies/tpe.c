/* A model-based search: a tree-structured Parzen estimator (TPE) over the parameter grid.
 *
 * The measured configs are split into the good (the fastest fraction GAMMA) and the rest
 * (slower or failed), and a config is scored by how much more often its levels occur among
 * the good ones than among the rest (density.h). Each step proposes the BATCH unmeasured
 * configs of highest score (scoring
 * every valid config is cheap: nconfigs x nparams sums), so failed regions are learned
 * and avoided. (Adding the best-scoring neighbours of the fastest configs to each batch,
 * as local refinement, did worse on the synthetic landscapes: it held the search in the
 * first basin it found.) The first configs are random, to give the model something to
 * learn from. */
#include "density.h"
#include "search.h"

#include <stdlib.h>
#include <string.h>

#define TPE_GAMMA 0.15
enum { TPE_START = 12, TPE_BATCH = 4, TPE_MIN_GOOD = 3 };

typedef struct {
    SearchBase base;  /* first: see search_base_create */
    size_t *measured; /* measured configs, kept sorted by (cost, index) */
    size_t nmeasured;
    SearchDensity d;
} Tpe;

static void tpe_destroy(void *state)
{
    Tpe *s = state;
    if (!s)
        return;
    free(s->measured);
    search_density_free(&s->d);
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
    size_t n = a->configs->nconfigs;
    s->measured = malloc((n ? n : 1) * sizeof *s->measured);
    if (!s->measured || search_density_init(&s->d, &s->base.g)) {
        tpe_destroy(s);
        return CUTUNE_ERR_NOMEM;
    }
    *state = s;
    return 0;
}

/* The (at most) want new configs of highest score among list[0..n), best first; ties go
 * to the earlier in the list. */
static size_t best_scored(Tpe *s, const size_t *list, size_t n, size_t *top, size_t want)
{
    const SearchBook *b = &s->base.b;
    size_t ntop = 0;
    double topv[TPE_BATCH];
    if (want > TPE_BATCH)
        want = TPE_BATCH;
    for (size_t k = 0; k < n && want; k++) {
        size_t i = list[k];
        if (b->state[i] != SEARCH_NEW)
            continue;
        double sc = search_density_score(&s->d, i);
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
    size_t n = b->n, m = s->nmeasured;
    if (m < TPE_START) {
        search_book_queue_random(b, NULL, 0, TPE_BATCH);
        return;
    }
    search_density_fit(&s->d, s->measured, m, b->cost, TPE_GAMMA, TPE_MIN_GOOD);
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
