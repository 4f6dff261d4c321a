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
#include "space_limits.h"

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
    int run;               /* also run configs on the CPU emulation (variant_run.c) */
    size_t run_configs;    /* how many a size: a seeded sample with the first and the last;
                              0: every one */
    double run_timeout_s;  /* the most one config's run may take */
} CutuneCheckOptions;

void cutune_check_defaults(CutuneCheckOptions *o);

typedef struct CutuneCheckReport {
    size_t nvalid;            /* configs that pass the constraints before any size */
    size_t launches, skipped; /* (config, size) pairs given a launch, and those that cannot
                                 run on an sm_90 device */
    int kernel_params;        /* the kernel's parameters (from its PTX), -1 unknown */
    size_t compiled, compile_failed;
    size_t ran, ran_failed; /* (config, size) pairs run on the CPU, and those that failed */
    size_t failures;        /* everything that makes the variant unusable as written */
    int library;            /* a library variant (cutune/plugin.h): no kernel to compile */
} CutuneCheckReport;

/* Check v. Returns 0 when the check ran (r->failures says the verdict), < 0 when it could
 * not (out of memory). */
int cutune_variant_check(const CutuneVariantDef *v, const CutuneCheckOptions *o,
                         CutuneCheckReport *r, CutuneError *err);

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

/* sm_90's limits, the space's symbol names (*names malloc'd: the first sp->nparams are its
 * parameters') and v's launch geometry over them (free it with cutune_geometry_free). */
int cutune_check_geometry(const CutuneVariantDef *v, const CutuneSpace *sp, CutuneLimits *lim,
                          const char ***names, CutuneGeometry **g, CutuneError *err);

/* printf to o->out, when there is one: what the check finds, as it finds it. */
void cutune_check_say(const CutuneCheckOptions *o, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* The configs to compile or run, as indices into nvalid: all when there are at most
 * `sample` (or sample is 0), else the first, the last and a seeded sample between. Returns
 * how many it wrote to out (room for min(nvalid, sample)). */
size_t cutune_check_pick(size_t nvalid, size_t sample, uint64_t seed, size_t *out);

#endif
