/* The parts of the default search (core/src/search/strategies/portfolio.c): the bandit that
 * shares proposals between its arms by payoff, the space-filling design of its first
 * proposals, and how many proposals it keeps in flight. Needs no GPU. */
#include "check.h"
#include "replay.h"
#include "strategies/bandit.h"
#include "strategies/density.h"
#include "strategies/design.h"
#include "strategies/search.h"
#include "strategy.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* An arm that keeps paying gets most proposals; one that stopped paying falls to its floor
 * once its successes leave the window; an arm turned off gets none. */
static void bandit(void)
{
    const double floors[3] = {0.1, 0.1, 0.1};
    SearchBandit bd;
    double sh[3];
    search_bandit_init(&bd, 3, floors, 24);
    search_bandit_shares(&bd, NULL, sh);
    CHECK_MSG(fabs(sh[0] - 1.0 / 3) < 1e-12 && fabs(sh[2] - 1.0 / 3) < 1e-12,
              "no record yet: %g %g %g", sh[0], sh[1], sh[2]);
    for (int k = 0; k < 10; k++) {
        search_bandit_record(&bd, 0, 1);
        search_bandit_record(&bd, 1, 0);
    }
    search_bandit_shares(&bd, NULL, sh);
    /* rates (10.5 / 11, 0.5 / 11, 0.5 / 1): arm 0 leads, arm 1 is held at its floor */
    CHECK_MSG(sh[0] > sh[2] && sh[2] > sh[1] && sh[0] > 0.5, "%g %g %g", sh[0], sh[1], sh[2]);
    CHECK_MSG(fabs(sh[0] + sh[1] + sh[2] - 1) < 1e-12, "shares sum to %g", sh[0] + sh[1] + sh[2]);
    double floor1 = sh[1];
    CHECK_MSG(floor1 > 0.08 && floor1 < 0.1, "arm 1 at %g, its floor 0.1 renormalised", floor1);
    size_t got[3] = {0};
    for (int k = 0; k < 1000; k++)
        got[search_bandit_choose(&bd, NULL, (k + 0.5) / 1000)]++;
    for (int a = 0; a < 3; a++)
        CHECK_MSG(fabs((double)got[a] / 1000 - sh[a]) < 0.002, "arm %d drawn %zu of 1000, share %g",
                  a, got[a], sh[a]);
    /* arm 0 stops paying: 24 failures push its successes out of the window */
    for (int k = 0; k < 24; k++)
        search_bandit_record(&bd, 0, 0);
    search_bandit_shares(&bd, NULL, sh);
    CHECK_MSG(sh[0] < 0.1 && sh[2] > 0.8, "after 24 failures: %g %g %g", sh[0], sh[1], sh[2]);
    const uint8_t off[3] = {0, 0, 1};
    search_bandit_shares(&bd, off, sh);
    CHECK_MSG(sh[2] == 0 && fabs(sh[0] + sh[1] - 1) < 1e-12, "arm 2 off: %g %g %g", sh[0], sh[1],
              sh[2]);
    for (int k = 0; k < 100; k++)
        CHECK(search_bandit_choose(&bd, off, (k + 0.5) / 100) != 2);
}

/* Levels of each parameter that configs[0..n) cover. */
static size_t covered(const SearchGrid *g, const size_t *configs, size_t n)
{
    size_t total = 0;
    for (size_t j = 0; j < g->nparams; j++) {
        unsigned char seen[65536] = {0};
        for (size_t k = 0; k < n; k++)
            if (!seen[g->level[configs[k] * g->nparams + j]]++)
                total++;
    }
    return total;
}

/* The sum over configs[0..n) of how many parameters differ from the nearest other one. */
static size_t spread(const SearchGrid *g, const size_t *configs, size_t n)
{
    size_t total = 0, p = g->nparams;
    for (size_t a = 0; a < n; a++) {
        size_t near = p;
        for (size_t c = 0; c < n; c++) {
            size_t d = 0;
            for (size_t j = 0; j < p && c != a; j++)
                d += g->level[configs[a] * p + j] != g->level[configs[c] * p + j];
            if (c != a && d < near)
                near = d;
        }
        total += near;
    }
    return total;
}

/* A full grid of np parameters of nl levels each (at most 81 configs), its book shuffled
 * by seed, and a design on it. */
typedef struct {
    int64_t values[3 * 81];
    CutuneConfigList cl;
    SearchGrid g;
    SearchBook b;
    SearchDesign d;
} Design;

