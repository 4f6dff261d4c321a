/* cutune op ABI: what an op plugin exports and what the core gives it.
 *
 * An op is a contract that every variant of it keeps: the problem's dimensions and how a
 * size string parses, the inputs, the reference and the check, the poisoning of the
 * output, the arguments every kernel of the op receives, the flop and byte counts, and
 * optionally a distance between sizes and a vendor yardstick. A variant brings only a
 * kernel and its tuning space (see docs/variants.md, "Writing a variant").
 *
 * An op plugin is a shared object holding ONE op. It exports
 *
 *     const CutuneOp *cutune_op(void);
 *
 * returning a pointer to a static const descriptor built with designated initialisers.
 * Op plugins never link against libcutune or the CUDA libraries: every service they need
 * (device memory, copies, seeded random numbers, reference kernels compiled with NVRTC,
 * comparisons on the device) comes through the CutuneHost table the core passes to their
 * callbacks. This header, and the header-only helpers at its end, are all an op needs:
 * `pkg-config --cflags cutune-plugin` (no libraries).
 *
 * What the loader requires of a CutuneOp (it refuses the file otherwise, naming it and
 * the problem):
 *   - abi_major == CUTUNE_ABI_MAJOR, abi_minor <= CUTUNE_ABI_MINOR and >= 3 (the first
 *     minor with ops), struct_size >= the size of CutuneOp up to `bytes`;
 *   - name (letters, digits, '_'), summary, dim_names (1 to CUTUNE_MAX_DIMS identifiers),
 *     signature, nargs (1 to CUTUNE_MAX_KERNEL_ARGS) and every callback from check_problem
 *     to bytes non-NULL. problem_distance, check_launch and yardstick may be NULL.
 *
 * Versioning: fields are only ever appended, to this descriptor and to CutuneHost. The
 * core never reads past a descriptor's struct_size; an op must check host->abi_minor and
 * host->struct_size (CUTUNE_HOST_HAS) before using a host service added after 1.3. */
#ifndef CUTUNE_OP_H
#define CUTUNE_OP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutune/cutune.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CUTUNE_ABI_MAJOR 1
#define CUTUNE_ABI_MINOR \
    7 /* 1.1: problem_distance; 1.2: the device in launch geometry;
                              1.3: op plugins, the SDK host services, data variants;
                              1.4: ragged_problem, element types and layouts;
                              1.5: library variants (CutuneVariant.library_prepare, run,
                              release: a config that is a call into a library);
                              1.6: random_uniform_device;
                              1.7: epilogues (CutuneProblem.epilogue, CutuneOp.epilogues) */
#define CUTUNE_OP_SYMBOL "cutune_op"

#define CUTUNE_MAX_DIMS 4
#define CUTUNE_MAX_KERNEL_ARGS 16

/* The element types and operand layouts a problem may have (ABI 1.4). A problem is
 * written as its size, then its element type and layout where they are not the defaults
 * (fp32, nn): "4096x4096x4096" (fp32, nn), "4096x4096x4096-bf16-nt", "4096x1024x64-tf32".
 *   fp32  float32 in and out
 *   tf32  float32 in and out, products on tensor cores in TF32 (10-bit mantissa) with
 *         float32 accumulation
 *   fp16  IEEE half in and out, float32 accumulation
 *   bf16  bfloat16 in and out, float32 accumulation
 *   nn    every operand row-major as the op documents it
 *   nt    the second operand transposed: for matmul, B is stored N x K row-major (C = A B^T,
 *         what PyTorch's F.linear(x, W) computes) */
#define CUTUNE_DTYPE_TABLE(X) \
    X(FP32, "fp32", 4) \
    X(TF32, "tf32", 4) \
    X(FP16, "fp16", 2) \
    X(BF16, "bf16", 2)
#define CUTUNE_LAYOUT_TABLE(X) \
    X(NN, "nn") \
    X(NT, "nt")
/* What is done to the result before it is stored (1.7), written after the element type and
 * layout ("4096x1024x1024-bf16-nt-bias"; "none" is left out):
 *   none  the result as computed
 *   bias  a vector of the element type is added to every row before the output's rounding:
 *         for matmul, C[m][n] = A B + bias[n] (PyTorch's F.linear(x, W, b)) */
#define CUTUNE_EPILOGUE_TABLE(X) \
    X(NONE, "none") \
    X(BIAS, "bias")
