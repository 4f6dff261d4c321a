/* Exhaustive search: the warm start's configs, then every other valid config in
 * enumeration order (until the budget). */
#include "search.h"

#include <stdlib.h>

static int ex_create(const CutuneStrategyArgs *a, void **state)
{
    return search_list_create(a, 0, state);
}

const CutuneStrategyOps cutune_strategy_exhaustive = {
    .name = "exhaustive",
    .summary = "every valid config, in the order of the space file (after the warm start)",
    .create = ex_create,
    .next = search_list_next,
    .feedback = search_list_feedback,
    .destroy = free,
};