static void design_fixture(Design *t, size_t np, size_t nl, uint64_t seed)
{
    size_t n = 1;
    for (size_t j = 0; j < np; j++)
        n *= nl;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0, v = i; j < np; j++, v /= nl)
            t->values[i * np + np - 1 - j] = (int64_t)(v % nl);
    t->cl = (CutuneConfigList){.nparams = np, .nconfigs = n, .values = t->values};
    SearchRng rng = {seed};
    CHECK_EQ_INT(search_grid_build(&t->cl, &t->g), 0);
    CHECK_EQ_INT(search_book_init(&t->b, n, &rng), 0);
    CHECK_EQ_INT(search_design_init(&t->d, &t->g), 0);
}

/* On a full 4 x 4 grid, four design picks from the whole space are a Latin square: every
 * level of both parameters once (each pick differs from the others in both). Random picks
 * are one in 24 times. */
static void design_square(void)
{
    Design t;
    design_fixture(&t, 2, 4, 7);
    size_t pick[4];
    for (int k = 0; k < 4; k++) {
        long x = search_design_pick(&t.d, &t.b, 16);
        CHECK(x >= 0);
        if (x < 0)
            break;
        pick[k] = (size_t)x;
        search_design_add(&t.d, (size_t)x);
        search_book_propose(&t.b, (size_t)x);
    }
    CHECK_MSG(covered(&t.g, pick, 4) == 8, "4 design picks cover %zu of the 8 levels",
              covered(&t.g, pick, 4));
    search_design_free(&t.d);
    search_book_free(&t.b);
    search_grid_free(&t.g);
}

/* The pairs of levels of config i (of a full 3 x 3 x 3 grid) that no config of
 * done[0..n) has together. */
static size_t new_pairs(const SearchGrid *g, size_t i, const size_t *done, size_t n)
{
    size_t fresh = 0;
    for (size_t a = 0; a < 3; a++)
        for (size_t c = a + 1; c < 3; c++) {
            int seen = 0;
            for (size_t k = 0; k < n && !seen; k++)
                seen = g->level[done[k] * 3 + a] == g->level[i * 3 + a] &&
                       g->level[done[k] * 3 + c] == g->level[i * 3 + c];
            fresh += !seen;
        }
    return fresh;
}

/* Exploration by pairs: on a full 3 x 3 x 3 grid, each pick from the whole space brings as
 * many pairs of levels never proposed together as any new config does (counted here
 * independently), and 9 picks see at least 24 of the 27 pairs, where 9 random configs see 19.5 on average
 * Configs proposed by others (search_design_add) count as seen. */
static void design_pairs(void)
{
    Design t;
    design_fixture(&t, 3, 3, 11);
    size_t done[9], n = 0, seen = 0;
    for (; n < 9; n++) {
        long x = search_design_pick_pairs(&t.d, &t.b, 27);
        CHECK(x >= 0);
        if (x < 0)
            break;
        size_t most = 0;
        for (size_t i = 0; i < 27; i++)
            if (t.b.state[i] == SEARCH_NEW && new_pairs(&t.g, i, done, n) > most)
                most = new_pairs(&t.g, i, done, n);
        size_t got = new_pairs(&t.g, (size_t)x, done, n);
        CHECK_MSG(got == most, "pick %zu brings %zu new pairs where one brings %zu", n, got, most);
        seen += got;
        done[n] = (size_t)x;
        search_design_add(&t.d, (size_t)x);
        search_book_propose(&t.b, (size_t)x);
    }
    CHECK_MSG(seen >= 24, "9 picks see %zu of the 27 pairs of levels", seen);
    search_design_free(&t.d);
    search_book_free(&t.b);
    search_grid_free(&t.g);
}

/* The global pick's good configs are the fastest SEARCH_GLOBAL_GOOD measured. On a plateau
 * (an 8 x 8 grid: the two fastest configs at level 0 of the first parameter, the next seven
 * within 1% of them at level 2, six slow ones at level 0 too), the TPE score then ranks level
 * 0, the level of the very best, above level 2; with the fastest 15% as good (at least 3,
 * the setting before), level 2 outranks it, and the pick leaves the best configs' levels. */
