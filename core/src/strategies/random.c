/* Random sampling without replacement: a seeded Fisher-Yates shuffle of the valid configs. */
#include "../strategy.h"

#include <stdlib.h>

typedef struct {
    size_t next, count;
    size_t order[];
} Random;

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static int rnd_create(const CutuneStrategyArgs *a, void **state)
{
    size_t n = a->configs->nconfigs;
    Random *s = malloc(sizeof *s + n * sizeof(size_t));
    if (!s)
        return CUTUNE_ERR_NOMEM;
    s->next = 0;
    s->count = n;
    for (size_t i = 0; i < n; i++)
        s->order[i] = i;
    uint64_t x = a->seed;
    for (size_t i = n; i > 1; i--) {
        /* unbiased index in [0, i) by rejection */
        uint64_t limit = UINT64_MAX - UINT64_MAX % i, r;
        do
            r = splitmix64(&x);
        while (r >= limit);
        size_t j = (size_t)(r % i), t = s->order[i - 1];
        s->order[i - 1] = s->order[j];
        s->order[j] = t;
    }
    *state = s;
    return 0;
}

static int rnd_next(void *state, size_t *index)
{
    Random *s = state;
    if (s->next >= s->count)
        return CUTUNE_NEXT_DONE;
    *index = s->order[s->next++];
    return CUTUNE_NEXT_READY;
}

static void rnd_feedback(void *state, size_t index, CutuneStatus status, double median_ms)
{
    (void)state, (void)index, (void)status, (void)median_ms;
}

const CutuneStrategyOps cutune_strategy_random = {
    .name = "random",
    .summary = "configs drawn at random without replacement (seeded)",
    .create = rnd_create,
    .next = rnd_next,
    .feedback = rnd_feedback,
    .destroy = free,
};
