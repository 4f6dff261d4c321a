/* What the search strategies share: a seeded generator, the parameter grid of the valid
 * configs (levels, lookup of a point, neighbours one parameter one step away) and the book
 * of what was proposed and what it measured.
 *
 * Strategies work only from the config list (never the space file), so they run the same
 * in `cutune run`, in `cutune replay` and on synthetic landscapes. */
#ifndef CUTUNE_STRATEGIES_SEARCH_H
#define CUTUNE_STRATEGIES_SEARCH_H

#include <stddef.h>
#include <stdint.h>

#include "../strategy.h"

/* The core's splitmix64 (util.h): small, fast, and good enough to drive a search. */
typedef struct SearchRng {
    uint64_t x;
} SearchRng;
uint64_t search_rng_u64(SearchRng *r);
/* Uniform in [0, 1). */
double search_rng_unit(SearchRng *r);
/* Uniform in [0, n); n > 0. */
size_t search_rng_below(SearchRng *r, size_t n);

/* Shuffle v[0..n) in place (Fisher-Yates, from the end). */
void search_shuffle(size_t *v, size_t n, SearchRng *r);
/* v = a seeded random permutation of 0..n-1: 0..n-1 shuffled. */
void search_permutation(size_t *v, size_t n, SearchRng *r);

/* Each parameter's distinct values among the valid configs, sorted; a config is then a
 * vector of level numbers. Points of the full grid that are not valid configs are absent
 * from the lookup table, so a move never lands on one. */
typedef struct SearchGrid {
    size_t n, nparams;
    size_t *nlevels; /* per parameter */
    uint16_t *level; /* n rows of nparams levels */
    size_t *table;   /* open addressing: config index + 1, 0 = empty */
    size_t tmask;
} SearchGrid;

enum { SEARCH_MAX_PARAMS = 256 };

/* Build from a config list. Returns 0, CUTUNE_ERR_NOMEM, or CUTUNE_ERR_RANGE when there
 * are more than SEARCH_MAX_PARAMS parameters or one has more than 65535 distinct values. */
int search_grid_build(const CutuneConfigList *cl, SearchGrid *g);
void search_grid_free(SearchGrid *g);
/* The config at these levels, or -1 when it is not a valid config. */
long search_grid_find(const SearchGrid *g, const uint16_t *levels);
/* The valid configs one parameter one level away from config i (at most 2 * nparams),
 * written to out; returns how many. */
size_t search_grid_neighbours(const SearchGrid *g, size_t i, size_t *out);
/* The valid configs that differ from config i in one parameter, at any other level of it
 * (at most the sum over parameters of nlevels - 1), written to out; returns how many. */
size_t search_grid_moves(const SearchGrid *g, size_t i, size_t *out);

enum { SEARCH_NEW = 0, SEARCH_QUEUED = 1, SEARCH_PENDING = 2, SEARCH_DONE = 3 };

/* What each config is: not proposed, queued to be proposed, proposed and waiting, or
 * measured. A failed config
 * (any status but ok) costs +inf, so no comparison ever prefers it. */
typedef struct SearchBook {
    size_t n, proposed, pending;
    uint8_t *state;
    double *cost;  /* measured time in ms; +inf for failures */
    size_t *order; /* a seeded permutation, walked to pick unproposed configs at random */
    size_t cursor;
    long best;     /* the fastest measured config, -1 if none */
    size_t *batch; /* configs queued by the strategy's last step, proposed in order */
    size_t bhead, blen;
    size_t *start; /* the warm start's configs (valid, distinct), in the order given */
    size_t nstart;
} SearchBook;

int search_book_init(SearchBook *b, size_t n, SearchRng *rng);
void search_book_free(SearchBook *b);
/* Mark config i proposed (it must be SEARCH_NEW). */
void search_book_propose(SearchBook *b, size_t i);
/* Record feedback: returns 1, or 0 (and records nothing) for an index that was not
 * pending. */
int search_book_feedback(SearchBook *b, size_t i, CutuneStatus status, double median_ms);
/* A config neither proposed nor queued, chosen at random; -1 when there is none. */
long search_book_random_new(SearchBook *b);
/* Queue config i for proposal when it is new; returns 1 if queued, 0 if not new. */
int search_book_queue(SearchBook *b, size_t i);
/* Queue random new configs until out holds want of them (out[n..want), out may be NULL
 * to keep no list), or none is left; returns how many out holds now. */
size_t search_book_queue_random(SearchBook *b, size_t *out, size_t n, size_t want);
/* The fastest of list[0..n) that did not fail, the first of equals; -1 if none. */
long search_book_best_of(const SearchBook *b, const size_t *list, size_t n);
/* Queue the warm start of a->start (after search_book_init, before any proposal): its
 * valid, distinct indices, in order, are then the first proposals of search_next, and
 * stay listed in b->start. Returns 0 or CUTUNE_ERR_NOMEM. */