typedef enum CutuneDtype {
#define CUTUNE_X_DTYPE(E, name, bytes) CUTUNE_DTYPE_##E,
    CUTUNE_DTYPE_TABLE(CUTUNE_X_DTYPE)
#undef CUTUNE_X_DTYPE
        CUTUNE_DTYPE_COUNT
} CutuneDtype;
typedef enum CutuneLayout {
#define CUTUNE_X_LAYOUT(E, name) CUTUNE_LAYOUT_##E,
    CUTUNE_LAYOUT_TABLE(CUTUNE_X_LAYOUT)
#undef CUTUNE_X_LAYOUT
        CUTUNE_LAYOUT_COUNT
} CutuneLayout;
typedef enum CutuneEpilogue {
#define CUTUNE_X_EPILOGUE(E, name) CUTUNE_EPILOGUE_##E,
    CUTUNE_EPILOGUE_TABLE(CUTUNE_X_EPILOGUE)
#undef CUTUNE_X_EPILOGUE
        CUTUNE_EPILOGUE_COUNT
} CutuneEpilogue;

/* "fp32", ...; NULL for a value out of range. */
static inline const char *cutune_dtype_name(int d)
{
    static const char *const names[] = {
#define CUTUNE_X_DTYPE(E, name, bytes) name,
        CUTUNE_DTYPE_TABLE(CUTUNE_X_DTYPE)
#undef CUTUNE_X_DTYPE
    };
    return d >= 0 && d < CUTUNE_DTYPE_COUNT ? names[d] : NULL;
}
/* Bytes of one element in memory (tf32 is stored as float32). */
static inline int cutune_dtype_bytes(int d)
{
    static const int bytes[] = {
#define CUTUNE_X_DTYPE(E, name, bytes) bytes,
        CUTUNE_DTYPE_TABLE(CUTUNE_X_DTYPE)
#undef CUTUNE_X_DTYPE
    };
    return d >= 0 && d < CUTUNE_DTYPE_COUNT ? bytes[d] : 0;
}
static inline const char *cutune_layout_name(int l)
{
    static const char *const names[] = {
#define CUTUNE_X_LAYOUT(E, name) name,
        CUTUNE_LAYOUT_TABLE(CUTUNE_X_LAYOUT)
#undef CUTUNE_X_LAYOUT
    };
    return l >= 0 && l < CUTUNE_LAYOUT_COUNT ? names[l] : NULL;
}
static inline const char *cutune_epilogue_name(int e)
{
    static const char *const names[] = {
#define CUTUNE_X_EPILOGUE(E, name) name,
        CUTUNE_EPILOGUE_TABLE(CUTUNE_X_EPILOGUE)
#undef CUTUNE_X_EPILOGUE
    };
    return e >= 0 && e < CUTUNE_EPILOGUE_COUNT ? names[e] : NULL;
}

/* A problem: the dimensions parsed from a size string such as "4096x4096x4096", (1.4) its
 * element type and layout (0, 0: fp32, nn) and (1.7) its epilogue (0: none). */
typedef struct CutuneProblem {
    int ndims;
    int64_t dim[CUTUNE_MAX_DIMS];
    int dtype;    /* CutuneDtype */
    int layout;   /* CutuneLayout */
    int epilogue; /* CutuneEpilogue */
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
    int passed;        /* 1: the output is right within the op's documented tolerance */
    double error;      /* the error measure the op documents (e.g. relative Frobenius error) */
    double tolerance;  /* the bound `error` was compared with */
    char message[256]; /* why it failed: first bad element, NaN, unwritten output ... */
} CutuneCheck;

/* Names an element of an output for messages ("C[3][17]"); returns buf. */
typedef const char *(*CutuneDescribeFn)(size_t index, void *user, char *buf, size_t len);

/* A float output against a double-precision reference, compared on the device by
 * host->compare_f32. Element i passes when d = |out[i] - ref[i]| satisfies
 *     d <= gamma * mag[i]                      (the worst-case rounding bound)
 *     d <= tau * scale[i] + floor_abs          (a statistical bound; only when scale != NULL)
 * and is finite; the output passes when every element does and the relative Frobenius
 * error sqrt(sum d^2 / sum ref^2) is at most norm_tol. All arrays are device arrays of
 * n elements. */
typedef struct CutuneCompareF32 {
    const float *out;
    const double *ref;
    size_t n;
    const double *mag;
    double gamma;
    const double *scale; /* NULL: no statistical bound */
    double tau;
    double floor_abs;
    double norm_tol;
    CutuneDescribeFn describe; /* may be NULL */
    void *user;
} CutuneCompareF32;

/* A vendor routine on the op's own inputs, timed by the core like a kernel (CUDA events,
 * warm-up, samples, median) to give the tuned kernels a yardstick. */
typedef struct CutuneYardstick {
    char name[64]; /* e.g. "cuBLAS SGEMM", "cudaMemcpy device-to-device" */
    int checkable; /* 1: it writes the op's output, which the op's check must pass */
    void *user;
    /* Enqueue one call on `stream` (NULL: the default stream). 0, or < 0 on failure. */
    int (*run)(void *user, void *stream);
    void (*close)(void *user); /* may be NULL */
} CutuneYardstick;

