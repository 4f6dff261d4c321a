/* `cutune run --json`: one JSON object per line on stdout for each event of the run (every
 * trial, every search's end, every size's end), then one for the summary; for dashboards
 * and CI logs. */
#ifndef CUTUNE_CLI_RUN_JSON_H
#define CUTUNE_CLI_RUN_JSON_H

#include <stdio.h>

#include "tune.h"

typedef struct RunJson {
    FILE *f;
    int failed; /* a line could not be written */
} RunJson;

/* The CutuneTuneOptions.on_event callback; user is a RunJson. */
void run_json_event(const CutuneTuneEvent *e, void *user);
/* The last line: the run as a whole. */
void run_json_summary(RunJson *rj, const CutuneTuneSummary *s);

#endif