int search_book_start(SearchBook *b, const CutuneStrategyArgs *a);

/* The warm start of a without what it cannot mean: its indices below a->configs->nconfigs,
 * each once, in order, written to out (room for a->nstart); mark (nconfigs bytes, zero on
 * entry) gets 1 at each. Returns how many. For strategies that keep no SearchBook. */
size_t search_start_list(const CutuneStrategyArgs *a, size_t *out, unsigned char *mark);

/* Insert config i into list[0..*n), kept sorted by (cost, index), and count it: the order
 * then never depends on the order the results came in. */
void search_sorted_insert(size_t *list, size_t *n, const double *cost, size_t i);

/* The next() of a strategy that works in steps: it proposes the queued batch, waits until
 * every proposal has its feedback, then calls step(st) to queue the next batch (a step
 * may move over configs measured already, which costs nothing). The proposals therefore
 * do not depend on how many the tuner asks for ahead, nor on when feedback comes. A step
 * that queues nothing is answered with a random new config, so the search always goes on
 * until the whole space was proposed. */
int search_next(SearchBook *b, size_t *index, void (*step)(void *st), void *st);

/* What every strategy on the grid keeps. It is the first member of the strategy's state,
 * so that search_base_create, _next, _feedback and _destroy serve any such state (a
 * strategy names them in its ops where it has nothing of its own to do). */
typedef struct SearchBase {
    SearchGrid g;
    SearchBook b;
    SearchRng rng;
    size_t budget;             /* evaluations allowed: a->budget, or every config */
    size_t parallel;           /* proposals in flight: a->parallel, at least 1 */
    void (*step)(void *state); /* for search_base_next; the state is the strategy's */
    size_t *nb;                /* room for any neighbourhood of a config */
} SearchBase;

/* *state = a new zeroed state of size bytes whose first member is a SearchBase, made
 * ready: the generator seeded with a->seed ^ salt (a salt per strategy, so that they do
 * not draw alike), the grid, the book (shuffled by the generator) with the warm start
 * queued, and nb. Returns 0, or CUTUNE_ERR_NOMEM or CUTUNE_ERR_RANGE (see
 * search_grid_build) with nothing allocated. */
int search_base_create(size_t size, const CutuneStrategyArgs *a, uint64_t salt,
                       void (*step)(void *state), void **state);
/* Free such a state (NULL is fine); a strategy frees what it added first. */
void search_base_destroy(void *state);
/* next() and feedback() for a state whose first member is a SearchBase: search_next with
 * its step, and search_book_feedback. */
int search_base_next(void *state, size_t *index);
void search_base_feedback(void *state, size_t index, CutuneStatus status, double median_ms);

/* The state of a strategy that proposes a list fixed at create(), in order, and learns
 * nothing from results: search_list_next and search_list_feedback are its next() and
 * feedback(), free() its destroy(). */
typedef struct SearchList {
    size_t next, count;
    size_t order[];
} SearchList;

/* A list with room for cap indices, none in it yet; NULL when out of memory. */
SearchList *search_list_new(size_t cap);
/* *state = the warm start's configs (search_start_list), then every other valid config:
 * in a seeded random order (a->seed) when shuffled, else in enumeration order. Returns 0
 * or CUTUNE_ERR_NOMEM. */
int search_list_create(const CutuneStrategyArgs *a, int shuffled, void **state);
int search_list_next(void *state, size_t *index);
void search_list_feedback(void *state, size_t index, CutuneStatus status, double median_ms);

/* The ops of a strategy, defined as `const CutuneStrategyOps var`: its name, its one-line
 * summary and its four functions. */
#define SEARCH_OPS(var, name_, summary_, create_, next_, feedback_, destroy_) \
    const CutuneStrategyOps var = { \
        .name = (name_), \
        .summary = (summary_), \
        .create = (create_), \
        .next = (next_), \
        .feedback = (feedback_), \
        .destroy = (destroy_), \
    }
/* ... of a strategy whose state starts with a SearchBase and that has nothing of its own to
 * do at next, feedback or destroy. */
#define SEARCH_BASE_OPS(var, name_, summary_, create_) \
    SEARCH_OPS(var, name_, summary_, create_, search_base_next, search_base_feedback, \
               search_base_destroy)
/* ... of a strategy that proposes a SearchList made at create (needs <stdlib.h>, for free). */
#define SEARCH_LIST_OPS(var, name_, summary_, create_) \
    SEARCH_OPS(var, name_, summary_, create_, search_list_next, search_list_feedback, free)

#endif
