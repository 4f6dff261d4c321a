/* Exhaustive search: every valid config in enumeration order (until the budget). */
#include "../strategy.h"

#include <stdlib.h>

typedef struct {
    size_t next, count;
} Exhaustive;

static int ex_create(const CutuneStrategyArgs *a, void **state)
{
    Exhaustive *s = calloc(1, sizeof *s);
    if (!s)
        return CUTUNE_ERR_NOMEM;
    s->count = a->configs->nconfigs;
    *state = s;
    return 0;
}

static int ex_next(void *state, size_t *index)
{
    Exhaustive *s = state;
    if (s->next >= s->count)
        return CUTUNE_NEXT_DONE;
    *index = s->next++;
    return CUTUNE_NEXT_READY;
}

static void ex_feedback(void *state, size_t index, CutuneStatus status, double median_ms)
{
    (void)state, (void)index, (void)status, (void)median_ms;
}

const CutuneStrategyOps cutune_strategy_exhaustive = {
    .name = "exhaustive",
    .summary = "every valid config, in the order of the space file",
    .create = ex_create,
    .next = ex_next,
    .feedback = ex_feedback,
    .destroy = free,
};
