/* `cutune check --run`: a variant's configs on the CPU emulation (variant_run.c). */
#ifndef CUTUNE_VARIANT_RUN_H
#define CUTUNE_VARIANT_RUN_H

#include "variant_check_util.h"

/* Run configs of v on the CPU emulation (emu.h), each in a child process: the op sets the
 * problem up at each of the sizes, poisons the output, the kernel runs, and the op's own
 * check gives the verdict, as on a GPU; a crash, a barrier that not every thread reaches,
 * or a run past o->run_timeout_s is a failure with what was seen. The configs are the
 * valid ones at each size that can launch on sm_90, o->run_configs of them (a seeded
 * sample with the first and the last). Counts into r (failures included); < 0 only when
 * it could not run at all (out of memory). */
int cutune_variant_run(const CutuneVariantDef *v, const CutuneSpace *sp,
                       const CutuneCheckOptions *o, const char *const *sizes, size_t nsizes,
                       CutuneCheckReport *r, CutuneError *err);

#endif
