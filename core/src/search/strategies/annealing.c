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
    SearchBase base; /* first: see search_base_create */
    long cur;        /* where the walk stands; -1 before the start */
    int started;
    size_t cand[SA_BATCH], ncand; /* proposed neighbours whose times decide the next moves */
    size_t sample[SA_START_SAMPLE], nsample;
} Anneal;

static void sa_step(void *state);

static int sa_create(const CutuneStrategyArgs *a, void **state)
{
    int rc = search_base_create(sizeof(Anneal), a, 0x5a000000ULL, sa_step, state);
    if (rc == 0)
        ((Anneal *)*state)->cur = -1;
    return rc;
}

static double temperature(const Anneal *s)
{
    double t = (double)s->base.b.proposed / (double)(s->base.budget > 1 ? s->base.budget : 1);
    return SA_T0 * pow(SA_T1 / SA_T0, t < 1 ? t : 1);
}

/* Metropolis: move from cur to x? */
static int accept(Anneal *s, long x)
{
    double cx = s->base.b.cost[x], cc = s->base.b.cost[s->cur];
    if (!isfinite(cx))
        return 0;
    if (cx <= cc)
        return 1;
    return search_rng_unit(&s->base.rng) < exp(-log(cx / cc) / temperature(s));
}

static void sa_step(void *state)
{
    Anneal *s = state;
    SearchBook *b = &s->base.b;
    size_t *nb = s->base.nb;
    if (s->nsample) { /* the start (cur < 0 since): the best of a random sample */
        s->cur = search_book_best_of(b, s->sample, s->nsample);
        s->nsample = 0;
    }
    if (!s->started) {
        s->started = 1;
        if (b->best >= 0) /* the warm start's best */
            s->cur = b->best;
    }
    if (s->cur < 0 && s->ncand == 0 && b->proposed == b->nstart) {
        s->nsample = search_book_queue_random(b, s->sample, s->nsample, SA_START_SAMPLE);
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
        size_t m = search_grid_neighbours(&s->base.g, (size_t)s->cur, nb);
        if (m == 0)
            break;
        long x = (long)nb[search_rng_below(&s->base.rng, m)];
        if (b->state[x] == SEARCH_NEW) {
            /* this one, and a few more new neighbours of the same config, in random order,
             * so that the tuner can compile them at once */
            search_book_queue(b, (size_t)x);
            s->cand[s->ncand++] = (size_t)x;
            search_shuffle(nb, m, &s->base.rng);
            for (size_t k = 0; k < m && s->ncand < SA_BATCH; k++)
                if (search_book_queue(b, nb[k]))
                    s->cand[s->ncand++] = nb[k];
            return;
        }
        if (accept(s, x))
            s->cur = x;
    }
    /* every config near the walk is measured: jump */
    long r = search_book_random_new(b);
    if (b->best >= 0 && search_rng_unit(&s->base.rng) < 0.8) {
        s->cur = b->best;
        size_t m = search_grid_neighbours(&s->base.g, (size_t)s->cur, nb);
        for (size_t k = 0; k < m; k++)
            if (search_book_queue(b, nb[k])) {
                s->cand[s->ncand++] = nb[k];
                return;
            }
    }
    if (r >= 0 && search_book_queue(b, (size_t)r)) {
        s->cur = -1;
        s->cand[s->ncand++] = (size_t)r;
    }
}

SEARCH_BASE_OPS(cutune_strategy_annealing, "annealing",
                "simulated annealing over neighbours (one parameter one step), geometric "
                "cooling over the budget",
                sa_create);