/* Services the core offers plugins. Every function that returns int returns 0 or a
 * negative CUTUNE_ERR_* code and, on failure, has already recorded a message. */
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
    void (*random_uniform)(uint64_t seed, uint64_t stream, float *dst, size_t n, float lo,
                           float hi);

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

    /* ---- 1.3: the op SDK ---- */

    /* Compare a float output with a double reference on the device (CutuneCompareF32).
     * Returns 0 when the comparison ran, whatever its verdict (in *verdict). */
    int (*compare_f32)(void *ctx, const CutuneCompareF32 *spec, CutuneCheck *verdict);
    /* Count the 32-bit words of out that differ from ref (device arrays of n words);
     * *first is the lowest differing index, n when none differs. */
    int (*compare_exact)(void *ctx, const void *out, const void *ref, size_t n, size_t *bad,
                         size_t *first);
    /* Copy between two device buffers. */
    int (*copy_on_device)(void *ctx, void *dst, const void *src, size_t bytes);
    /* The yardstick of a memory-bound op: cudaMemcpy device-to-device of `bytes` / 2 bytes
     * (an op's bytes count reads and writes), between buffers the core owns. */
    int (*memcpy_yardstick)(void *ctx, double bytes, CutuneYardstick *out);

    /* ---- 1.6 ---- */

    /* random_uniform's numbers, bit for bit, made on the device into n floats at dptr
     * (device memory): no host memory, no copy, and no CPU time taken from the compiles. */
    int (*random_uniform_device)(void *ctx, uint64_t seed, uint64_t stream, float *dptr, size_t n,
                                 float lo, float hi);
} CutuneHost;

/* 1 when the host table has service `field` (a service added after the op's ABI). */
#define CUTUNE_HOST_HAS(host, field) \
    ((host)->struct_size >= offsetof(CutuneHost, field) + sizeof((host)->field) && \
     (host)->field != NULL)

/* The op descriptor. */
typedef struct CutuneOp {
    uint32_t abi_major;   /* CUTUNE_ABI_MAJOR */
    uint32_t abi_minor;   /* CUTUNE_ABI_MINOR */
    uint32_t struct_size; /* sizeof(CutuneOp) */

    const char *name;      /* e.g. "matmul": what variants name in their [variant] op */
    const char *summary;   /* one line for `cutune list` */
    const char *dim_names; /* comma-separated names of the problem dimensions, e.g. "M,N,K";
                              constraints and [launch] expressions use them */
    const char *size_help; /* how a size is written, e.g. "MxNxK (C is MxN); N means NxNxN" */
    const char *signature; /* the kernel's parameters, as a variant writes them, e.g.
                              "const float *A, const float *B, float *C, int M, int N, int K";
                              the word T stands for the problem's element type (float for
                              fp32 and tf32, unsigned short for fp16 and bf16) */
    int nargs;             /* how many arguments kernel_args passes */

    /* Validate (and may normalise, e.g. "N" into NxNxN) a parsed problem: the number of
     * dimensions and their limits. Write a message into err on failure. */
    int (*check_problem)(CutuneProblem *p, char *err, size_t errlen);

    /* Allocate inputs and the output on the device, fill the inputs with seeded random
     * values, compute the reference. *state is the op's own; teardown frees it. */
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

    /* ---- optional (NULL: not offered) ---- */

    /* How far apart two problems are, for applications' lookups that find no config
     * tuned for their exact size: >= 0, and 0 only for equal problems. NULL: the core
     * uses sqrt(sum_i (ln a_i - ln b_i)^2). */
    double (*problem_distance)(const CutuneProblem *a, const CutuneProblem *b);

    /* Limits of the op's own buffers on a launch (e.g. at most so many blocks, one scratch
     * slot each). Returns 0 when the launch fits; otherwise writes why into `why`, and the
     * config is recorded as skipped_resources. */
    int (*check_launch)(const CutuneProblem *p, const CutuneLaunch *l, char *why, size_t len);

    /* A vendor routine on the inputs of `state` (see CutuneYardstick). Returns 0 with *out
     * filled, or CUTUNE_ERR_NOT_FOUND (with host->fail saying why) when the routine's
     * library is missing. */
    int (*yardstick)(const CutuneHost *host, void *state, const CutuneProblem *p,
                     CutuneYardstick *out);

    /* ---- 1.4, optional ---- */

    /* A ragged problem near p: dimensions that are multiples of no tile a variant may use,
     * as near p as the op allows. Before the best config of a size may answer other sizes
     * (an application's nearest-size lookup), the core checks it there. Returns 0 with *out
     * filled (equal to *p when p is ragged already), or < 0 with `why` filled when the op
     * has none near p (its configs then answer only their own size). NULL: each dimension
     * d > 1 that is even becomes d - 1 (an odd number is a multiple of no even tile). */
    int (*ragged_problem)(const CutuneProblem *p, CutuneProblem *out, char *why, size_t len);

    /* The element types and layouts the op computes (comma-separated names of
     * CUTUNE_DTYPE_TABLE and CUTUNE_LAYOUT_TABLE); NULL: "fp32" and "nn" alone. The core
     * refuses a problem of any other before check_problem sees it. */
    const char *dtypes;
    const char *layouts;

    /* ---- 1.7, optional ---- */

    /* The epilogues the op computes (names of CUTUNE_EPILOGUE_TABLE); NULL: "none" alone.
     * The core refuses a problem with any other, and offers a problem only to the variants
     * whose INI lists its epilogue. */
    const char *epilogues;
} CutuneOp;

