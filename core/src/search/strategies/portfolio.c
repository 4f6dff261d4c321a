/* The default search: a portfolio of three kinds of proposal, one proposal per call of
 * next(), so that it keeps as many configs in flight as the tuner asks for (its compile
 * pool and the GPU) and never waits for a batch to finish.
 *
 * - Local search from the best local optima known. A measured config is a head while no
 *   measured neighbour is faster and some neighbour has not been proposed; the fastest head
 *   proposes one of those neighbours, at random. Neighbours are the configs one parameter
 *   away, at any of its values (not only the next level): a neighbourhood of 15 to 45
 *   configs on the foreign recordings, which fills a pipeline on its own, and 1 to 53 local
 *   optima on them where one-level steps leave 39 to 545, so that the search crosses the
 *   valleys that trap a walk on isolated optima. A random config that lands in another
 *   basin becomes a head too: restarts come for free, and a basin is left only when it is
 *   worse than another one's best.
 * - A model: an additive fit of log-time over the parameter levels (model.h), refitted at
 *   each of these proposals; it proposes the config it predicts fastest among those at
 *   most three parameters away from the best so far (a trust region: the model is rough,
 *   and far from the data it is wrong), which jumps several parameters in one proposal
 *   where local search needs one round of feedback per parameter. Its response is clipped
 *   at the median: a config slower than the median ok one counts as the median, so the
 *   fit spends its terms on where the fast configs are rather than on how slow the slow
 *   tail is (a raw least-squares fit is led by configs many times slower than the best).
 *   Replays at a pipeline of 18 (bench/results/replay/search-eval-2026-11-26-clip.md): the
 *   mean fraction of the optimum at 100 evaluations went 0.9777 -> 0.9839 (seeds 1-60),
 *   0.9776 -> 0.9830 (1-120) and 0.9779 -> 0.9800 (1001-1060), no budget worse by more
 *   than 0.0004, with gains at a pipeline of 1 too.
 * - Random configs, in the order the random strategy draws them (the same seed gives the
 *   same draws): the first proposals, until eight results are known, or the warm start's
 *   (with a pipeline of 18, the first 18 are necessarily blind), and a tenth of the rest,
 *   so that no region is left unseen for good.
 * Of the informed proposals, 30% come from the model and 60% from local search. The last
 *   `parallel` proposals of the budget, whose results no later proposal can use, are
 *   exploitation only (no random). Failed configs cost +inf: never a head, and the model
 *   counts them as slow (at its clip, the median ok log-time).
 *
 * Replays (bench/RESULTS.md, "search on foreign spaces") chose these settings over one-level
 * neighbourhoods, a model share of 0.5 or 0.6, several heads expanded in turn, neighbours
 * ordered by the model, a global model argmin, and descent steps taken on predictions
 * before results come back: each did worse, or no better, at 100 and 400 evaluations with
 * a pipeline of 34 and of 1. Later replays (pipelines of 18 and 1, in the file above) found
 * no gain beyond noise in an optimism bonus on the model's picks (kappa times
 * sqrt(1/(1+count)) over the config's levels, kappa 0.05 to 0.2) nor in a trust radius
 * that grows when the model's picks improve the best and shrinks when they do not. */
#include "model.h"
#include "search.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PF_MODEL_SHARE 0.3
#define PF_RANDOM_SHARE 0.1
enum { PF_MIN_KNOWN = 8, PF_TRUST_RADIUS = 3 };

typedef struct {
    SearchBase base; /* first: see search_base_create */
    SearchModel model;
    int model_stale;
    size_t nfinite, nfed;
    size_t *measured, nmeasured; /* sorted by (cost, index) */
    uint8_t *dom;                /* a measured neighbour is faster */
    uint32_t *nnew;              /* of a measured config: neighbours not yet proposed */
} Portfolio;

static void pf_destroy(void *state)
{
    Portfolio *s = state;
    if (!s)
        return;
    search_model_free(&s->model);
    free(s->measured);
    free(s->dom);
    free(s->nnew);
    search_base_destroy(s);
}

static int pf_create(const CutuneStrategyArgs *a, void **state)
{
    /* no salt: the book's shuffle is then random's (see search_book_init); no step, since
     * next() proposes one config at a time */
    void *st;
    int rc = search_base_create(sizeof(Portfolio), a, 0, NULL, &st);
    if (rc)
        return rc;
    Portfolio *s = st;
    size_t n = a->configs->nconfigs;
    rc = search_model_init(&s->model, &s->base.g);
    if (!rc) {
        s->measured = malloc((n + 1) * sizeof *s->measured);
        s->dom = calloc(n + 1, 1);
        s->nnew = calloc(n + 1, sizeof *s->nnew);
        if (!s->measured || !s->dom || !s->nnew)
            rc = CUTUNE_ERR_NOMEM;
    }
    if (rc) {
        pf_destroy(s);
        return rc;
    }
    *state = s;
    return 0;
}

