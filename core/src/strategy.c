/* The table of strategies. A new strategy is one file under strategies/ and one line here. */
#include "strategy.h"

#include <string.h>

const CutuneStrategyOps *const cutune_strategy_list[] = {
    &cutune_strategy_exhaustive,
    &cutune_strategy_random,
    &cutune_strategy_annealing,
    &cutune_strategy_genetic,
    &cutune_strategy_ils,
    &cutune_strategy_tpe,
    NULL,
};

const CutuneStrategyOps *cutune_strategy_find(const char *name)
{
    for (size_t i = 0; cutune_strategy_list[i]; i++)
        if (strcmp(cutune_strategy_list[i]->name, name) == 0)
            return cutune_strategy_list[i];
    return NULL;
}
