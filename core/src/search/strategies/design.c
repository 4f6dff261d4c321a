/* The space-filling designs (see design.h). */
#include "design.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int search_design_init(SearchDesign *d, const SearchGrid *g)
{
    memset(d, 0, sizeof *d);
    d->g = g;
    size_t p = g->nparams, np = p > 1 ? p * (p - 1) / 2 : 0, cells = 0, k = 0;
    d->poff = malloc((np + 1) * sizeof *d->poff);
    if (!d->poff)
        return CUTUNE_ERR_NOMEM;
    for (size_t a = 0; a < p; a++)
        for (size_t c = a + 1; c < p && cells <= SEARCH_DESIGN_CELLS; c++) {
            d->poff[k++] = cells;
            cells += g->nlevels[a] * g->nlevels[c];
        }
    d->poff[k] = cells;
    if (cells <= SEARCH_DESIGN_CELLS && !(d->seen = calloc(cells + 1, 1))) {
        search_design_free(d);
        return CUTUNE_ERR_NOMEM;
    }
    return 0;
}

void search_design_free(SearchDesign *d)
{
    free(d->poff);
    free(d->seen);
    d->poff = NULL;
    d->seen = NULL;
}

/* The parameters in which configs a and c differ. */
static size_t distance(const SearchGrid *g, size_t a, size_t c)
{
    size_t p = g->nparams, n = 0;
    for (size_t j = 0; j < p; j++)
        n += g->level[a * p + j] != g->level[c * p + j];
    return n;
}

/* How many parameters config i differs in from the nearest config proposed so far. */
static size_t nearest(const SearchDesign *d, size_t i)
{
    size_t near = SIZE_MAX;
    for (size_t k = 0; k < d->n && near > 0; k++) {
        size_t x = distance(d->g, i, d->chosen[k]);
        near = x < near ? x : near;
    }
    return near;
}

/* Config i's cell of the k-th pair of parameters (a, c). */
static size_t cell(const SearchDesign *d, size_t i, size_t k, size_t a, size_t c)
{
    const SearchGrid *g = d->g;
    const uint16_t *x = &g->level[i * g->nparams];
    return d->poff[k] + (size_t)x[a] * g->nlevels[c] + x[c];
}

/* How many cells of config i were never proposed. */
static size_t unseen(const SearchDesign *d, size_t i)
{
    size_t p = d->g->nparams, k = 0, n = 0;
    for (size_t a = 0; a < p; a++)
        for (size_t c = a + 1; c < p; c++)
            n += !d->seen[cell(d, i, k++, a, c)];
    return n;
}

/* Of the next pool new configs in the book's order, the first of highest score. */
static long best_in_pool(const SearchDesign *d, const SearchBook *b, size_t pool,
                         size_t (*score)(const SearchDesign *, size_t))
{
    size_t seen = 0, top = 0;
    long pick = -1;
    for (size_t c = b->cursor; c < b->n && seen < pool; c++) {
        size_t i = b->order[c];
        if (b->state[i] != SEARCH_NEW)
            continue;
        seen++;
        size_t v = score(d, i);
        if (pick < 0 || v > top) {
            top = v;
            pick = (long)i;
        }
    }
    return pick;
}

long search_design_pick_pairs(const SearchDesign *d, const SearchBook *b, size_t pool)
{
    return d->seen ? best_in_pool(d, b, pool, unseen) : search_design_pick(d, b, pool);
}

void search_design_add(SearchDesign *d, size_t i)
{
    if (d->n < SEARCH_DESIGN_MAX)
        d->chosen[d->n++] = i;
    size_t p = d->g->nparams, k = 0;
    for (size_t a = 0; a < p && d->seen; a++)
        for (size_t c = a + 1; c < p; c++)
            d->seen[cell(d, i, k++, a, c)] = 1;
}

long search_design_pick(const SearchDesign *d, const SearchBook *b, size_t pool)
{
    return best_in_pool(d, b, pool, nearest);
}
