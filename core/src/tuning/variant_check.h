/* Checking a variant without a GPU (`cutune check`, and the CPU test of the shipped
 * variants): its space has valid configs, its sizes are the op's, its [launch] gives every
 * valid config a launch that an sm_90 device can run at each size, its kernel takes the
 * op's arguments, and NVRTC compiles its configs (all, or a seeded sample). A library
 * variant has no kernel: its space and sizes are checked. */
#ifndef CUTUNE_VARIANT_CHECK_H
#define CUTUNE_VARIANT_CHECK_H

#include <stdint.h>
#include <stdio.h>

#include "registry.h"

typedef struct CutuneCheckOptions {
    const char *const *sizes; /* NULL: the space's default sizes */
    size_t nsizes;
    size_t sample; /* compile at most this many configs, a seeded sample with the
                                 first and the last; 0: every one */
    uint64_t seed;
    int arch;              /* compile for sm_<arch>; the limits are sm_90's */
    const char *cache_dir; /* the kernel cache, or NULL */
    int threads;           /* compile threads; 0: one per CPU */
    FILE *out;             /* what is checked and every failure, as found (may be NULL) */
} CutuneCheckOptions;

void cutune_check_defaults(CutuneCheckOptions *o);

typedef struct CutuneCheckReport {
    size_t nvalid;            /* configs that pass the constraints before any size */
    size_t launches, skipped; /* (config, size) pairs given a launch, and those that cannot
                                 run on an sm_90 device */
    int kernel_params;        /* the kernel's parameters (from its PTX), -1 unknown */
    size_t compiled, compile_failed;
    size_t failures; /* everything that makes the variant unusable as written */
    int library;     /* a library variant (cutune/plugin.h): no kernel to compile */
} CutuneCheckReport;

/* Check v. Returns 0 when the check ran (r->failures says the verdict), < 0 when it could
 * not (out of memory). */
int cutune_variant_check(const CutuneVariantDef *v, const CutuneCheckOptions *o,
                         CutuneCheckReport *r, CutuneError *err);

#endif
