/* Exhaustive search: the warm start's configs, then every other valid config in
 * enumeration order (until the budget). */
#include "search.h"

#include <stdlib.h>

typedef struct {
    size_t next, nstart; /* the next start to propose, and how many there are */
    size_t pos, count;   /* the next place in the list */
    unsigned char *mark; /* the warm start's configs, proposed first */
    size_t start[];
} Exhaustive;

static void ex_destroy(void *state)
{
    Exhaustive *s = state;
    if (s)
        free(s->mark);
    free(s);
}

static int ex_create(const CutuneStrategyArgs *a, void **state)
{
    size_t n = a->configs->nconfigs;
    Exhaustive *s = calloc(1, sizeof *s + (a->nstart + 1) * sizeof(size_t));
    if (!s || !(s->mark = calloc(n ? n : 1, 1))) {
        ex_destroy(s);
        return CUTUNE_ERR_NOMEM;
    }
    s->count = n;
    s->nstart = search_start_list(a, s->start, s->mark);
    *state = s;
    return 0;
}

static int ex_next(void *state, size_t *index)
{
    Exhaustive *s = state;
    if (s->next < s->nstart) {
        *index = s->start[s->next++];
        return CUTUNE_NEXT_READY;
    }
    while (s->pos < s->count && s->mark[s->pos])
        s->pos++; /* proposed as a start */
    if (s->pos >= s->count)
        return CUTUNE_NEXT_DONE;
    *index = s->pos++;
    return CUTUNE_NEXT_READY;
}

static void ex_feedback(void *state, size_t index, CutuneStatus status, double median_ms)
{
    (void)state, (void)index, (void)status, (void)median_ms;
}

const CutuneStrategyOps cutune_strategy_exhaustive = {
    .name = "exhaustive",
    .summary = "every valid config, in the order of the space file (after the warm start)",
    .create = ex_create,
    .next = ex_next,
    .feedback = ex_feedback,
    .destroy = ex_destroy,
};
