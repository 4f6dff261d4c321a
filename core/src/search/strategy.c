/* The table of strategies, and a tuner's call for the next proposal. A new strategy is one
 * file under strategies/ and one line here. */
#include "strategy.h"

#include <stdio.h>
#include <string.h>

const CutuneStrategyOps *const cutune_strategy_list[] = {
    &cutune_strategy_exhaustive, &cutune_strategy_random,
    &cutune_strategy_annealing,  &cutune_strategy_genetic,
    &cutune_strategy_ils,        &cutune_strategy_tpe,
    &cutune_strategy_portfolio,  NULL,
};

/* Portfolio keeps the pipeline full (one proposal per result) but for a short search, where
 * it keeps fewer in flight so that its proposals see results; in replays of spaces recorded
 * elsewhere its methodology score is well above that of annealing, the default before it
 * (bench/RESULTS.md, "Search on foreign spaces (replay)"). With no budget (a time limit) it
 * fills the pipeline and plans over nothing, so it serves a time limit as well. */
const char *const cutune_strategy_default_search = "portfolio";
const char *const cutune_strategy_default_timed = "portfolio";

int cutune_strategy_next(const CutuneStrategyOps *ops, void *state, size_t *index, int *done)
{
    int k = ops->next(state, index);
    if (k == CUTUNE_NEXT_DONE)
        *done = 1;
    return k == CUTUNE_NEXT_READY;
}

const CutuneStrategyOps *cutune_strategy_find(const char *name)
{
    for (size_t i = 0; cutune_strategy_list[i]; i++)
        if (strcmp(cutune_strategy_list[i]->name, name) == 0)
            return cutune_strategy_list[i];
    return NULL;
}

const char *cutune_strategy_choose(const char *named, size_t budget, double time_limit_s,
                                   size_t nvalid, char *why, size_t len)
{
    if (why && len)
        why[0] = '\0';
    if (named)
        return named;
    int over = budget && budget < nvalid;
    if (!over && !(time_limit_s > 0))
        return "exhaustive";
    const char *s = over ? cutune_strategy_default_search : cutune_strategy_default_timed;
    if (why && len) {
        if (over)
            snprintf(why, len,
                     "strategy %s, since the budget of %zu evaluations is less than "
                     "the %zu valid configs (it did best in replays of recorded spaces: "
                     "`cutune replay`); --strategy chooses another",
                     s, budget, nvalid);
        else
            snprintf(why, len,
                     "strategy %s, since a time limit may not cover the %zu valid "
                     "configs (with no budget to plan over, it did best in replays of recorded "
                     "spaces: `cutune replay`); --strategy chooses another",
                     s, nvalid);
    }
    return s;
}