/* The valid configs that differ from config i in one parameter, written to out. */
static size_t neighbours(const Portfolio *s, size_t i, size_t *out)
{
    size_t p = s->base.g.nparams, m = 0;
    uint16_t lv[SEARCH_MAX_PARAMS];
    memcpy(lv, &s->base.g.level[i * p], p * sizeof *lv);
    for (size_t j = 0; j < p; j++) {
        uint16_t v0 = lv[j];
        for (size_t v = 0; v < s->base.g.nlevels[j]; v++) {
            if (v == v0)
                continue;
            lv[j] = (uint16_t)v;
            long k = search_grid_find(&s->base.g, lv);
            if (k >= 0)
                out[m++] = (size_t)k;
        }
        lv[j] = v0;
    }
    return m;
}

/* The model's pick: the unproposed config it predicts fastest within the trust region
 * around the best config; -1 when it cannot fit yet or the region is all proposed. */
static long model_pick(Portfolio *s)
{
    SearchBook *b = &s->base.b;
    if (s->model_stale && search_model_fit(&s->model) == 0)
        s->model_stale = 0;
    if (!s->model.fitted || b->best < 0)
        return -1;
    size_t p = s->base.g.nparams;
    const uint16_t *c = &s->base.g.level[(size_t)b->best * p];
    long pick = -1;
    double pv = INFINITY;
    for (size_t i = 0; i < b->n; i++) {
        if (b->state[i] != SEARCH_NEW)
            continue;
        const uint16_t *x = &s->base.g.level[i * p];
        size_t d = 0;
        for (size_t j = 0; j < p && d <= PF_TRUST_RADIUS; j++)
            d += x[j] != c[j];
        if (d > PF_TRUST_RADIUS)
            continue;
        double v = search_model_predict(&s->model, i);
        if (v < pv) {
            pv = v;
            pick = (long)i;
        }
    }
    return pick;
}

/* Local search's pick: an unproposed neighbour of the fastest head, at random. */
static long local_pick(Portfolio *s)
{
    SearchBook *b = &s->base.b;
    size_t *nb = s->base.nb;
    for (size_t r = 0; r < s->nmeasured; r++) {
        size_t h = s->measured[r];
        if (!isfinite(b->cost[h]))
            break;
        if (s->dom[h] || s->nnew[h] == 0)
            continue;
        size_t m = neighbours(s, h, nb), c = 0;
        for (size_t k = 0; k < m; k++)
            if (b->state[nb[k]] == SEARCH_NEW)
                nb[c++] = nb[k];
        if (c)
            return (long)nb[search_rng_below(&s->base.rng, c)];
    }
    return -1;
}

static int pf_next(void *state, size_t *index)
{
    Portfolio *s = state;
    SearchBook *b = &s->base.b;
    long x = -1;
    if (b->bhead < b->blen) { /* the warm start, in its order */
        x = (long)b->batch[b->bhead++];
        b->state[x] = SEARCH_NEW;
    } else if (s->nfinite >= PF_MIN_KNOWN || (b->nstart && s->nfed >= b->nstart && s->nfinite)) {
        /* no random proposal where its result would come too late to be of use */
        int last = b->proposed + s->base.parallel >= s->base.budget;
        double u = search_rng_unit(&s->base.rng), rnd = last ? 0 : PF_RANDOM_SHARE;
        if (u >= rnd && u < rnd + PF_MODEL_SHARE) {
            if ((x = model_pick(s)) < 0)
                x = local_pick(s);
        } else if (u >= rnd) {
            if ((x = local_pick(s)) < 0)
                x = model_pick(s);
        }
    }
    if (x < 0)
        x = search_book_random_new(b);
    if (x < 0)
        return CUTUNE_NEXT_DONE;
    /* the measured neighbours of x have one unproposed neighbour fewer */
    size_t *nb = s->base.nb, m = neighbours(s, (size_t)x, nb);
    for (size_t k = 0; k < m; k++)
        if (b->state[nb[k]] == SEARCH_DONE && s->nnew[nb[k]])
            s->nnew[nb[k]]--;
    search_book_propose(b, (size_t)x);
    *index = (size_t)x;
    return CUTUNE_NEXT_READY;
}

static void pf_feedback(void *state, size_t index, CutuneStatus status, double median_ms)
{
    Portfolio *s = state;
    SearchBook *b = &s->base.b;
    if (!search_book_feedback(b, index, status, median_ms))
        return;
    double c = b->cost[index];
    s->nfinite += isfinite(c);
    s->nfed++;
    search_model_add(&s->model, index, c);
    s->model_stale = 1;
    search_sorted_insert(s->measured, &s->nmeasured, b->cost, index);
    size_t *nb = s->base.nb, m = neighbours(s, index, nb);
    uint32_t fresh = 0;
    for (size_t k = 0; k < m; k++) {
        size_t y = nb[k];
        if (b->state[y] == SEARCH_NEW)
            fresh++;
        else if (b->state[y] == SEARCH_DONE && b->cost[y] < c)
            s->dom[index] = 1;
        else if (b->state[y] == SEARCH_DONE && c < b->cost[y])
            s->dom[y] = 1;
    }
    s->nnew[index] = fresh;
}

SEARCH_OPS(cutune_strategy_portfolio, "portfolio",
           "local search from the best local optima (one parameter to any value), an "
           "additive model's picks near the best, and random configs; fills the pipeline",
           pf_create, pf_next, pf_feedback, pf_destroy);
