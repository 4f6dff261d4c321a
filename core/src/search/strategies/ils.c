/* Greedy iterated local search on the parameter grid.
 *
 * Each start is the best of a few random configs (so that the search begins in a good
 * basin more often than not).
 * Local search: measure the unmeasured neighbours of the current config (one parameter
 * one level away) in random order, a few at a time so that the tuner compiles them in
 * parallel, and move to the best neighbour known to be faster as soon as there is one
 * (first improvement); a neighbour measured before costs nothing. At a local
 * optimum, perturb: a short random walk from the best local optimum found so far, and
 * search locally from there. After a few perturbations that find nothing better, restart
 * from a random config, so that one basin cannot hold the search for ever. Failed
 * configs cost +inf: the search never moves onto one, nor expands its neighbours. */
#include "search.h"

#include <math.h>
#include <stdlib.h>

enum {
    ILS_WALK = 2,
    ILS_PATIENCE = 2,
    ILS_FREE_MOVES = 10000,
    ILS_BATCH = 4,
    ILS_START_SAMPLE = 8,
    ILS_RESTART_SAMPLE = 4
};

typedef struct {
    SearchBase base; /* first: see search_base_create */
    long cur;        /* the config local search stands on, -1 before a start */
    long home;       /* the best local optimum of this restart */
    int misses;      /* perturbations since home last improved */
    int started;
    size_t sample[ILS_START_SAMPLE], nsample; /* random configs to start from the best of */
} Ils;

static void ils_step(void *state);

static int ils_create(const CutuneStrategyArgs *a, void **state)
{
    int rc = search_base_create(sizeof(Ils), a, 0x11500000ULL, ils_step, state);
    if (rc == 0) {
        Ils *s = *state;
        s->cur = s->home = -1;
    }
    return rc;
}

/* A random walk of ILS_WALK steps over valid configs, measured or not. */
static long perturb(Ils *s, long from)
{
    long x = from;
    size_t *nb = s->base.nb;
    for (int k = 0; k < ILS_WALK; k++) {
        size_t m = search_grid_neighbours(&s->base.g, (size_t)x, nb);
        if (m == 0)
            break;
        x = (long)nb[search_rng_below(&s->base.rng, m)];
    }
    return x;
}

static void ils_step(void *state)
{
    Ils *s = state;
    SearchBook *b = &s->base.b;
    size_t *nb = s->base.nb;
    if (!s->started) {
        s->started = 1;
        s->cur = b->best; /* the warm start's best, if any */
    }
    for (int moves = 0; moves < ILS_FREE_MOVES; moves++) {
        if (s->nsample) { /* a start: from the best of the random sample */
            s->cur = search_book_best_of(b, s->sample, s->nsample);
            s->nsample = 0;
            s->home = -1;
            s->misses = 0;
        }
        if (s->cur < 0 || !isfinite(b->cost[s->cur])) {
            /* start, or a start where every sample failed: sample random new configs */
            size_t want = b->proposed > b->nstart ? ILS_RESTART_SAMPLE : ILS_START_SAMPLE;
            s->nsample = search_book_queue_random(b, s->sample, s->nsample, want);
            return;
        }
        size_t m = search_grid_neighbours(&s->base.g, (size_t)s->cur, nb);
        long best = -1;
        for (size_t k = 0; k < m; k++)
            if (b->state[nb[k]] == SEARCH_DONE && b->cost[nb[k]] < b->cost[s->cur] &&
                (best < 0 || b->cost[nb[k]] < b->cost[best]))
                best = (long)nb[k];
        if (best >= 0) { /* first improvement: move as soon as one is known */
            s->cur = best;
            continue;
        }
        /* measure up to ILS_BATCH unmeasured neighbours, in random order */
        search_shuffle(nb, m, &s->base.rng);
        for (size_t k = 0; k < m && b->blen < ILS_BATCH; k++)
            search_book_queue(b, nb[k]);
        if (b->blen)
            return; /* measure them, then come back here */
        /* a local optimum */
        if (s->home < 0 || b->cost[s->cur] < b->cost[s->home]) {
            s->home = s->cur;
            s->misses = 0;
        } else if (++s->misses > ILS_PATIENCE) {
            s->cur = -1;
            continue;
        }
        long x = perturb(s, s->home);
        if (b->state[x] == SEARCH_NEW) {
            s->cur = x;
            search_book_queue(b, (size_t)x);
            return;
        }
        s->cur = isfinite(b->cost[x]) ? x : s->home;
    }
}

SEARCH_BASE_OPS(cutune_strategy_ils, "ils",
                "greedy iterated local search: best neighbour (one parameter one step), "
                "perturbation at local optima, random restarts",
                ils_create);
