/* Search strategies: each proposes configs (indices into the enumerated list of valid
 * configs) and learns from the results. One file per strategy under strategies/. */
#ifndef CUTUNE_STRATEGY_H
#define CUTUNE_STRATEGY_H

#include <stddef.h>
#include <stdint.h>

#include "cutune/cutune.h"
#include "space.h"

typedef struct CutuneStrategyArgs {
    const CutuneSpace *space;
    const CutuneConfigList *configs; /* the valid configs */
    uint64_t seed;
    size_t budget;       /* evaluations the tuner will allow (<= nconfigs) */
    size_t parallel;     /* how many proposals the tuner keeps in flight (compile pool + GPU):
                             compile threads + 2, e.g. 18 on a 16-core GPU host; 0 or 1 = one at a time */
    const size_t *start; /* warm start: config indices to propose first, in this order (known-good
                             configs from the database or the space's shipped list); may be NULL */
    size_t nstart;
} CutuneStrategyArgs;

enum { CUTUNE_NEXT_DONE = -1, CUTUNE_NEXT_WAIT = 0, CUTUNE_NEXT_READY = 1 };

typedef struct CutuneStrategyOps {
    const char *name;
    const char *summary;
    /* Every strategy proposes the start configs first (an index out of range or repeated
     * is skipped), each once, and learns from their results as from its own. */
    int (*create)(const CutuneStrategyArgs *a, void **state);
    /* CUTUNE_NEXT_READY with *index set; CUTUNE_NEXT_WAIT when it needs feedback on the
     * configs already proposed before it can propose more; CUTUNE_NEXT_DONE when it has
     * nothing more to propose. Never proposes the same index twice. */
    int (*next)(void *state, size_t *index);
    /* The result of a proposed config: median_ms > 0 only for status ok. */
    void (*feedback)(void *state, size_t index, CutuneStatus status, double median_ms);
    void (*destroy)(void *state);
} CutuneStrategyOps;

/* The strategy `cutune run` uses when none was named and a budget of evaluations cannot
 * cover the space: the best in the replays of recorded and synthetic spaces (docs/search.md). */
extern const char *const cutune_strategy_default_search;
/* The same when only a time limit is set: a strategy with no schedule to plan over a
 * budget (annealing cools over its budget, which a time limit does not give). */
extern const char *const cutune_strategy_default_timed;

/* The strategy for one space: `named` if not NULL; else exhaustive when the budget
 * covers the nvalid configs and there is no time limit; else the default search (budget)
 * or the default timed strategy (time limit only). When the choice was automatic and not
 * exhaustive, why (if not NULL) gets a sentence for the log; otherwise why[0] = 0. */
const char *cutune_strategy_choose(const char *named, size_t budget, double time_limit_s,
                                   size_t nvalid, char *why, size_t len);

/* ops->next(state, index) for a tuner's loop: 1 when *index is a new proposal; 0 when there
 * is none now, with *done set to 1 when the strategy has nothing more to propose. */
int cutune_strategy_next(const CutuneStrategyOps *ops, void *state, size_t *index, int *done);

/* The registered strategies, NULL-terminated. */
extern const CutuneStrategyOps *const cutune_strategy_list[];
const CutuneStrategyOps *cutune_strategy_find(const char *name);

extern const CutuneStrategyOps cutune_strategy_exhaustive;
extern const CutuneStrategyOps cutune_strategy_random;
extern const CutuneStrategyOps cutune_strategy_annealing;
extern const CutuneStrategyOps cutune_strategy_genetic;
extern const CutuneStrategyOps cutune_strategy_ils;
extern const CutuneStrategyOps cutune_strategy_tpe;
extern const CutuneStrategyOps cutune_strategy_portfolio;

#endif
