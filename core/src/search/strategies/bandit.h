/* Sharing proposals between kinds of proposal (arms) by how each has paid off in this run:
 * each arm keeps its last outcomes (1 = its config was among the best measured so far), and
 * an arm's share of the next proposals is its rate of success over its last `window`
 * outcomes (with a prior of half a success in one outcome, so that an arm with no record
 * yet stands at 0.5), divided by the sum over the arms, and never below its floor. So the
 * arm that keeps finding the best configs gets most proposals, an arm that stopped paying
 * (a model that no longer predicts gains, a basin that is exhausted) falls back to its
 * floor, and every arm keeps being tried. Deterministic: the caller gives the random
 * number. */
#ifndef CUTUNE_STRATEGIES_BANDIT_H
#define CUTUNE_STRATEGIES_BANDIT_H

#include <stddef.h>
#include <stdint.h>

enum { SEARCH_BANDIT_ARMS = 8, SEARCH_BANDIT_HISTORY = 64 };

typedef struct SearchBandit {
    size_t narms, window; /* window <= SEARCH_BANDIT_HISTORY */
    double floor[SEARCH_BANDIT_ARMS];
    uint8_t hist[SEARCH_BANDIT_ARMS][SEARCH_BANDIT_HISTORY]; /* a ring of outcomes */
    size_t n[SEARCH_BANDIT_ARMS];                            /* outcomes recorded */
} SearchBandit;

/* narms <= SEARCH_BANDIT_ARMS arms with these floors (shares before normalising). */
void search_bandit_init(SearchBandit *bd, size_t narms, const double *floors, size_t window);
void search_bandit_record(SearchBandit *bd, size_t arm, int success);
/* Each arm's share, summing to 1; an arm with off[arm] set gets 0 (off may be NULL). */
void search_bandit_shares(const SearchBandit *bd, const uint8_t *off, double *share);
/* The arm for u uniform in [0, 1), by the shares. */
size_t search_bandit_choose(const SearchBandit *bd, const uint8_t *off, double u);

#endif
