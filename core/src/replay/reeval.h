/* Re-evaluating one config of a variant in this process: compile it (through the kernel cache),
 * set up the problem from a seed, and evaluate it one or more times on the same state, the
 * way the tuning loop does (poisoned checked launch, then timing). For benchmarks that
 * re-time the best config from the database, and for tests that check a kernel stays
 * correct when launched again on the state its earlier launches left. */
#ifndef CUTUNE_REEVAL_H
#define CUTUNE_REEVAL_H

#include "cutune/cutune.h"
#include "measure.h"
#include "registry.h"

/* Evaluate config `config_text` ("TILE=32,PAD=1", the database's text) of variant v for
 * problem prob (already checked by its op's check_problem) `times` times in a row on
 * one state set up with `seed`; results[0..times) receive the results (times <= 8).
 * Returns 0 when every evaluation ran (whatever their statuses), or a negative code with
 * err set when the space, the config text, the launch geometry, the compilation or the
 * setup failed, or the CUDA context was lost. */
int cutune_reevaluate(const CutuneVariantDef *v, const CutuneDeviceInfo *dev,
                      const char *config_text, const CutuneProblem *prob, uint64_t seed,
                      const CutuneMeasureSettings *ms, int times, CutuneEvalResult *results,
                      CutuneError *err);

#endif
