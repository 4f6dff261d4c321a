/* Exhaustive search: the warm start's configs, then every other valid config in
 * enumeration order (until the budget). */
#include "search.h"

#include <stdlib.h>

static int ex_create(const CutuneStrategyArgs *a, void **state)
{
    return search_list_create(a, 0, state);
}

SEARCH_LIST_OPS(cutune_strategy_exhaustive, "exhaustive",
                "every valid config, in the order of the space file (after the warm start)",
                ex_create);
