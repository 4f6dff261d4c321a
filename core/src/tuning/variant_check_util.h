/* What the two passes of `cutune check` share: the static checks (variant_check.c) and the
 * runs on the CPU emulation (variant_run.c). Their options and report, the launch geometry
 * they check configs against, the configs they pick and how they say what they find. */
#ifndef CUTUNE_VARIANT_CHECK_UTIL_H
#define CUTUNE_VARIANT_CHECK_UTIL_H

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
    size_t local_checked, local_memory; /* configs whose local memory ptxas reported, and
                                           those with a stack frame or spills (a note) */
    size_t ran, ran_failed; /* (config, size) pairs run on the CPU, and those that failed */
    size_t failures;        /* everything that makes the variant unusable as written */
    int library;            /* a library variant (cutune/plugin.h): no kernel to compile */
} CutuneCheckReport;

/* What both passes evaluate a config's launch with. */
typedef struct CutuneCheckGeometry {
    CutuneLimits lim;   /* sm_90's */
    const char **names; /* the space's symbol names: the first sp->nparams are its parameters' */
    CutuneGeometry *g;  /* v's launch geometry over them */
} CutuneCheckGeometry;

/* Fill *cg for v and sp; on failure there is nothing to free. */
int cutune_check_geometry(const CutuneVariantDef *v, const CutuneSpace *sp, CutuneCheckGeometry *cg,
                          CutuneError *err);
void cutune_check_geometry_free(CutuneCheckGeometry *cg);

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
