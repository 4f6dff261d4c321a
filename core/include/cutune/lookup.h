/* cutune lookup: tuned kernels in applications.
 *
 * An application opens the tuning database read-only, asks for the best verified config
 * of an op on its GPU for a problem size, and launches that kernel on its own device
 * buffers and stream:
 *
 *     CutuneLookup *h = NULL;
 *     CutuneLookupSettings s;
 *     cutune_lookup_default_settings(&s);
 *     if (cutune_open(&h, &s, &err) == 0) {
 *         cutune_matmul(h, dA, dB, dC, M, N, K, stream, &used, &err);  // look up + launch
 *         cutune_close(&h);
 *     }
 *
 * Conventions of cutune.h: 0 or a negative CUTUNE_ERR_* code; a CutuneError (may be NULL)
 * receives a message for a person.
 *
 * The fallback ladder. A lookup of (op, device, size) answers from the first step that has
 * a verified config, and says which one in CutuneLookupResult.match:
 *   1. CUTUNE_MATCH_EXACT      this device, this size;
 *   2. CUTUNE_MATCH_SAME_MODEL another GPU of the same model, this size: the fastest of
 *                              them. Two GPUs are one model when their name, compute
 *                              capability, SM count and memory size are equal (a fleet of
 *                              identical GPUs shares its results); a GPU whose SM count or
 *                              memory is not recorded is a model of its own;
 *   3. CUTUNE_MATCH_NEAREST    the nearest tuned size of the same op on this device or a GPU
 *                              of its model (at one size, this device's own first). The
 *                              distance between sizes a and b with the same number of
 *                              dimensions is sqrt(sum_i (ln a_i - ln b_i)^2) (so 512 vs 1024
 *                              is as far as 1024 vs 2048), unless the op supplies its own
 *                              (CutuneOp.problem_distance in cutune/op.h; a C variant
 *                              plugin that brings its own op sets it in its descriptor);
 *   4. CUTUNE_MATCH_SAME_ARCH  another device with the same compute capability (cc_major,
 *                              cc_minor), its exact size or else its nearest tuned size;
 *   5. CUTUNE_MATCH_NONE       nothing: the call returns CUTUNE_ERR_NOT_FOUND.
 * CutuneLookupResult.device_uuid says which GPU an answer was tuned on.
 * Checked. Every answer was checked by cutune on the device it was tuned on: trials
 * imported from other tools are never a best (`cutune run` checks them first). A config
 * tuned at one size answers another (the nearest steps) only when a run has also checked
 * it at a ragged size near its own, dimensions that are multiples of no tile (a config
 * right only when K is a multiple of 64 fails there); one that failed, or was never
 * checked so, answers its own size alone. CutuneLookupResult.checked_size says which.
 * Ties (distances equal within 1e-12 relative) go to the smaller dimensions in order
 * (M, then N, ...), then to
 * this device's own best, then the faster, then the device UUID in byte order: the same
 * database always gives the same answer.
 *
 * The cache. Every answer, misses included, is kept in memory per handle, keyed by
 * (device UUID, op, size). It is never invalidated while the handle lives: a config tuned
 * after the first lookup of a key is seen by a handle opened after it. Close and re-open
 * the handle to see new results.
 *
 * Concurrency. The handle reads through its own read-only SQLite connection; the database
 * is in WAL mode, so a lookup never blocks a tuning run that writes, and a run never
 * blocks a lookup. A handle may be used from several threads: calls on one handle are
 * serialised by a mutex inside it. */
#ifndef CUTUNE_LOOKUP_H
#define CUTUNE_LOOKUP_H

#include <stddef.h>
#include <stdint.h>

#include "cutune/cutune.h"
#include "cutune/op.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An open tuning database with its lookup cache and loaded kernels. Opaque. */
typedef struct CutuneLookup CutuneLookup;

typedef struct CutuneLookupSettings {
    /* Database file; NULL: $CUTUNE_DB, else $XDG_DATA_HOME/cutune/cutune.db, else
     * ~/.local/share/cutune/cutune.db (where `cutune run` writes). Copied by cutune_open. */
    const char *db_path;
    /* 1: a lookup that fell back (nearest, same_arch) or missed adds its key to the
     * database's `requests` table, once per key and handle, so that `cutune run --pending`
     * tunes it. This opens a second, read-write connection on the first such lookup;
     * a failure to record never fails the lookup (see CutuneLookupResult.recorded). */
    int record_requests;
    /* 1 (default): use an op's plugin distance for the nearest step when the plugin
     * provides one; 0: always the log distance. Either way the plugins are loaded on the
     * first lookup, for the ops' size rules (see cutune_lookup). */
    int plugin_distance;
} CutuneLookupSettings;

