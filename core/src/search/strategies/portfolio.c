/* The default search: a portfolio of kinds of proposal (arms), shared by how each has paid
 * off so far in this run (bandit.h), one proposal per call of next().
 *
 * - The warm start first (configs known to be good elsewhere: other sizes, other GPUs of the
 *   architecture, the space's .known list), then, until a few results are in, a
 *   space-filling design (design.h) rather than random configs: no two of them near copies
 *   of each other, so the first results say something about more of the space.
 * - Local search around the best configs: an unproposed neighbour (one parameter changed to
 *   any of its values: 15 to 45 configs on the recorded spaces, which fills a pipeline on
 *   its own and crosses the valleys that trap one-level steps) of one of the best measured
 *   configs. The parents are the best config of each of the PF_ELITES best basins (a config
 *   within PF_NICHE - 1 parameters of a better parent is in its basin), the best one most
 *   often; one whose neighbours were all proposed is done. So the search polishes the
 *   incumbent, and once its basin is exhausted it goes on from the best of another one.
 * - A model: an additive fit of log-time over the parameter levels (model.h), refitted at
 *   each of its proposals; it proposes the config it predicts fastest among those at most
 *   PF_TRUST_RADIUS parameters away from the best so far (a trust region: the model is
 *   rough, and far from the data it is wrong), which jumps several parameters at once where
 *   local search needs one round of feedback per parameter.
 * - A global pick: the new config of highest TPE score (density.h), where the levels of the
 *   fastest configs so far come together, wherever that is in the space: a restart into the
 *   region the results point to, away from the incumbent's basin. The good configs are the
 *   fastest two (SEARCH_GLOBAL_GOOD), so the pick follows the levels the very best share.
 * - Exploration that no model steers: of PF_EXPLORE_POOL random new configs, the one that
 *   brings the most pairs of parameter levels never proposed together (design.h). Where
 *   two levels pay off only together (pnpoly's tile_size = 1 with use_precomputed_slopes =
 *   1: either alone is slow, so neither the model nor a one-parameter step goes there),
 *   that pair is tried far sooner than by random draws.
 * An arm pays off when its config is the best measured so far when its result comes. The arm that keeps paying gets most proposals; one that stopped paying (a
 * model that no longer predicts gains, a basin that is exhausted) falls to its floor. The
 * last proposals of the budget, whose results no later proposal can use, are not random.
 * Failed configs cost +inf: never a parent, and the model counts them as slow.
 *
 * A proposal made before the results of the ones in flight is partly blind; with the
 * tuner's 18 in flight, a search of 25 evaluations would be mostly blind. So, when the
 * budget does not cover the space, at most max(PF_MIN_INFLIGHT, budget / PF_INFLIGHT_DIV)
 * proposals are in flight: every one from 144 evaluations up on a 16-core host, fewer for a
 * shorter search (a time limit without a budget, and a budget that covers the space, fill
 * the pipeline).
 *
 * Replays of the 12 spaces recorded by others (the methodology score of `cutune replay
 * --score`, mean over the spaces, window 18; bench/search_eval.py, 2026-11-27, whose table
 * is in bench/RESULTS.md, "Search on foreign spaces (replay)", with what was tried since and
 * not kept) chose these
 * settings: the limit on proposals in flight took it from 0.753 to 0.776 (20 seeds); the
 * global picks and the bandit from 0.729 to 0.750 (20 seeds; a fixed share of 30% model,
 * 60% local, 10% random before); the maximin design 0.772 where a design balancing each
 * parameter's levels made 0.761 (it over-proposes the levels few valid configs have) and
 * random configs 0.772 (30 seeds); paying off as the best so far 0.776 and 0.748 where
 * "among the best three" made 0.772 and 0.746 (seeds 1-30 and 101-130). A trust radius of 2
 * or 4 found the single fast config of sch22-convolution-a100 within 1750 evaluations in 9
 * to 11 of 40 seeds, 3 in 32; parents from several basins helped the plateaus of the sch22
 * GEMM and pnpoly spaces on the TITAN RTX (0.846 to 0.874 and 0.523 to 0.543, 20 seeds)
 * for 0.006 of the mean (0.776 to 0.770), within the seeds' noise. Exploring by pairs of
 * levels with a floor of 0.15, where random configs had 0.05, took the mean from 0.776 to
 * 0.785 (seeds 1-30) and from 0.748 to 0.762 (seeds 101-130), sch22-convolution-a100 most
 * (0.47 to 0.55); pairs with a floor of 0.05 or 0.25, and pairs in the first design too,
 * made 0.771 to 0.776. The global pick's good configs as the fastest 2, where the fastest 15%
 * (at least 3) were, took it from 0.785 to 0.787 (seeds 1-30) and from 0.762 to 0.793 (seeds
 * 101-130), sch22-pnpoly-a100 most (0.33 to 0.43, 0.09 to 0.39); over 10 other blocks of 30
 * seeds (bench/search_compare.py, seeds 1001-1300) from 0.773 to 0.795, higher in each block,
 * sch22-pnpoly-titan_rtx too (0.559 to 0.605: its fall on seeds 1-30, 0.60 to 0.51, is the
 * seeds'), at a cost of about 0.01 on sch22-gemm-titan_rtx. The fastest 1, the fastest 5, and
 * the fastest 2% (at least 3) made 0.785 / 0.775, 0.785 / 0.759 and 0.786 / 0.788; a second
 * global arm or half the global picks with the fastest 15% gave back most of the gain. */
