/* Compiles ahead of need: the warm phases' configs of the sizes next in line, compiled on
 * idle compile threads while the lanes measure (compile_ahead.c says why and how). */
#ifndef CUTUNE_TUNING_COMPILE_AHEAD_H
#define CUTUNE_TUNING_COMPILE_AHEAD_H

#include "tune_int.h"

typedef struct TuneAhead TuneAhead;

/* Start planning once the lanes and the pool are there; NULL when it is off
 * (CUTUNE_COMPILE_AHEAD=0) or cannot start (the run goes on without it). */
TuneAhead *tune_ahead_start(TuneRun *r);
/* Stop the planner and drop the compiles ahead not yet started (r->mu not held). */
void tune_ahead_stop(TuneAhead **pf);

#endif