/* Fill s with the defaults: default database path, no recording, plugin distances on. */
CUTUNE_API void cutune_lookup_default_settings(CutuneLookupSettings *s);

/* Open the database read-only and make a handle. *h is NULL on failure.
 * Errors: CUTUNE_ERR_NOT_FOUND (no database file: nothing tuned yet), CUTUNE_ERR_DB
 * (not a cutune database, a schema newer than this library, or older than it: run any
 * recording `cutune` command once to upgrade it), CUTUNE_ERR_NOMEM, CUTUNE_ERR_INVALID. */
CUTUNE_API int cutune_open(CutuneLookup **h, const CutuneLookupSettings *s, CutuneError *err);

/* Create the tuning database at path (NULL: the default path, as cutune_open reads it), in
 * cutune's schema, or upgrade the one there: 0 when it exists afterwards. For an application
 * that records requests before anything was tuned (cutune_open opens only an existing
 * database). Errors: CUTUNE_ERR_DB (not a cutune database, or one newer than this library),
 * CUTUNE_ERR_IO or CUTUNE_ERR_INVALID (the folder cannot be made or written). */
CUTUNE_API int cutune_db_create(const char *path, CutuneError *err);

/* Unload the kernels, close the database and free the handle; sets *h to NULL. NULL and
 * *h == NULL are fine. Call it while the CUDA context the kernels were launched in still
 * exists (before cudaDeviceReset). */
CUTUNE_API void cutune_close(CutuneLookup **h);

/* Describe CUDA device `ordinal` (UUID, name, compute capability, limits) without making
 * it current. Errors: CUTUNE_ERR_NO_DEVICE, CUTUNE_ERR_NOT_FOUND (no such ordinal),
 * CUTUNE_ERR_CUDA. */
CUTUNE_API int cutune_device_describe(int ordinal, CutuneDeviceInfo *out, CutuneError *err);

typedef enum CutuneMatch {
    CUTUNE_MATCH_NONE = 0,
    CUTUNE_MATCH_EXACT = 1,
    CUTUNE_MATCH_NEAREST = 2,
    CUTUNE_MATCH_SAME_ARCH = 3,
    CUTUNE_MATCH_SAME_MODEL = 4, /* appended: the values are the ABI, not the ladder's order */
} CutuneMatch;

/* "none", "exact", "nearest", "same_arch", "same_model"; "unknown" for another value. */
CUTUNE_API const char *cutune_match_name(CutuneMatch m);

/* The answer of a lookup. Plain data owned by the caller; strings NUL-terminated. A text
 * of the database that does not fit its field is never cut: the call fails with
 * CUTUNE_ERR_RANGE instead. */
typedef struct CutuneLookupResult {
    CutuneMatch match;
    char op[64];
    char size[64];        /* the size asked for, canonical ("1024x1024x1024") */
    char tuned_size[64];  /* the size the config was tuned for */
    char device_uuid[64]; /* the device it was tuned on */
    char device_name[256];
    char variant[64]; /* the plugin that implements it */
    char variant_version[32];
    char config[512]; /* "TILE=32,PAD=1,WPT=4,UNROLL=8" */
    double median_ms; /* measured at tuned_size on that device */
    double gflops;    /* 0 when the op has no flop count */
    double distance;  /* 0 for an exact size; the ladder's distance otherwise */
    int64_t trial_id;
    int recorded; /* 1: this call added or counted the key in `requests` */
    /* Where the config was checked on its device: tuned_size itself for an exact answer
     * (and a same_arch one of the same size); for an answer of another size, the ragged
     * size near tuned_size at which it passed (see "Checked" above). */
    char checked_size[64];
} CutuneLookupResult;

/* The best config for (op, device, size) down the fallback ladder (see the top of this
 * file). `device` needs only uuid; with cc_major > 0 its compute capability is taken from
 * it, otherwise from the database's record of that UUID (a device never tuned and given
 * without cc_major can only match exactly, i.e. not at all); likewise its model, from
 * name, cc, sm_count and total_mem when all are given (a GPU never tuned finds what GPUs
 * of its model tuned). A device with uuid "" and its model's four fields is the model
 * itself (what cutune_device_find gives for a name that several GPUs of one model share):
 * step 1 is skipped, and such a lookup is never recorded as a request. `size` is read by the op
 * plugin's size rules, as `cutune run --size` reads it: "1024" is "1024x1024x1024" for
 * matmul (MxNxK), and "1024-bf16-nt" is matmul in bf16 with B stored N x K (cutune/op.h);
 * without the plugins it is read as written. A lookup of an op that no
 * installed plugin implements is answered, but never recorded as a request.
 * Returns 0 with out filled (match != NONE); CUTUNE_ERR_NOT_FOUND with out->match NONE when
 * no step answers; CUTUNE_ERR_PARSE for a malformed size, CUTUNE_ERR_INVALID for a size the
 * op refuses (neither is recorded); CUTUNE_ERR_DB, ... */
