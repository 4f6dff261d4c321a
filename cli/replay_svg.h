/* The SVG plot of `cutune replay`. */
#ifndef CUTUNE_CLI_REPLAY_SVG_H
#define CUTUNE_CLI_REPLAY_SVG_H

#include <stdio.h>

#include "replay.h"

/* Write a plot of the median fraction of the optimum against the budget (log x), one line
 * per strategy; stats[s] holds nbudgets entries in increasing budget order, the same
 * budgets for every strategy. Errors: CUTUNE_ERR_IO with the path. */
int replay_svg_write(const char *path, const char *title, const char *const *names,
                     const CutuneReplayStat *const *stats, size_t nstrategies, size_t nbudgets,
                     CutuneError *err);

#endif