/* The symbol every op plugin exports. */
typedef const CutuneOp *(*CutuneOpEntry)(void);

#if defined(__GNUC__)
#define CUTUNE_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define CUTUNE_PLUGIN_EXPORT
#endif

/* ---- header-only helpers for op authors ---- */

/* ceil(a / b) for positive b */
static inline int64_t cutune_ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

/* Allocate n floats on the device and fill them with seeded uniform values in [lo, hi)
 * (generator stream `stream`). With host_copy non-NULL the host values are handed back
 * (malloc'd: the caller frees them); otherwise they are freed here. */
static inline int cutune_op_random_floats(const CutuneHost *host, size_t n, uint64_t seed,
                                          uint64_t stream, float lo, float hi, float **dev,
                                          float **host_copy)
{
    *dev = NULL;
    if (host_copy)
        *host_copy = NULL;
    if (!host_copy && CUTUNE_HOST_HAS(host, random_uniform_device)) { /* made where used */
        int rc = host->dev_alloc(host->ctx, n * sizeof(float), (void **)dev);
        return rc ? rc : host->random_uniform_device(host->ctx, seed, stream, *dev, n, lo, hi);
    }
    float *h = (float *)malloc((n ? n : 1) * sizeof *h);
    if (!h)
        return host->fail(host->ctx, CUTUNE_ERR_NOMEM, "out of host memory for %zu inputs", n);
    host->random_uniform(seed, stream, h, n, lo, hi);
    int rc = host->dev_alloc(host->ctx, n * sizeof *h, (void **)dev);
    if (!rc)
        rc = host->copy_to_device(host->ctx, *dev, h, n * sizeof *h);
    if (rc || !host_copy)
        free(h);
    else
        *host_copy = h;
    return rc;
}

/* Copy `bytes` of host memory into a new device buffer (*dev; freed by dev_free or at
 * teardown): for references computed on the host. */
static inline int cutune_op_upload(const CutuneHost *host, const void *src, size_t bytes,
                                   void **dev)
{
    int rc = host->dev_alloc(host->ctx, bytes, dev);
    if (!rc)
        rc = host->copy_to_device(host->ctx, *dev, src, bytes);
    return rc;
}

/* Fill a device buffer with 0xFF bytes: NaN for floats, -1 for integers. */
static inline int cutune_op_poison(const CutuneHost *host, void *dptr, size_t bytes)
{
    return host->dev_memset(host->ctx, dptr, 0xFF, bytes);
}

/* The verdict of an exact check of n floats (out and ref on the device): passed when every
 * one is bit-identical; error is the number that differ, and the message names the first
 * as name[row][col] for rows of row_len elements. Returns 0 when the check ran. */
static inline int cutune_op_check_exact_f32(const CutuneHost *host, const float *out,
                                            const float *ref, size_t n, const char *name,
                                            size_t row_len, CutuneCheck *verdict)
{
    size_t bad = 0, first = 0;
    int rc = host->compare_exact(host->ctx, out, ref, n, &bad, &first);
    memset(verdict, 0, sizeof *verdict);
    verdict->passed = bad == 0 && rc == 0;
    verdict->error = (double)bad; /* wrong elements; the tolerance is none */
    if (rc || !bad)
        return rc;
    float got = 0, want = 0;
    if ((rc = host->copy_to_host(host->ctx, &got, out + first, sizeof got)) ||
        (rc = host->copy_to_host(host->ctx, &want, ref + first, sizeof want)))
        return rc;
    snprintf(verdict->message, sizeof verdict->message,
             "%zu of %zu elements wrong; first at %s[%zu][%zu]: got %.9g, expected %.9g", bad, n,
             name, first / (row_len ? row_len : 1), first % (row_len ? row_len : 1), (double)got,
             (double)want);
    return 0;
}

#ifdef __cplusplus
}
#endif
#endif