CUTUNE_API int cutune_lookup(CutuneLookup *h, const CutuneDeviceInfo *device, const char *op,
                             const char *size, CutuneLookupResult *out, CutuneError *err);

/* The vendor yardstick recorded for (op, device, size): the vendor library's time for that
 * problem that `cutune run` measured beside the tuned kernels in the same worker (cuBLASLt
 * or cuBLAS for matmul, a device-to-device copy for the memory-bound ops), so that an
 * application can tell whether the tuned best (CutuneLookupResult.median_ms) is faster than
 * the library it would call otherwise. It answers from this device at this size (the
 * newest measurement), else from the other GPUs of its model (as the ladder defines it) at
 * this size: the fastest of their newest, as the ladder's step 2 answers with the fastest
 * of their bests. Never from another size. `device` and `size` are read as cutune_lookup
 * reads them (a device with uuid "" is its model). Not cached: it reads the database as it
 * is now. *median_ms receives the time in milliseconds and name[name_len] (NULL: not
 * wanted) the yardstick's name ("cuBLASLt bf16", say).
 * Errors: CUTUNE_ERR_NOT_FOUND when none was recorded (a database from a cutune that
 * recorded none, or a size tuned without one), CUTUNE_ERR_PARSE, CUTUNE_ERR_INVALID (as
 * cutune_lookup), CUTUNE_ERR_RANGE (the name does not fit name[name_len]; never cut),
 * CUTUNE_ERR_DB. */
CUTUNE_API int cutune_lookup_yardstick(CutuneLookup *h, const CutuneDeviceInfo *device,
                                       const char *op, const char *size, double *median_ms,
                                       char *name, size_t name_len, CutuneError *err);

/* Launch the kernel of a lookup result for problem `size` on the calling thread's current
 * CUDA device, asynchronously on `stream` (NULL: the default stream). args[i] points at
 * the i-th kernel argument, in the order of the op's documented kernel signature (for
 * matmul: const float *A, const float *B, float *C, int M, int N, int K); cutune supplies
 * the kernel and its launch geometry, so the application needs to know nothing of the
 * tuning space. The kernel is compiled with NVRTC on first use (or read from the kernel
 * cache, ~/.cache/cutune) and kept loaded in the handle. The config of a library variant
 * (cutune/plugin.h; matmul_cublaslt, one of cuBLASLt's algorithms) is a call into that
 * library instead: prepared on its first launch at that size on that device and stream
 * (the library's algorithm and workspace, kept in the handle), called on every launch.
 * CUDA graphs: a launch on a capturing stream is captured (the kernel, or the library's
 * call); a first use there compiles, loads or prepares outside the graph, which then refers
 * to what the handle holds: keep the handle open while the graph may be launched. Beyond a
 * first use, a launch makes no allocation, copy or synchronisation.
 * Errors: CUTUNE_ERR_NOT_FOUND (no installed plugin has the result's variant and version:
 * re-tune or install it; for matmul_cublaslt also a cuBLASLt other than the one it was
 * tuned with, or none), CUTUNE_ERR_RESOURCES (the config does not fit this device, e.g. a
 * same_arch answer), CUTUNE_ERR_COMPILE, CUTUNE_ERR_CUDA, CUTUNE_ERR_INVALID (the plugin
 * refuses the size, or match is NONE). A launch error is the launch's own (not the
 * kernel's completion): synchronise the stream to see those. */
CUTUNE_API int cutune_launch(CutuneLookup *h, const CutuneLookupResult *r, const char *size,
                             void **args, void *stream, CutuneError *err);

/* C = A * B, float32, row-major (A MxK, B KxN, C MxN), all device pointers on the calling
 * thread's current device: looks up "matmul" MxNxK for that device and launches the
 * answer on `stream`. `used` (may be NULL) receives the lookup result. Errors: those of
 * cutune_lookup (CUTUNE_ERR_NOT_FOUND when nothing is tuned for this device or its
 * architecture) and of cutune_launch. */
CUTUNE_API int cutune_matmul(CutuneLookup *h, const float *A, const float *B, float *C, int M,
                             int N, int K, void *stream, CutuneLookupResult *used,
                             CutuneError *err);

/* C = A * B in element type `dtype` and layout `layout` (CutuneDtype and CutuneLayout of
 * cutune/op.h): A is MxK, B is KxN (CUTUNE_LAYOUT_NN) or NxK (CUTUNE_LAYOUT_NT: C = A B^T,
 * what PyTorch's F.linear computes), C is MxN, row-major, float (fp32, tf32) or 16-bit
 * (fp16, bf16) elements, device pointers on the calling thread's current device: looks up
 * "matmul" at "MxNxK-bf16-nt" (say) and launches the answer on `stream`. A lookup never
 * answers with a config of another element type, layout or epilogue. The handle keeps the launch it
 * prepares for a shape (64 shapes, the oldest dropped beyond), so that a shape called again
 * costs the launch alone: the lookup's answer holds for the handle's life, as its cache
 * does (open a new handle to see configs tuned since). Errors: those of cutune_matmul, and
 * CUTUNE_ERR_INVALID for a dtype or layout out of range. */
