/* Arms shared by payoff (see bandit.h). */
#include "bandit.h"

#include <string.h>

void search_bandit_init(SearchBandit *bd, size_t narms, const double *floors, size_t window)
{
    memset(bd, 0, sizeof *bd);
    bd->narms = narms < SEARCH_BANDIT_ARMS ? narms : SEARCH_BANDIT_ARMS;
    bd->window = window < SEARCH_BANDIT_HISTORY ? window : SEARCH_BANDIT_HISTORY;
    for (size_t a = 0; a < bd->narms; a++)
        bd->floor[a] = floors[a];
}

void search_bandit_record(SearchBandit *bd, size_t arm, int success)
{
    if (arm < bd->narms)
        bd->hist[arm][bd->n[arm]++ % SEARCH_BANDIT_HISTORY] = success != 0;
}

/* The rate of success over the last window outcomes, with a prior of half a success. */
static double rate(const SearchBandit *bd, size_t a)
{
    size_t n = bd->n[a] < bd->window ? bd->n[a] : bd->window, won = 0;
    for (size_t k = 0; k < n; k++)
        won += bd->hist[a][(bd->n[a] - 1 - k) % SEARCH_BANDIT_HISTORY];
    return ((double)won + 0.5) / ((double)n + 1);
}

void search_bandit_shares(const SearchBandit *bd, const uint8_t *off, double *share)
{
    double tot = 0, sum = 0;
    for (size_t a = 0; a < bd->narms; a++)
        tot += share[a] = off && off[a] ? 0 : rate(bd, a);
    for (size_t a = 0; a < bd->narms; a++) {
        if (off && off[a])
            continue;
        share[a] /= tot;
        if (share[a] < bd->floor[a])
            share[a] = bd->floor[a];
        sum += share[a];
    }
    for (size_t a = 0; a < bd->narms; a++)
        share[a] /= sum;
}

size_t search_bandit_choose(const SearchBandit *bd, const uint8_t *off, double u)
{
    double share[SEARCH_BANDIT_ARMS];
    search_bandit_shares(bd, off, share);
    size_t last = 0;
    for (size_t a = 0; a < bd->narms; a++) {
        if (!(share[a] > 0))
            continue;
        last = a;
        if (u < share[a])
            return a;
        u -= share[a];
    }
    return last; /* rounding */
}
