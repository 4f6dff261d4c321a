/* Simulated annealing on the parameter grid.
 *
 * A walk from config to config, one parameter one level at a time, starting at the best
 * of a few random configs (measured as one batch). A move to a faster config is always
 * taken; a move to a slower one with probability exp(-d / T), where d is the log of the
 * ratio of the times (so the schedule does not depend on the scale of the times) and T
 * falls geometrically from T0 to T1 over the budget. A neighbour measured before is
 * judged for free. Unmeasured neighbours are proposed SA_BATCH at a time (so that the
 * tuner compiles them in parallel), all neighbours of the same config, and judged in the
 * order proposed once all are measured: on the synthetic landscapes this reached the
 * same fractions of the optimum from 100 evaluations on as one at a time, and about 0.02
 * less at 25. When the walk has wandered for long among measured configs, it goes back
 * to the best config found, or now and then to a random new one. Failed configs cost
 * +inf and are never moved onto. */
#include "search.h"

#include <math.h>
#include <stdlib.h>

#define SA_T0 0.1
#define SA_T1 0.002
enum { SA_FREE_MOVES = 64, SA_START_SAMPLE = 8, SA_BATCH = 4 };

typedef struct {
    SearchGrid g;
    SearchBook b;
    SearchRng rng;
    size_t budget;
    long cur;   /* where the walk stands; -1 before the start */
    int started;
    size_t cand[SA_BATCH], ncand; /* proposed neighbours whose times decide the next moves */
    size_t *nb;
    size_t sample[SA_START_SAMPLE], nsample;
} Anneal;

static void sa_destroy(void *state)
{
    Anneal *s = state;
    if (!s)
        return;
    search_grid_free(&s->g);
    search_book_free(&s->b);
    free(s->nb);
    free(s);
}

static int sa_create(const CutuneStrategyArgs *a, void **state)
{
    Anneal *s = calloc(1, sizeof *s);
    if (!s)
        return CUTUNE_ERR_NOMEM;
    s->rng.x = a->seed ^ 0x5a000000ULL;
    s->budget = a->budget ? a->budget : a->configs->nconfigs;
    s->cur = -1;
    int rc = search_grid_build(a->configs, &s->g);
    if (!rc)
        rc = search_book_init(&s->b, a->configs->nconfigs, &s->rng);
    if (!rc)
        rc = search_book_start(&s->b, a);
    if (!rc && !(s->nb = malloc((2 * a->configs->nparams + 1) * sizeof *s->nb)))
        rc = CUTUNE_ERR_NOMEM;
    if (rc) {
        sa_destroy(s);
        return rc;
    }
    *state = s;
    return 0;
}

static double temperature(const Anneal *s)
{
    double t = (double)s->b.proposed / (double)(s->budget > 1 ? s->budget : 1);
    return SA_T0 * pow(SA_T1 / SA_T0, t < 1 ? t : 1);
}

/* Metropolis: move from cur to x? */
static int accept(Anneal *s, long x)
{
    double cx = s->b.cost[x], cc = s->b.cost[s->cur];
    if (!isfinite(cx))
        return 0;
    if (cx <= cc)
        return 1;
    return search_rng_unit(&s->rng) < exp(-log(cx / cc) / temperature(s));
}

static void sa_step(void *state)
{
    Anneal *s = state;
    SearchBook *b = &s->b;
    if (s->nsample) { /* the start: the best of a random sample */
        for (size_t k = 0; k < s->nsample; k++)
            if (isfinite(b->cost[s->sample[k]]) &&
                (s->cur < 0 || b->cost[s->sample[k]] < b->cost[s->cur]))
                s->cur = (long)s->sample[k];
        s->nsample = 0;
    }
    if (!s->started) {
        s->started = 1;
        if (b->best >= 0) /* the warm start's best */
            s->cur = b->best;
    }
    if (s->cur < 0 && s->ncand == 0 && b->proposed == b->nstart) {
        while (s->nsample < SA_START_SAMPLE) {
            long r = search_book_random_new(b);
            if (r < 0)
                break;
            search_book_queue(b, (size_t)r);
            s->sample[s->nsample++] = (size_t)r;
        }
        return;
    }
    /* judge the candidates in the order they were proposed */
    for (size_t k = 0; k < s->ncand; k++)
        if (s->cur < 0 || !isfinite(b->cost[s->cur]) || accept(s, (long)s->cand[k]))
            s->cur = (long)s->cand[k];
    s->ncand = 0;
    if (s->cur < 0 || !isfinite(b->cost[s->cur])) {
        long r = search_book_random_new(b);
        if (r >= 0 && search_book_queue(b, (size_t)r))
            s->cand[s->ncand++] = (size_t)r;
        return;
    }
    for (int moves = 0; moves < SA_FREE_MOVES; moves++) {
        size_t m = search_grid_neighbours(&s->g, (size_t)s->cur, s->nb);
        if (m == 0)
            break;
        long x = (long)s->nb[search_rng_below(&s->rng, m)];
        if (b->state[x] == SEARCH_NEW) {
            /* this one, and a few more new neighbours of the same config, in random order,
             * so that the tuner can compile them at once */
            search_book_queue(b, (size_t)x);
            s->cand[s->ncand++] = (size_t)x;
            for (size_t k = m; k > 1; k--) {
                size_t j = search_rng_below(&s->rng, k), t = s->nb[k - 1];
                s->nb[k - 1] = s->nb[j];
                s->nb[j] = t;
            }
            for (size_t k = 0; k < m && s->ncand < SA_BATCH; k++)
                if (search_book_queue(b, s->nb[k]))
                    s->cand[s->ncand++] = s->nb[k];
            return;
        }
        if (accept(s, x))
            s->cur = x;
    }
    /* every config near the walk is measured: jump */
    long r = search_book_random_new(b);
    if (b->best >= 0 && search_rng_unit(&s->rng) < 0.8) {
        s->cur = b->best;
        size_t m = search_grid_neighbours(&s->g, (size_t)s->cur, s->nb);
        for (size_t k = 0; k < m; k++)
            if (search_book_queue(b, s->nb[k])) {
                s->cand[s->ncand++] = s->nb[k];
                return;
            }
    }
    if (r >= 0 && search_book_queue(b, (size_t)r)) {
        s->cur = -1;
        s->cand[s->ncand++] = (size_t)r;
    }
}

static int sa_next(void *state, size_t *index)
{
    Anneal *s = state;
    return search_next(&s->b, index, sa_step, s);
}

static void sa_feedback(void *state, size_t index, CutuneStatus status, double median_ms)
{
    Anneal *s = state;
    search_book_feedback(&s->b, index, status, median_ms);
}

const CutuneStrategyOps cutune_strategy_annealing = {
    .name = "annealing",
    .summary = "simulated annealing over neighbours (one parameter one step), geometric "
               "cooling over the budget",
    .create = sa_create,
    .next = sa_next,
    .feedback = sa_feedback,
    .destroy = sa_destroy,
};