CUTUNE_API int cutune_gemm(CutuneLookup *h, int dtype, int layout, const void *A, const void *B,
                           void *C, int M, int N, int K, void *stream, CutuneLookupResult *used,
                           CutuneError *err);

/* C = A * B + bias, as cutune_gemm, with bias a device vector of N elements of `dtype`
 * added to every row of C before the output's rounding (PyTorch's F.linear(x, W, b) in
 * layout nt): looks up "MxNxK-bf16-nt-bias" (say), tuned and checked with its bias, and
 * never answers with a config of another epilogue. fp16 and bf16 (the matmul op's bias
 * epilogue); bias NULL is cutune_gemm. */
CUTUNE_API int cutune_gemm_bias(CutuneLookup *h, int dtype, int layout, const void *A,
                                const void *B, const void *bias, void *C, int M, int N, int K,
                                void *stream, CutuneLookupResult *used, CutuneError *err);

/* cutune_launch and cutune_matmul on CUDA device `device` (an ordinal) instead of the
 * calling thread's current one: `device` is made current for the call and the previous
 * current device is restored before it returns, whatever the outcome. For callers whose
 * notion of the current device is their own (a Python framework's, say). Errors: those of
 * cutune_launch and cutune_matmul, and CUTUNE_ERR_NOT_FOUND for an ordinal the machine
 * does not have. */
CUTUNE_API int cutune_launch_on(CutuneLookup *h, int device, const CutuneLookupResult *r,
                                const char *size, void **args, void *stream, CutuneError *err);
CUTUNE_API int cutune_matmul_on(CutuneLookup *h, int device, const float *A, const float *B,
                                float *C, int M, int N, int K, void *stream,
                                CutuneLookupResult *used, CutuneError *err);
CUTUNE_API int cutune_gemm_on(CutuneLookup *h, int device, int dtype, int layout, const void *A,
                              const void *B, void *C, int M, int N, int K, void *stream,
                              CutuneLookupResult *used, CutuneError *err);
CUTUNE_API int cutune_gemm_bias_on(CutuneLookup *h, int device, int dtype, int layout,
                                   const void *A, const void *B, const void *bias, void *C, int M,
                                   int N, int K, void *stream, CutuneLookupResult *used,
                                   CutuneError *err);

/* A device recorded in the handle's database, found by its UUID (exact) or by a
 * case-insensitive part of its name ("H200"): fills out->uuid, name, cc_major, cc_minor,
 * sm_count, total_mem, driver_version and runtime_version (the other fields are 0), so
 * that a machine without that GPU, or without any, can look up what was tuned on it. A
 * name that several GPUs share, all of one model (see the ladder), finds that model:
 * out->uuid is "" and name, cc_major, cc_minor, sm_count and total_mem are the model's,
 * which cutune_lookup answers over all of its GPUs.
 * Errors: CUTUNE_ERR_NOT_FOUND (no such device; the message lists the recorded ones),
 * CUTUNE_ERR_INVALID (the pattern matches GPUs of several models, same-named GPUs with
 * different SM counts or memory among them; the message names them and says to give a
 * UUID). */
CUTUNE_API int cutune_device_find(CutuneLookup *h, const char *pattern, CutuneDeviceInfo *out,
                                  CutuneError *err);

/* Every best config of the database (the fastest verified trial per device, op and size),
 * of one device (a UUID or part of a name, as cutune_device_find, a model's name giving
 * each of its GPUs' bests; NULL: every device) and
 * one op (NULL: every op), ordered by device UUID, op and size. *list receives a malloc'ed
 * array of *count results (NULL and 0 when there are none), each with match EXACT, size
 * and tuned_size equal, distance 0; free it with cutune_best_list_free. Reads the database
 * as it is now (the lookup cache plays no part). Errors: those of cutune_device_find,
 * CUTUNE_ERR_DB, CUTUNE_ERR_NOMEM; *list is NULL on failure. */
CUTUNE_API int cutune_best_list(CutuneLookup *h, const char *device, const char *op,
                                CutuneLookupResult **list, size_t *count, CutuneError *err);
/* Free a list of cutune_best_list and set *list to NULL; NULL is fine. */
CUTUNE_API void cutune_best_list_free(CutuneLookupResult **list);

#ifdef __cplusplus
}
#endif
#endif
