/* Random sampling without replacement: a seeded Fisher-Yates shuffle of the valid configs,
 * after the warm start's configs. */
#include "search.h"

#include <stdlib.h>

typedef struct {
    size_t next, count;
    size_t order[];
} Random;

static int rnd_create(const CutuneStrategyArgs *a, void **state)
{
    size_t n = a->configs->nconfigs;
    Random *s = malloc(sizeof *s + (n + a->nstart + 1) * sizeof(size_t));
    unsigned char *mark = calloc(n ? n : 1, 1);
    if (!s || !mark) {
        free(s);
        free(mark);
        return CUTUNE_ERR_NOMEM;
    }
    s->next = 0;
    s->count = n;
    SearchRng rng = {a->seed};
    search_permutation(s->order, n, &rng);
    size_t m = search_start_list(a, s->order + n, mark);
    if (m) { /* the starts, then the shuffle without them */
        size_t *perm = s->order, k = n;
        for (size_t i = n; i-- > 0;)
            if (!mark[perm[i]])
                perm[--k] = perm[i];
        for (size_t i = 0; i < m; i++)
            perm[i] = perm[n + i];
    }
    free(mark);
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
    .summary = "configs drawn at random without replacement (seeded), after the warm start",
    .create = rnd_create,
    .next = rnd_next,
    .feedback = rnd_feedback,
    .destroy = free,
};