static void global_good(void)
{
    Design t;
    design_fixture(&t, 2, 8, 1);
    double cost[64];
    size_t measured[64], m = 0;
    for (size_t i = 0; i < 64; i++) {
        size_t a = i / 8, c = i % 8; /* the levels: the first parameter's is the major one */
        cost[i] = 2 + 0.01 * (double)i;
        if (a == 0 && c < 2)
            cost[i] = 1 + 0.001 * (double)c;
        else if (a == 2 && c < 7)
            cost[i] = 1.002 + 0.001 * (double)c;
        search_sorted_insert(measured, &m, cost, i);
    }
    SearchDensity d;
    CHECK_EQ_INT(search_density_init(&d, &t.g), 0);
    /* configs (0, 7) and (2, 7): only the first parameter's level differs */
    search_density_fit(&d, measured, m, cost, 0, SEARCH_GLOBAL_GOOD);
    double best = search_density_score(&d, 7), near = search_density_score(&d, 2 * 8 + 7);
    CHECK_MSG(best > near, "the good ones the fastest %d: level 0 scores %g, level 2 %g",
              SEARCH_GLOBAL_GOOD, best, near);
    search_density_fit(&d, measured, m, cost, 0.15, 3);
    best = search_density_score(&d, 7), near = search_density_score(&d, 2 * 8 + 7);
    CHECK_MSG(best < near, "the good ones the fastest 15%%: level 0 scores %g, level 2 %g", best,
              near);
    search_density_free(&d);
    search_design_free(&t.d);
    search_book_free(&t.b);
    search_grid_free(&t.g);
}

/* The proposals a strategy makes before any result (at most max of them), into out. */
static size_t before_results(const CutuneStrategyOps *ops, const CutuneRecording *r, uint64_t seed,
                             size_t budget, size_t parallel, size_t *out, size_t max)
{
    CutuneStrategyArgs a = {.configs = &r->configs,
                            .seed = seed,
                            .budget = budget,
                            .parallel = parallel};
    void *st = NULL;
    size_t idx, k = 0;
    if (ops->create(&a, &st))
        return 0;
    while (k < max && ops->next(st, &idx) == CUTUNE_NEXT_READY)
        if (out)
            out[k++] = idx;
        else
            k++;
    ops->destroy(st);
    return k;
}

/* The default's first 18 proposals, before any result, against random's with the same seed,
 * on the synthetic landscape: farther from each other (the parameters that differ from the
 * nearest other proposal, summed) for every seed. */
static void design_first_window(const CutuneRecording *r, const SearchGrid *g)
{
    const CutuneStrategyOps *def = cutune_strategy_find(cutune_strategy_default_search);
    size_t with = 0, without = 0, n = r->configs.nconfigs;
    for (uint64_t seed = 1; seed <= 10; seed++) {
        size_t o1[18], o2[18];
        CHECK(before_results(def, r, seed, n, 18, o1, 18) == 18);
        CHECK(before_results(&cutune_strategy_random, r, seed, n, 18, o2, 18) == 18);
        size_t a = spread(g, o1, 18), c = spread(g, o2, 18);
        CHECK_MSG(a > c, "seed %llu: the design's spread %zu, random's %zu",
                  (unsigned long long)seed, a, c);
        with += a;
        without += c;
    }
    printf("  first 18 proposals over 10 seeds: spread %zu (random: %zu)\n", with, without);
}

/* How many proposals the default makes before a result, at this budget and window. */
static size_t ahead(const CutuneRecording *r, size_t budget, size_t parallel)
{
    const CutuneStrategyOps *def = cutune_strategy_find(cutune_strategy_default_search);
    return before_results(def, r, 1, budget, parallel, NULL, 1000);
}

/* A short search keeps fewer proposals in flight than the tuner allows (an eighth of its
 * budget, at least 4), so that most of its proposals see results; a longer one, a whole
 * space, and a search with no budget of its own fill the pipeline. */
static void in_flight(const CutuneRecording *r)
{
    size_t n = r->configs.nconfigs;
    CHECK_MSG(ahead(r, 25, 18) == 4, "budget 25: %zu ahead", ahead(r, 25, 18));
    CHECK_MSG(ahead(r, 40, 18) == 5, "budget 40: %zu ahead", ahead(r, 40, 18));
    CHECK_MSG(ahead(r, 100, 18) == 13, "budget 100: %zu ahead", ahead(r, 100, 18));
    CHECK_MSG(ahead(r, 144, 18) == 18, "budget 144: %zu ahead", ahead(r, 144, 18));
    CHECK_MSG(ahead(r, n, 18) == 18, "the whole space: %zu ahead", ahead(r, n, 18));
    CHECK_MSG(ahead(r, 0, 18) == 18, "no budget: %zu ahead", ahead(r, 0, 18));
    CHECK_MSG(ahead(r, 25, 1) == 1, "one at a time: %zu ahead", ahead(r, 25, 1));
}

int main(void)
{
    bandit();
    design_square();
    design_pairs();
    global_good();
    CutuneRecording r;
    CHECK_EQ_INT(cutune_landscape_generate(3, &r), 0);
    SearchGrid g;
    CHECK_EQ_INT(search_grid_build(&r.configs, &g), 0);
    design_first_window(&r, &g);
    in_flight(&r);
    search_grid_free(&g);
    cutune_recording_free(&r);
    return check_result("portfolio");
}
