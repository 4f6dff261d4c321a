/* Checking a variant without a GPU (`cutune check`, and the CPU test of the shipped
 * variants): its space has valid configs, its sizes are the op's, its [launch] gives every
 * valid config a launch that an sm_90 device can run at each size, its kernel takes the
 * op's arguments, and NVRTC compiles its configs (all, or a seeded sample). A library
 * variant has no kernel: its space and sizes are checked. */
#ifndef CUTUNE_VARIANT_CHECK_H
#define CUTUNE_VARIANT_CHECK_H

#include "variant_check_util.h"

/* Check v. Returns 0 when the check ran (r->failures says the verdict), < 0 when it could
 * not (out of memory). */
int cutune_variant_check(const CutuneVariantDef *v, const CutuneCheckOptions *o,
                         CutuneCheckReport *r, CutuneError *err);

#endif