#include "bandit.h"
#include "density.h"
#include "design.h"
#include "model.h"
#include "search.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { ARM_ELITE, ARM_MODEL, ARM_GLOBAL, ARM_EXPLORE, NARMS, ARM_START = NARMS, ARM_DESIGN };
enum {
    PF_MIN_KNOWN = 8,      /* ok results before anything but the design */
    PF_TRUST_RADIUS = 3,   /* the model's picks: at most this many parameters from the best */
    PF_ELITES = 3,         /* local search: parents from this many basins */
    PF_NICHE = 2,          /* a config within NICHE - 1 parameters of a parent is its basin's */
    PF_DESIGN_POOL = 32,   /* the design picks from this many random new configs */
    PF_EXPLORE_POOL = 64,  /* exploration picks from this many */
    PF_REWARD_TOP = 1,     /* an arm pays off with a config that is the best measured */
    PF_MIN_GOOD = 3,       /* the global pick: not before 3 results */
    PF_BANDIT_WINDOW = 24, /* an arm's rate of payoff: over its last 24 outcomes */
    PF_MIN_INFLIGHT = 4,
    PF_INFLIGHT_DIV = 8,
};
#define PF_ELITE_DECAY 0.35 /* the next basin's parent is proposed from this much less often */
/* The arms' floors: local search, model, global, exploration. */
static const double pf_floors[NARMS] = {0.2, 0.1, 0.1, 0.15};

typedef struct {
    SearchBase base; /* first: see search_base_create */
    SearchModel model;
    SearchDensity density;
    SearchDesign design;
    SearchBandit bandit;
    int model_stale;
    size_t density_at; /* nmeasured when density was fitted */
    size_t nfinite, nfed;
    size_t *measured, nmeasured; /* sorted by (cost, index) */
    uint32_t *nnew;              /* of a measured config: neighbours not yet proposed */
    uint8_t *arm;                /* per config: the arm that proposed it */
    size_t inflight;             /* at most this many proposals without a result */
} Portfolio;

