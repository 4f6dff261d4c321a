/* The maximin design (see design.h). */
#include "design.h"

#include <stdint.h>
#include <string.h>

void search_design_init(SearchDesign *d, const SearchGrid *g)
{
    memset(d, 0, sizeof *d);
    d->g = g;
}

void search_design_add(SearchDesign *d, size_t i)
{
    if (d->n < SEARCH_DESIGN_MAX)
        d->chosen[d->n++] = i;
}

/* The parameters in which configs a and c differ. */
static size_t distance(const SearchGrid *g, size_t a, size_t c)
{
    size_t p = g->nparams, n = 0;
    for (size_t j = 0; j < p; j++)
        n += g->level[a * p + j] != g->level[c * p + j];
    return n;
}

long search_design_pick(const SearchDesign *d, const SearchBook *b, size_t pool)
{
    size_t seen = 0, far = 0;
    long pick = -1;
    for (size_t c = b->cursor; c < b->n && seen < pool; c++) {
        size_t i = b->order[c];
        if (b->state[i] != SEARCH_NEW)
            continue;
        seen++;
        size_t near = SIZE_MAX;
        for (size_t k = 0; k < d->n && near > 0; k++) {
            size_t x = distance(d->g, i, d->chosen[k]);
            near = x < near ? x : near;
        }
        if (pick < 0 || near > far) {
            far = near;
            pick = (long)i;
        }
    }
    return pick;
}
