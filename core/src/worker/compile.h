/* Run-time compilation of kernel sources with NVRTC, with an on-disk cache of cubins. */
#ifndef CUTUNE_COMPILE_H
#define CUTUNE_COMPILE_H

#include <stddef.h>
#include <stdint.h>

#include "cutune/cutune.h"
#include "cutune/op.h"
#include "pool.h"
#include "space.h"
#include "space_limits.h"

typedef struct CutuneKernelBinary {
    void *cubin; /* malloc'd; NULL when compilation failed */
    size_t size;
    char *log;         /* malloc'd compiler log (may be NULL); the error text on failure */
    double compile_ms; /* wall time of the NVRTC call, 0 when it came from the cache */
    int from_cache;
} CutuneKernelBinary;

/* An architecture with this bit set is its arch-specific target: 90 | CUTUNE_ARCH_SPECIFIC
 * compiles for sm_90a (wgmma, setmaxnreg: instructions of that architecture alone). */
#define CUTUNE_ARCH_SPECIFIC 0x10000

/* Compile `source` for sm_<arch> (e.g. 90) with `defines` (each "NAME=value", passed as
 * -D) into a cubin. With cache_dir non-NULL the cubin is looked up and stored there,
 * keyed by the source, kernel name, options, architecture and NVRTC version.
 * Returns 0 with out->cubin set, CUTUNE_ERR_COMPILE with out->log holding the compiler's
 * messages, or another error. Thread-safe. */
int cutune_nvrtc_compile(const char *source, const char *kernel_name, const char *const *defines,
                         size_t ndefines, int arch, const char *cache_dir, CutuneKernelBinary *out,
                         CutuneError *err);
void cutune_kernel_binary_free(CutuneKernelBinary *b);
/* NVRTC on the source with these options, in this process, no cache: 0 with out->cubin
 * set, or CUTUNE_ERR_COMPILE with out->log (and err) holding the compiler's messages. What
 * a compile process runs for its caller (compile_proc.h). */
int cutune_nvrtc_run(const char *source, const char *kernel_name, const char *const *opts,
                     size_t nopts, CutuneKernelBinary *out, CutuneError *err);

/* Where a compile job's NVRTC runs, if not in this process (cutune_nvrtc_run): as
 * cutune_nvrtc_run, or 1 when it cannot, and the job then compiles here after all. */
typedef int (*CutuneNvrtcRunner)(const char *source, const char *kernel_name,
                                 const char *const *opts, size_t nopts, CutuneKernelBinary *out,
                                 CutuneError *err);

/* The PTX NVRTC makes of `source` (a program named `name`) for compute_<arch> with
 * `defines` (no GPU needed, no cache): 0 with *ptx malloc'd, or CUTUNE_ERR_COMPILE with the
 * compiler's messages in err. */
int cutune_nvrtc_ptx(const char *source, const char *name, const char *const *defines,
                     size_t ndefines, int arch, char **ptx, CutuneError *err);

/* How many parameters kernel `kernel_name` of `source` takes, read from the PTX that NVRTC
 * makes for compute_<arch> with `defines` (no GPU needed, no cache). Returns 0 with
 * *nparams set, CUTUNE_ERR_COMPILE (err holds the compiler's messages) or
 * CUTUNE_ERR_NOT_FOUND when the PTX has no such entry. */
int cutune_nvrtc_kernel_params(const char *source, const char *kernel_name,
                               const char *const *defines, size_t ndefines, int arch, int *nparams,
                               CutuneError *err);

/* What ptxas reports of the kernel's local memory (-Xptxas=-v) where it compiles `source`
 * for sm_<arch> with `defines`: its stack frame and its spill stores, in bytes (no cache: the
 * report comes only from a compile). Returns 0 with both set (-1 where the log did not say),
 * or the compile's error. */
int cutune_nvrtc_local_memory(const char *source, const char *kernel_name,
                              const char *const *defines, size_t ndefines, int arch,
                              int *stack_bytes, int *spill_bytes, CutuneError *err);

/* A config's defines for NVRTC: "NAME=value" for each parameter of its space. */
typedef struct CutuneDefines {
    char text[CUTUNE_MAX_PARAMS + 3][CUTUNE_NAME_MAX + 24];
    const char *ptr[CUTUNE_MAX_PARAMS + 3];
    size_t n;
} CutuneDefines;

void cutune_defines_of(const CutuneSpace *sp, const int64_t *values, CutuneDefines *d);
/* Append the problem's element type, layout and epilogue: CUTUNE_DTYPE_<NAME>=1,
 * CUTUNE_LAYOUT_<NAME>=1 and CUTUNE_EPILOGUE_<NAME>=1 (e.g. CUTUNE_DTYPE_BF16,
 * CUTUNE_LAYOUT_NT, CUTUNE_EPILOGUE_BIAS), which every kernel is compiled with; p NULL: fp32,
 * nn and none. */
void cutune_defines_kind(CutuneDefines *d, const CutuneProblem *p);

/* One config's compile as a job for the thread pool (pool.h): cutune_compile_job_init
 * fills it (kind: the problem whose element type and layout it is compiled for, see
 * cutune_defines_kind), cutune_pool_submit runs cutune_nvrtc_compile on a pool thread, and after
 * cutune_pool_wait rc, err and bin hold what it gave; cutune_compile_job_clear frees bin. A
 * job whose source is NULL (a library variant's config) compiles nothing: rc 0, bin empty
 * (no cubin, compile_ms 0). */
typedef struct CutuneCompileJob {
    CutuneJob job; /* first: the pool's handle */
    const char *source, *kernel_name, *cache_dir;
    int arch;
    CutuneDefines d;
    size_t index;             /* the caller's: which config */
    CutuneNvrtcRunner runner; /* NULL (cutune_compile_job_init's): NVRTC in this process */
    int ahead; /* a compile ahead of need, into cache_dir only: it makes nothing when the
                  cache has the config or another thread is compiling it now (rc 0, no
                  cubin; bin.from_cache 1 for the first) */
    CutuneKernelBinary bin;
    int rc;
    CutuneError err;
} CutuneCompileJob;

void cutune_compile_job_init(CutuneCompileJob *c, const char *source, const char *kernel_name,
                             const CutuneSpace *sp, const int64_t *values,
                             const CutuneProblem *kind, int arch, const char *cache_dir,
                             size_t index);
void cutune_compile_job_clear(CutuneCompileJob *c);

/* "13.0", for messages and the database. */
void cutune_nvrtc_version(char *buf, size_t len);

#endif
