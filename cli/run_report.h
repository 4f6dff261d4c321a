/* The summary `cutune run` prints at the end: a table per size (the best variant and
 * config, its time and rate, the vendor yardstick and the ratio to it), then one line per
 * variant and size (how it was searched and how it ended), and on several GPUs where each
 * GPU's wall time went. */
#ifndef CUTUNE_CLI_RUN_REPORT_H
#define CUTUNE_CLI_RUN_REPORT_H

#include <stdio.h>

#include "tune.h"

void run_report_print(FILE *f, const CutuneTuneSummary *s);

#endif
