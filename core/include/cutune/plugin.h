/* cutune plugin ABI: what a kernel variant plugin exports and what the core gives it.
 *
 * A plugin is a shared object holding ONE variant of an op. It exports
 *
 *     const CutuneVariant *cutune_plugin_variant(void);
 *
 * returning a pointer to a static const descriptor built with designated initialisers.
 * Plugins never link against libcutune or the CUDA libraries: every service they need
 * (device memory, copies, reference kernels, random numbers, comparison) comes through
 * the CutuneHost table the core passes to their callbacks.
 *
 * Versioning: fields are only ever appended. The core rejects a plugin whose abi_major
 * differs from its own, whose abi_minor is newer than its own, or whose struct_size is
 * smaller than the size of the ABI minor it claims. Likewise a plugin must check
 * host->abi_major and host->struct_size before using a host service added later. */
#ifndef CUTUNE_PLUGIN_H
#define CUTUNE_PLUGIN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CUTUNE_PLUGIN_ABI_MAJOR 1
#define CUTUNE_PLUGIN_ABI_MINOR 2 /* 1.1: problem_distance; 1.2: launch_geometry sees the
                                     device (SM_COUNT, CC) */
#define CUTUNE_PLUGIN_SYMBOL "cutune_plugin_variant"

#define CUTUNE_MAX_DIMS 4
#define CUTUNE_MAX_KERNEL_ARGS 16

/* A problem: the dimensions parsed from a size string such as "4096x4096x4096". */
typedef struct CutuneProblem {
    int ndims;
    int64_t dim[CUTUNE_MAX_DIMS];
} CutuneProblem;

/* A config: one value per tunable parameter, in the order of the space file. The
 * names and values are owned by the core and live for the duration of the callback. */
typedef struct CutuneConfig {
    size_t count;
    const char *const *names;
    const int64_t *values;
} CutuneConfig;

/* The value of parameter `name`, or `fallback` when the space does not define it. */
static inline int64_t cutune_config_get(const CutuneConfig *cfg, const char *name, int64_t fallback)
{
    for (size_t i = 0; i < cfg->count; i++)
        if (strcmp(cfg->names[i], name) == 0)
            return cfg->values[i];
    return fallback;
}

/* Launch geometry of one config for one problem. */
typedef struct CutuneLaunch {
    unsigned grid[3];
    unsigned block[3];
    size_t shared_bytes; /* dynamic shared memory */
} CutuneLaunch;

/* The verdict of an output check. */
typedef struct CutuneCheck {
    int passed;         /* 1: the output is right within the op's documented tolerance */
    double error;       /* the error measure the op documents (e.g. relative Frobenius error) */
    double tolerance;   /* the bound `error` was compared with */
    char message[256];  /* why it failed: first bad element, NaN, unwritten output ... */
} CutuneCheck;

/* Services the core offers plugins. Every function returns 0 or a negative CUTUNE_ERR_*
 * code and, on failure, has already recorded a message for the user. */
typedef struct CutuneHost {
    uint32_t abi_major, abi_minor;
    uint32_t struct_size;
    void *ctx; /* pass back as the first argument of every service */

    /* Device memory. Freed by dev_free, or by the core when the problem is torn down. */
    int (*dev_alloc)(void *ctx, size_t bytes, void **dptr);
    void (*dev_free)(void *ctx, void *dptr);
    int (*copy_to_device)(void *ctx, void *dst, const void *src, size_t bytes);
    int (*copy_to_host)(void *ctx, void *dst, const void *src, size_t bytes);
    /* Set every byte of a device buffer to `byte` (0xFF poisons floats with NaN). */
    int (*dev_memset)(void *ctx, void *dptr, int byte, size_t bytes);

    /* Fill n host floats with uniform values in [lo, hi) from a generator seeded by
     * `seed` and `stream` (so that each input of a problem gets its own sequence). */
    void (*random_uniform)(uint64_t seed, uint64_t stream, float *dst, size_t n, float lo, float hi);

    /* Compile (NVRTC, cached) and run a kernel synchronously: for references computed
     * on the device in higher precision. args[i] points at the i-th kernel argument. */
    int (*run_kernel)(void *ctx, const char *source, const char *kernel_name,
                      const CutuneLaunch *launch, void **args);

    /* A message for the user on failure inside the plugin (printf-style). Returns code. */
    int (*fail)(void *ctx, int code, const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 3, 4)))
#endif
        ;
} CutuneHost;

/* The descriptor. Required: every field up to and including `teardown`. */
typedef struct CutuneVariant {
    uint32_t abi_major;   /* CUTUNE_PLUGIN_ABI_MAJOR */
    uint32_t abi_minor;   /* CUTUNE_PLUGIN_ABI_MINOR */
    uint32_t struct_size; /* sizeof(CutuneVariant) */

    const char *op;       /* e.g. "matmul"; every variant of an op keeps one contract */
    const char *name;     /* e.g. "matmul_tiled"; its space is tuning_spaces/<name>.ini */
    const char *version;  /* bump when the kernel or the space's parameters change: trials
                             are kept per version */
    const char *summary;  /* one line for `cutune list` */
    const char *dim_names;/* comma-separated names of the problem dimensions, e.g. "M,N,K";
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
} CutuneVariant;

/* The symbol every plugin exports. */
typedef const CutuneVariant *(*CutunePluginEntry)(void);

#if defined(__GNUC__)
#define CUTUNE_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define CUTUNE_PLUGIN_EXPORT
#endif

#ifdef __cplusplus
}
#endif
#endif
