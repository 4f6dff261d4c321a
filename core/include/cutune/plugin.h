/* cutune variant plugin ABI: a kernel variant written in C.
 *
 * Most variants need no C: a kernel file and an INI file whose [launch] section gives the
 * grid, the block and the dynamic shared memory as expressions (docs/variants.md, "Writing
 * a variant"). A variant plugin is for the rare launch geometry that expressions cannot say
 * (a loop, a table, a search), or for a self-contained op and variant in one file.
 *
 * A variant plugin is a shared object holding ONE variant. It exports
 *
 *     const CutuneVariant *cutune_plugin_variant(void);
 *
 * returning a pointer to a static const descriptor built with designated initialisers.
 * Its tuning space is <name>.ini on the space path. Plugins never link against libcutune
 * or the CUDA libraries: every service comes through the CutuneHost table (cutune/op.h).
 *
 * A library variant (ABI 1.5) launches no kernel of its own: each config is a call into a
 * library (e.g. one of cuBLASLt's algorithms for the problem). It sets library_prepare,
 * library_run and library_release and leaves kernel_source, kernel_name and
 * launch_geometry NULL; the core compiles nothing for it, and checks and times its calls
 * as it does kernels (plugins/matmul_cublaslt/ is one).
 *
 * What the loader requires of a CutuneVariant (it refuses the file otherwise, naming it
 * and the problem):
 *   - abi_major == CUTUNE_PLUGIN_ABI_MAJOR, abi_minor <= CUTUNE_PLUGIN_ABI_MINOR,
 *     struct_size >= the size of the ABI minor it claims;
 *   - op, name (letters, digits, '_'), version, summary and dim_names non-NULL, and
 *     either kernel_source, kernel_name and launch_geometry (a kernel) or, since ABI 1.5,
 *     library_prepare, library_run and library_release (a library variant), not both;
 *   - when an op plugin provides `op` (the shipped ops do): dim_names equal to the op's.
 *     The op's contract then applies (its setup, check, kernel arguments, counts): the
 *     contract fields below are not used and may be NULL (ABI 1.3), and no variant brings
 *     its own check for a shipped op;
 *   - otherwise the plugin defines the op itself: every field from check_problem to bytes
 *     must be set.
 *
 * Versioning: fields are only ever appended. A plugin must check host->abi_minor and
 * host->struct_size (CUTUNE_HOST_HAS) before using a host service added later. */
#ifndef CUTUNE_PLUGIN_H
#define CUTUNE_PLUGIN_H

#include "cutune/op.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CUTUNE_PLUGIN_ABI_MAJOR CUTUNE_ABI_MAJOR
#define CUTUNE_PLUGIN_ABI_MINOR CUTUNE_ABI_MINOR
#define CUTUNE_PLUGIN_SYMBOL "cutune_plugin_variant"