static void pf_destroy(void *state)
{
    Portfolio *s = state;
    if (!s)
        return;
    search_model_free(&s->model);
    search_design_free(&s->design);
    search_density_free(&s->density);
    free(s->measured);
    free(s->nnew);
    free(s->arm);
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
    if ((rc = search_design_init(&s->design, &s->base.g)) == 0 &&
        (rc = search_model_init(&s->model, &s->base.g)) == 0 &&
        (rc = search_density_init(&s->density, &s->base.g)) == 0) {
        s->measured = malloc((n + 1) * sizeof *s->measured);
        s->nnew = calloc(n + 1, sizeof *s->nnew);
        s->arm = calloc(n + 1, 1);
        if (!s->measured || !s->nnew || !s->arm)
            rc = CUTUNE_ERR_NOMEM;
    }
    if (rc) {
        pf_destroy(s);
        return rc;
    }
    search_bandit_init(&s->bandit, NARMS, pf_floors, PF_BANDIT_WINDOW);
    s->inflight = s->base.parallel;
    if (s->base.budget < n) {
        size_t w = (s->base.budget + PF_INFLIGHT_DIV - 1) / PF_INFLIGHT_DIV;
        w = w > PF_MIN_INFLIGHT ? w : PF_MIN_INFLIGHT;
        s->inflight = w < s->inflight ? w : s->inflight;
    }
    *state = s;
    return 0;
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

/* The global pick: the new config of highest TPE score, the first in random's order of
 * equals; -1 before there are a few results. */
static long global_pick(Portfolio *s)
{
    SearchBook *b = &s->base.b;
    if (s->nmeasured <= PF_MIN_GOOD)
        return -1;
    if (s->density_at != s->nmeasured) {
        search_density_fit(&s->density, s->measured, s->nmeasured, b->cost, 0, SEARCH_GLOBAL_GOOD);
        s->density_at = s->nmeasured;
    }
    long pick = -1;
    double pv = -INFINITY;
    for (size_t k = b->cursor; k < b->n; k++) {
        size_t i = b->order[k];
        if (b->state[i] != SEARCH_NEW)
            continue;
        double v = search_density_score(&s->density, i);
        if (v > pv) {
            pv = v;
            pick = (long)i;
        }
    }
    return pick;
}

static size_t distance(const SearchGrid *g, size_t a, size_t c)
{
    size_t p = g->nparams, d = 0;
    for (size_t j = 0; j < p; j++)
        d += g->level[a * p + j] != g->level[c * p + j];
    return d;
}

/* Local search's pick: an unproposed neighbour, at random, of a parent: the best measured
 * config of one of the PF_ELITES best basins that still has unproposed neighbours, the
 * r-th of them with weight PF_ELITE_DECAY^r. */
static long local_pick(Portfolio *s)
{
    SearchBook *b = &s->base.b;
    const SearchGrid *g = &s->base.g;
    size_t parent[PF_ELITES], np = 0;
    for (size_t r = 0; r < s->nmeasured && np < PF_ELITES; r++) {
        size_t h = s->measured[r];
        if (!isfinite(b->cost[h]))
            break;
        int near = 0;
        for (size_t q = 0; q < np && !near; q++)
            near = distance(g, h, parent[q]) < PF_NICHE;
        if (s->nnew[h] && !near)
            parent[np++] = h;
    }
    if (np == 0)
        return -1;
    double u = search_rng_unit(&s->base.rng), w = 1, tot = 0;
    for (size_t q = 0; q < np; q++, w *= PF_ELITE_DECAY)
        tot += w;
    u *= tot;
    size_t at = 0;
    for (w = 1; at + 1 < np && u >= w; at++, w *= PF_ELITE_DECAY)
        u -= w;
    size_t *nb = s->base.nb, m = search_grid_moves(g, parent[at], nb), c = 0;
    for (size_t k = 0; k < m; k++)
        if (b->state[nb[k]] == SEARCH_NEW)
            nb[c++] = nb[k];
    return c ? (long)nb[search_rng_below(&s->base.rng, c)] : -1;
}

/* An informed proposal: the arm the bandit draws, falling back on the others in turn when
 * it has nothing to propose. */
static long informed(Portfolio *s, int *arm)
{
    SearchBook *b = &s->base.b;
    uint8_t off[NARMS] = {0};
    /* no exploration where its result would come too late to be of use */
    off[ARM_EXPLORE] = b->proposed + s->inflight >= s->base.budget;
    size_t first = search_bandit_choose(&s->bandit, off, search_rng_unit(&s->base.rng));
    for (size_t k = 0; k < NARMS; k++) {
        int a = (int)((first + k) % NARMS);
        long x = a == ARM_ELITE    ? local_pick(s)
                 : a == ARM_MODEL  ? model_pick(s)
                 : a == ARM_GLOBAL ? global_pick(s)
                                   : search_design_pick_pairs(&s->design, b, PF_EXPLORE_POOL);
        if (x >= 0) {
            *arm = a;
            return x;
        }
    }
    return -1;
}

static int pf_next(void *state, size_t *index)
{
    Portfolio *s = state;
    SearchBook *b = &s->base.b;
    long x = -1;
    int arm = ARM_EXPLORE;
    if (b->pending >= s->inflight)
        return CUTUNE_NEXT_WAIT;
    if (b->bhead < b->blen) { /* the warm start, in its order */
        x = (long)b->batch[b->bhead++];
        b->state[x] = SEARCH_NEW;
        arm = ARM_START;
    } else if (s->nfinite >= PF_MIN_KNOWN || (b->nstart && s->nfed >= b->nstart && s->nfinite)) {
        x = informed(s, &arm);
    } else {
        x = search_design_pick(&s->design, b, PF_DESIGN_POOL);
        arm = ARM_DESIGN;
    }
    if (x < 0)
        x = search_book_random_new(b);
    if (x < 0)
        return CUTUNE_NEXT_DONE;
    /* the measured neighbours of x have one unproposed neighbour fewer */
    size_t *nb = s->base.nb, m = search_grid_moves(&s->base.g, (size_t)x, nb);
    for (size_t k = 0; k < m; k++)
        if (b->state[nb[k]] == SEARCH_DONE && s->nnew[nb[k]])
            s->nnew[nb[k]]--;
    search_design_add(&s->design, (size_t)x);
    s->arm[x] = (uint8_t)arm;
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
    if (s->arm[index] < NARMS) { /* did it pay off: the best so far? */
        size_t r = 0;
        while (r < PF_REWARD_TOP && r < s->nmeasured && s->measured[r] != index)
            r++;
        search_bandit_record(&s->bandit, s->arm[index], isfinite(c) && r < PF_REWARD_TOP);
    }
    size_t *nb = s->base.nb, m = search_grid_moves(&s->base.g, index, nb);
    uint32_t fresh = 0;
    for (size_t k = 0; k < m; k++)
        fresh += b->state[nb[k]] == SEARCH_NEW;
    s->nnew[index] = fresh;
}

SEARCH_OPS(cutune_strategy_portfolio, "portfolio",
           "local search from the best configs of the best basins (one parameter to any "
           "value), an additive model's picks near the best, TPE's global picks and "
           "configs with pairs of levels not yet tried together, shared by how each pays off; "
           "a space-filling design first",
           pf_create, pf_next, pf_feedback, pf_destroy);
