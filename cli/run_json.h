/* `cutune run --json`: one JSON object per line on stdout for each event of the run (every
 * trial, every search's end, every size's end), then one for the summary; for dashboards
 * and CI logs. */
#ifndef CUTUNE_CLI_RUN_JSON_H
#define CUTUNE_CLI_RUN_JSON_H

#include <signal.h>
#include <stdio.h>

#include "tune.h"

typedef struct RunJson {
    FILE *f;
    int failed; /* a line could not be written */
    int closed; /* ... because the reader closed its end (EPIPE: `cutune run --json | head`) */
    /* set to 1 (stop after the trial in flight, as the first Ctrl-C does) once the reader has
     * gone: nobody reads what the run would go on measuring; may be NULL */
    volatile sig_atomic_t *stop;
} RunJson;

/* The CutuneTuneOptions.on_event callback; user is a RunJson. The caller ignores SIGPIPE,
 * so that a closed pipe is the EPIPE this sees, not the end of the process. */
void run_json_event(const CutuneTuneEvent *e, void *user);
/* The last line: the run as a whole. */
void run_json_summary(RunJson *rj, const CutuneTuneSummary *s);

#endif
