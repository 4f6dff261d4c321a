/* Random sampling without replacement: a seeded Fisher-Yates shuffle of the valid configs,
 * after the warm start's configs. */
#include "search.h"

#include <stdlib.h>

static int rnd_create(const CutuneStrategyArgs *a, void **state)
{
    return search_list_create(a, 1, state);
}

SEARCH_LIST_OPS(cutune_strategy_random, "random",
                "configs drawn at random without replacement (seeded), after the warm start",
                rnd_create);
