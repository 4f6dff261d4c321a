/* A space-filling design, built one proposal at a time: of a pool of random new configs,
 * the one farthest from every config proposed so far (the most parameters that differ from
 * the nearest of them: a maximin design in the parameters). The pool is drawn from the
 * valid configs, so the design keeps their density (a level that few valid configs have
 * comes up as rarely as in random draws), but it never spends two of its first proposals
 * on near copies: the first results then say something about more of the space. On a full
 * grid of k levels per parameter, k picks from the whole space are a Latin square. */
#ifndef CUTUNE_STRATEGIES_DESIGN_H
#define CUTUNE_STRATEGIES_DESIGN_H

#include "search.h"

enum { SEARCH_DESIGN_MAX = 64 }; /* the proposals a pick keeps its distance from */

typedef struct SearchDesign {
    const SearchGrid *g;
    size_t chosen[SEARCH_DESIGN_MAX], n; /* the first proposals */
    size_t *poff;  /* per pair of parameters (a < b), in order: its first cell in seen */
    uint8_t *seen; /* per cell (a level of a, a level of b): proposed together already;
                    * NULL where the cells would take more than SEARCH_DESIGN_CELLS bytes */
} SearchDesign;

enum { SEARCH_DESIGN_CELLS = 1 << 22 };

/* Returns 0 (free it with search_design_free) or CUTUNE_ERR_NOMEM (nothing to free). */
int search_design_init(SearchDesign *d, const SearchGrid *g);
void search_design_free(SearchDesign *d);
/* Count config i as proposed (every proposal, whoever made it; past the first
 * SEARCH_DESIGN_MAX, they are not kept). */
void search_design_add(SearchDesign *d, size_t i);
/* Of the next pool new configs in the book's random order, the one whose nearest proposed
 * config differs from it in the most parameters, the first of equals; -1 when no config is
 * new. It does not propose it. */
long search_design_pick(const SearchDesign *d, const SearchBook *b, size_t pool);
/* Of the next pool new configs in the book's random order, the one that brings the most
 * pairs of parameter levels never proposed together (cells), the first of equals: a
 * greedy pairwise covering design. A combination of two levels that pays off only
 * together (each alone is slow, so no additive model and no one-parameter step goes
 * there) is then tried far sooner than by random draws. -1 when no config is new; the
 * maximin pick where there are too many cells to keep. */
long search_design_pick_pairs(const SearchDesign *d, const SearchBook *b, size_t pool);

#endif
