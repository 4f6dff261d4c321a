/* What the readers of recordings share (recording.c, recording_csv.c): the recorded trials
 * of one variant and size, each a config's text with its status and times, before
 * cutune_recording_load joins the trials of one config and lays them out as the space. */
#ifndef CUTUNE_RECORDING_INT_H
#define CUTUNE_RECORDING_INT_H

#include <stddef.h>
#include <stdio.h>

#include "cutune/cutune.h"
#include "replay.h"
#include "space_limits.h"

/* The canonical text of the largest config: every name, '=', an int64 and a comma. */
#define CUTUNE_REC_CONFIG_MAX (CUTUNE_MAX_PARAMS * (CUTUNE_NAME_MAX + 22))

typedef struct CutuneRecEntry {
    char *config; /* canonical "A=1,B=2" */
    int status;
    double median_ms;
    double compile_ms; /* 0: unknown */
} CutuneRecEntry;

typedef struct CutuneRecEntries {
    CutuneRecEntry *e;
    size_t n, cap;
} CutuneRecEntries;

void cutune_rec_entries_free(CutuneRecEntries *es);
/* Append a copy of config with its status and times: 0 or CUTUNE_ERR_NOMEM. */
int cutune_rec_entries_add(CutuneRecEntries *es, const char *config, int status, double ms,
                           double compile_ms);

/* Read a CSV recording (the format in recording.c) from f, named path in messages: its
 * "# key: value" comments into r (device, date, variant, size, source), one entry per line
 * of a config. Every field counts, empty ones too: a parameter without a value, a header
 * column without a name, a name or value holding ',' or '=' (it could not be told from the
 * config text's own) is refused with the line. 0, or CUTUNE_ERR_PARSE, or
 * CUTUNE_ERR_NOMEM. */
int cutune_recording_read_csv(FILE *f, const char *path, CutuneRecEntries *es, CutuneRecording *r,
                              CutuneError *err);

#endif