/* The descriptor (what is required: see the top of this file). */
typedef struct CutuneVariant {
    uint32_t abi_major;   /* CUTUNE_PLUGIN_ABI_MAJOR */
    uint32_t abi_minor;   /* CUTUNE_PLUGIN_ABI_MINOR */
    uint32_t struct_size; /* sizeof(CutuneVariant) */

    const char *op;        /* e.g. "matmul"; every variant of an op keeps one contract */
    const char *name;      /* e.g. "matmul_tiled"; its space is tuning_spaces/<name>.ini */
    const char *version;   /* bump when the kernel or the space's parameters change: trials
                             are kept per version */
    const char *summary;   /* one line for `cutune list` */
    const char *dim_names; /* comma-separated names of the problem dimensions, e.g. "M,N,K";
                             constraints in the space may use them */

    const char *kernel_source; /* CUDA C++ source compiled by the core with NVRTC; each
                                  tunable parameter arrives as -DNAME=value */
    const char *kernel_name;   /* the __global__ function to launch (extern "C") */

    /* Validate (and may normalise) a parsed problem: the number of dimensions and their
     * limits. Write a message into err on failure. */
    int (*check_problem)(CutuneProblem *p, char *err, size_t errlen);

    /* Grid, block and dynamic shared memory of a config for a problem. Since ABI 1.2, cfg
     * also holds the device the kernel will run on, after the space's parameters:
     * SM_COUNT (its multiprocessors) and CC (compute capability, e.g. 90). Read them with
     * cutune_config_get(cfg, "SM_COUNT", fallback); an older core passes neither. */
    int (*launch_geometry)(const CutuneConfig *cfg, const CutuneProblem *p, CutuneLaunch *out);

    /* Allocate inputs and the output on the device, fill the inputs with seeded random
     * values, compute the reference. *state is the plugin's own; teardown frees it. */
    int (*setup)(const CutuneHost *host, const CutuneProblem *p, uint64_t seed, void **state);

    /* Fill args[0..n) with pointers to the kernel's arguments; returns n (<= max) or < 0. */
    int (*kernel_args)(void *state, const CutuneConfig *cfg, void **args, int max);

    /* Poison the output before a checked launch, so that unwritten elements are seen. */
    int (*poison_output)(const CutuneHost *host, void *state);

    /* Compare the output with the reference. Returns 0 when the check ran (whatever the
     * verdict, which goes in *out) and < 0 when it could not run. */
    int (*check)(const CutuneHost *host, void *state, CutuneCheck *out);

    void (*teardown)(const CutuneHost *host, void *state);

    /* Work of one launch, for GFLOP/s and GB/s; 0 when the measure does not apply. */
    double (*flops)(const CutuneProblem *p);
    double (*bytes)(const CutuneProblem *p);

    /* ---- ABI 1.1 (optional; a 1.0 plugin stops above, and the core never reads past
     * its struct_size) ---- */

    /* How far apart two problems of this op are, for applications' lookups that find no
     * config tuned for their exact size (cutune/lookup.h): the nearest tuned size wins.
     * >= 0, and 0 only for equal problems; both have the same ndims. NULL: the core uses
     * sqrt(sum_i (ln a_i - ln b_i)^2). */
    double (*problem_distance)(const CutuneProblem *a, const CutuneProblem *b);

    /* ---- ABI 1.5 (optional): a library variant (see the top of this file) ---- */

    /* Make config cfg ready to run problem p: e.g. choose the library's algorithm and
     * allocate its workspace (host->dev_alloc; free it in library_release). args are the
     * op's kernel arguments for one call (args[i] points at the i-th, as a kernel gets
     * them): look at them (their alignment, say), but do not keep them; every run gets its
     * own. The core prepares once per config and problem: in the worker before the config
     * is checked and timed, and in an application on its first launch of that config at
     * that size (cutune_launch; the handle lives until cutune_close). Returns 0 with
     * *handle set, or with `why` filled:
     *   CUTUNE_ERR_RESOURCES  the config cannot run this problem here (an algorithm index
     *                         beyond those the library offers for it): the trial is
     *                         recorded skipped_resources with `why`;
     *   CUTUNE_ERR_NOT_FOUND  the library is missing or too old: skipped_resources too,
     *                         `why` naming what was tried;
     *   another < 0           a failure: the trial is a launch_error with `why`.
     * On success `why` may say what the config turned out to be (the library's algorithm):
     * it becomes the trial's message. Called with the device current; host lives as long
     * as the handle. */
    int (*library_prepare)(const CutuneHost *host, void *const *args, const CutuneProblem *p,
                           const CutuneConfig *cfg, void **handle, char *why, size_t len);
    /* Enqueue one call on `stream` (NULL: the default stream) with this call's arguments
     * (those of the problem prepared for). 0, or < 0 with host->fail saying why; the core
     * times repeated calls with CUDA events, as kernel launches. */
    int (*library_run)(void *handle, void *const *args, void *stream);
    void (*library_release)(void *handle);
} CutuneVariant;

/* The symbol every variant plugin exports. */
typedef const CutuneVariant *(*CutunePluginEntry)(void);

#ifdef __cplusplus
}
#endif
#endif
