/* A genetic algorithm on the parameter grid.
 *
 * A population of configs; each generation breeds children from parents chosen by
 * tournament, by uniform crossover of their levels and a mutation of one level step per
 * parameter with probability 1/nparams (and a jump to a random level, rarely). A child
 * that is not a valid config is bred again; one measured before joins for free; the new
 * ones are proposed as one batch. The next population is the fastest distinct configs of
 * parents and children (elitist, mu + lambda). Failed configs cost +inf and so are the
 * first to go. When breeding finds nothing new, a random new config comes in instead. */
#include "search.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { GA_POP = 8, GA_CHILDREN = 4, GA_TOURNAMENT = 3, GA_TRIES = 50 };

typedef struct {
    SearchBase base; /* first: see search_base_create */
    size_t pop[GA_POP + GA_CHILDREN], npop;
    size_t kids[GA_CHILDREN], nkids;
    int started;
} Genetic;

static void ga_step(void *state);

static int ga_create(const CutuneStrategyArgs *a, void **state)
{
    return search_base_create(sizeof(Genetic), a, 0x6a000000ULL, ga_step, state);
}

static size_t tournament(Genetic *s)
{
    size_t best = s->pop[search_rng_below(&s->base.rng, s->npop)];
    for (int k = 1; k < GA_TOURNAMENT; k++) {
        size_t x = s->pop[search_rng_below(&s->base.rng, s->npop)];
        if (s->base.b.cost[x] < s->base.b.cost[best])
            best = x;
    }
    return best;
}

static int in_list(const size_t *list, size_t n, size_t x)
{
    for (size_t i = 0; i < n; i++)
        if (list[i] == x)
            return 1;
    return 0;
}

/* A valid child of two tournament winners, or -1 after GA_TRIES failures. */
static long breed(Genetic *s)
{
    const SearchGrid *g = &s->base.g;
    size_t p = g->nparams;
    uint16_t lv[SEARCH_MAX_PARAMS];
    for (int t = 0; t < GA_TRIES; t++) {
        const uint16_t *a = &g->level[tournament(s) * p], *c = &g->level[tournament(s) * p];
        for (size_t j = 0; j < p; j++) {
            int v = (search_rng_u64(&s->base.rng) & 1) ? a[j] : c[j];
            int nl = (int)g->nlevels[j];
            if (search_rng_unit(&s->base.rng) * (double)p < 1.0) {
                if (search_rng_unit(&s->base.rng) < 0.1)
                    v = (int)search_rng_below(&s->base.rng, (size_t)nl);
                else
                    v += (search_rng_u64(&s->base.rng) & 1) ? 1 : -1;
            }
            lv[j] = (uint16_t)(v < 0 ? 0 : v >= nl ? nl - 1 : v);
        }
        long x = search_grid_find(g, lv);
        if (x >= 0)
            return x;
    }
    return -1;
}

static int by_cost(const void *x, const void *y, void *user)
{
    const double *cost = user;
    double a = cost[*(const size_t *)x], b = cost[*(const size_t *)y];
    if (a < b)
        return -1;
    if (a > b)
        return 1;
    return (*(const size_t *)x > *(const size_t *)y) - (*(const size_t *)x < *(const size_t *)y);
}

/* Sort by cost (ties by index, so that the order is reproducible); insertion sort: the
 * lists are a few dozen long. */
static void sort_by_cost(size_t *v, size_t n, const double *cost)
{
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && by_cost(&v[j - 1], &v[j], (void *)cost) > 0; j--) {
            size_t t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
}

static void ga_step(void *state)
{
    Genetic *s = state;
    SearchBook *b = &s->base.b;
    if (!s->started) { /* the warm start's configs are the first parents */
        s->started = 1;
        for (size_t k = 0; k < b->nstart && s->npop < GA_POP + GA_CHILDREN; k++)
            s->pop[s->npop++] = b->start[k];
    }
    /* the children of the last generation are measured: select the next population */
    for (size_t i = 0; i < s->nkids; i++)
        if (!in_list(s->pop, s->npop, s->kids[i]))
            s->pop[s->npop++] = s->kids[i];
    s->nkids = 0;
    sort_by_cost(s->pop, s->npop, b->cost);
    if (s->npop > GA_POP)
        s->npop = GA_POP;
    if (s->npop < GA_POP) { /* the first generation, or a space with few valid configs */
        size_t want = GA_POP - s->npop < GA_CHILDREN ? GA_POP - s->npop : GA_CHILDREN;
        s->nkids = search_book_queue_random(b, s->kids, 0, want);
        if (s->nkids)
            return;
    }
    if (s->npop == 0)
        return;
    for (int t = 0; t < 4 * GA_CHILDREN && s->nkids < GA_CHILDREN; t++) {
        long x = breed(s);
        if (x < 0 || in_list(s->kids, s->nkids, (size_t)x))
            continue;
        if (b->state[x] == SEARCH_NEW)
            search_book_queue(b, (size_t)x);
        else if (in_list(s->pop, s->npop, (size_t)x) || b->state[x] != SEARCH_DONE)
            continue;
        s->kids[s->nkids++] = (size_t)x;
    }
    if (b->blen == 0) { /* nothing new bred: an immigrant */
        long r = search_book_random_new(b);
        if (r >= 0 && s->nkids < GA_CHILDREN) {
            search_book_queue(b, (size_t)r);
            s->kids[s->nkids++] = (size_t)r;
        }
    }
}

SEARCH_BASE_OPS(cutune_strategy_genetic, "genetic",
                "genetic algorithm: tournament selection, uniform crossover, one-step "
                "mutations, elitist population",
                ga_create);
