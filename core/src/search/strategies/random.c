/* Random sampling without replacement: a seeded Fisher-Yates shuffle of the valid configs,
 * after the warm start's configs. */
#include "search.h"

#include <stdlib.h>

static int rnd_create(const CutuneStrategyArgs *a, void **state)
{
    return search_list_create(a, 1, state);
}

const CutuneStrategyOps cutune_strategy_random = {
    .name = "random",
    .summary = "configs drawn at random without replacement (seeded), after the warm start",
    .create = rnd_create,
    .next = search_list_next,
    .feedback = search_list_feedback,
    .destroy = free,
};
