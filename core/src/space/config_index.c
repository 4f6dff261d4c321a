/* Config rows found by their values (see space.h). */
#include "space.h"

#include <stdlib.h>
#include <string.h>

static uint64_t row_hash(const int64_t *v, size_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= (uint64_t)v[i] + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
        h *= 0xbf58476d1ce4e5b9ULL;
        h ^= h >> 31;
    }
    return h;
}

int cutune_config_index_build(const CutuneConfigList *cl, CutuneConfigIndex *ix)
{
    memset(ix, 0, sizeof *ix);
    size_t cap = 16;
    while (cap < 2 * cl->nconfigs + 2) {
        if (cap > SIZE_MAX / 4 / sizeof *ix->slots)
            return CUTUNE_ERR_RANGE;
        cap *= 2;
    }
    ix->slots = calloc(cap, sizeof *ix->slots);
    if (!ix->slots)
        return CUTUNE_ERR_NOMEM;
    ix->cl = cl;
    ix->mask = cap - 1;
    for (size_t r = 0; r < cl->nconfigs; r++) {
        const int64_t *v = cl->values + r * cl->nparams;
        size_t k = (size_t)row_hash(v, cl->nparams) & ix->mask;
        while (ix->slots[k])
            k = (k + 1) & ix->mask;
        ix->slots[k] = r + 1;
    }
    return 0;
}

long cutune_config_index_find(const CutuneConfigIndex *ix, const int64_t *values)
{
    if (!ix->slots)
        return -1;
    size_t n = ix->cl->nparams;
    for (size_t k = (size_t)row_hash(values, n) & ix->mask; ix->slots[k]; k = (k + 1) & ix->mask) {
        size_t r = ix->slots[k] - 1;
        if (memcmp(ix->cl->values + r * n, values, n * sizeof *values) == 0)
            return (long)r;
    }
    return -1;
}

void cutune_config_index_free(CutuneConfigIndex *ix)
{
    free(ix->slots);
    memset(ix, 0, sizeof *ix);
}
