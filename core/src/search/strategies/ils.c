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

enum { ILS_WALK = 2, ILS_PATIENCE = 2, ILS_FREE_MOVES = 10000, ILS_BATCH = 4,
       ILS_START_SAMPLE = 8, ILS_RESTART_SAMPLE = 4 };

typedef struct {
    SearchGrid g;
    SearchBook b;
    SearchRng rng;
    long cur;     /* the config local search stands on, -1 before a start */
    long home;    /* the best local optimum of this restart */
    int misses;   /* perturbations since home last improved */
    int started;
    size_t sample[ILS_START_SAMPLE], nsample; /* random configs to start from the best of */
    size_t *nb;
} Ils;

static void ils_destroy(void *state)
{
    Ils *s = state;
    if (!s)
        return;
    search_grid_free(&s->g);
    search_book_free(&s->b);
    free(s->nb);
    free(s);
}

static int ils_create(const CutuneStrategyArgs *a, void **state)
{
    Ils *s = calloc(1, sizeof *s);
    if (!s)
        return CUTUNE_ERR_NOMEM;
    s->rng.x = a->seed ^ 0x11500000ULL;
    s->cur = s->home = -1;
    int rc = search_grid_build(a->configs, &s->g);
    if (!rc)
        rc = search_book_init(&s->b, a->configs->nconfigs, &s->rng);
    if (!rc)
        rc = search_book_start(&s->b, a);
    if (!rc && !(s->nb = malloc((2 * a->configs->nparams + 1) * sizeof *s->nb)))
        rc = CUTUNE_ERR_NOMEM;
    if (rc) {
        ils_destroy(s);
        return rc;
    }
    *state = s;
    return 0;
}

/* A random walk of ILS_WALK steps over valid configs, measured or not. */
static long perturb(Ils *s, long from)
{
    long x = from;
    for (int k = 0; k < ILS_WALK; k++) {
        size_t m = search_grid_neighbours(&s->g, (size_t)x, s->nb);
        if (m == 0)
            break;
        x = (long)s->nb[search_rng_below(&s->rng, m)];
    }
    return x;
}

static void ils_step(void *state)
{
    Ils *s = state;
    SearchBook *b = &s->b;
    if (!s->started) {
        s->started = 1;
        s->cur = b->best; /* the warm start's best, if any */
    }
    for (int moves = 0; moves < ILS_FREE_MOVES; moves++) {
        if (s->nsample) { /* a start: from the best of the random sample */
            long best = -1;
            for (size_t k = 0; k < s->nsample; k++)
                if (isfinite(b->cost[s->sample[k]]) && (best < 0 || b->cost[s->sample[k]] < b->cost[best]))
                    best = (long)s->sample[k];
            s->nsample = 0;
            s->cur = best;
            s->home = -1;
            s->misses = 0;
        }
        if (s->cur < 0 || !isfinite(b->cost[s->cur])) {
            /* start, or a start where every sample failed: sample random new configs */
            size_t want = b->proposed > b->nstart ? ILS_RESTART_SAMPLE : ILS_START_SAMPLE;
            while (s->nsample < want) {
                long r = search_book_random_new(b);
                if (r < 0)
                    break;
                search_book_queue(b, (size_t)r);
                s->sample[s->nsample++] = (size_t)r;
            }
            return;
        }
        size_t m = search_grid_neighbours(&s->g, (size_t)s->cur, s->nb);
        long best = -1;
        for (size_t k = 0; k < m; k++)
            if (b->state[s->nb[k]] == SEARCH_DONE && b->cost[s->nb[k]] < b->cost[s->cur] &&
                (best < 0 || b->cost[s->nb[k]] < b->cost[best]))
                best = (long)s->nb[k];
        if (best >= 0) { /* first improvement: move as soon as one is known */
            s->cur = best;
            continue;
        }
        /* measure up to ILS_BATCH unmeasured neighbours, in random order */
        for (size_t k = m; k > 1; k--) {
            size_t j = search_rng_below(&s->rng, k), t = s->nb[k - 1];
            s->nb[k - 1] = s->nb[j];
            s->nb[j] = t;
        }
        for (size_t k = 0; k < m && b->blen < ILS_BATCH; k++)
            search_book_queue(b, s->nb[k]);
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

static int ils_next(void *state, size_t *index)
{
    Ils *s = state;
    return search_next(&s->b, index, ils_step, s);
}

static void ils_feedback(void *state, size_t index, CutuneStatus status, double median_ms)
{
    Ils *s = state;
    search_book_feedback(&s->b, index, status, median_ms);
}

const CutuneStrategyOps cutune_strategy_ils = {
    .name = "ils",
    .summary = "greedy iterated local search: best neighbour (one parameter one step), "
               "perturbation at local optima, random restarts",
    .create = ils_create,
    .next = ils_next,
    .feedback = ils_feedback,
    .destroy = ils_destroy,
};
