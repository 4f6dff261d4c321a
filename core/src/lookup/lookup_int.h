/* The lookup handle's insides, shared by lookup.c (the ladder, the cache), launch.c (tuned
 * launches) and lookup_kernels.c (what the handle holds loaded). */
#ifndef CUTUNE_LOOKUP_INT_H
#define CUTUNE_LOOKUP_INT_H

#include <pthread.h>
#include <string.h>

#include "config_text.h"
#include "util.h"
#include "cutune/lookup.h"
#include "db.h"
#include "host.h"
#include "lookup_cache.h"
#include "registry.h"
#include "tensor_maps.h"

#define CUTUNE_LOOKUP_MAX_DEVICES 64

/* A kernel compiled for one (variant, version, config, arch) and loaded. */
typedef struct CutuneTunedKernel {
    char *key; /* variant \x1f version \x1f config \x1f arch */
    const CutuneVariantDef *variant;
    CutuneGeometry *geo; /* its launch, for the config's parameter names */
    CutuneLoadedKernel k;
    CutuneConfigPairs *pairs; /* the config, parsed; names[] point into it */
    const char *names[CUTUNE_MAX_PARAMS];
    int64_t values[CUTUNE_MAX_PARAMS];
    size_t nparams;
    int max_threads; /* from the compiled kernel (registers decide it) */
    size_t static_shared;
    /* per device ordinal, the dynamic shared memory the kernel was allowed there
     * (cudaFuncSetAttribute): set once, not on every launch */
    size_t shared_allowed[CUTUNE_LOOKUP_MAX_DEVICES];
} CutuneTunedKernel;

/* A launch made ready (launch.c): what cutune_launch decides from a lookup result, the size
 * and the device before it launches, kept by cutune_gemm for the next call of the shape. */
typedef struct CutunePrepared {
    size_t kernel;                   /* index in the handle's kernels (they move as it grows) */
    const CutuneVariantDef *library; /* a library variant's: its call launches, no kernel */
    CutuneProblem prob;
    CutuneLaunch l;
    CutuneTensorMaps maps; /* evaluated for the problem; encoded on each call's buffers */
    int device, arch;
    /* the maps last encoded, and the addresses they were encoded on */
    int maps_encoded;
    void *map_addr[CUTUNE_MAX_TENSOR_MAPS];
    unsigned char map_bytes[CUTUNE_MAX_TENSOR_MAPS][128];
} CutunePrepared;

/* gemm.c: a cutune_gemm call's key, its lookup's answer and its prepared launch. */
typedef struct CutuneGemmMemo {
    int device, dtype, layout, epilogue, M, N, K;
    CutuneLookupResult r;
    CutunePrepared p;
} CutuneGemmMemo;

#define CUTUNE_GEMM_MEMO_SIZE 64 /* shapes kept; beyond, the oldest entry goes */

/* A library variant's config (cutune/plugin.h, ABI 1.5) prepared for one problem, device
 * and stream: its plugin's handle and the host table it allocates through. Allocated one by
 * one, so that the host table the plugin keeps a pointer to never moves. */
typedef struct CutuneLibraryCall {
    char *key; /* variant \x1f version \x1f config \x1f size \x1f device \x1f stream */
    const CutuneVariant *v;
    void *handle;
    CutuneHostCtx hc;
    CutuneError err; /* the plugin's messages (hc.err) */
} CutuneLibraryCall;

struct CutuneLookup {
    pthread_mutex_t mu; /* every public call holds it */
    CutuneLookupSettings s;
    char *path;
    CutuneDb *db;  /* read-only */
    CutuneDb *rw;  /* read-write, opened on the first request to record */
    int rw_failed; /* do not retry a read-write open that failed */
    struct sqlite3_stmt *q_exact, *q_device, *q_arch, *q_dev, *q_model_exact, *q_model;
    CutuneLookupCache cache;
    CutuneRegistry reg;
    int reg_state; /* 0 not loaded, 1 loaded, -1 failed */
    CutuneTunedKernel *kernels;
    size_t nkernels;
    CutuneLibraryCall **libcalls;
    size_t nlibcalls;
    CutuneDeviceInfo devs[CUTUNE_LOOKUP_MAX_DEVICES];
    unsigned char dev_known[CUTUNE_LOOKUP_MAX_DEVICES];
    CutuneGemmMemo *memo; /* gemm.c; CUTUNE_GEMM_MEMO_SIZE entries once the first is made */
    size_t nmemo, memo_next;
};

/* Copy a database text into a result's field dst[len]. A text that does not fit is never
 * cut (a cut config would be launched): dst becomes "" and *too_long names the field, for
 * a CUTUNE_ERR_RANGE. */
static inline void lookup_put(char *dst, size_t len, const char *src, const char *field,
                              const char **too_long)
{
    size_t n = strlen(src);
    if (n < len) {
        memcpy(dst, src, n + 1);
        return;
    }
    dst[0] = '\0';
    if (!*too_long)
        *too_long = field;
}

/* The asking GPU's model: its compute capability and, where known, name, SM count and
 * memory. */
typedef struct CutuneLookupModel {
    char name[256];
    int cc_major, cc_minor, sm_count;
    int64_t total_mem;
} CutuneLookupModel;

/* lookup.c: the device's model: as given (all of it, or its compute capability alone), else
 * as the database recorded its UUID (the mutex held). */
int cutune_lookup_model(CutuneLookup *h, const CutuneDeviceInfo *dev, CutuneLookupModel *m,
                        CutuneError *err);
/* lookup.c: bind ?1 to ?5 of st to the model (name, compute capability, SM count, memory),
 * ?6 to the device's UUID and ?7 to the op, as every query by model numbers them; an
 * SQLITE_* code. */
int cutune_lookup_bind_model(struct sqlite3_stmt *st, const CutuneLookupModel *m, const char *uuid,
                             const char *op);
/* 1 when the model's name, compute capability, SM count and memory are all known: only
 * then has it other GPUs (see the ladder in cutune/lookup.h). */
int cutune_lookup_model_known(const CutuneLookupModel *m);
/* `size` of `op` read as cutune_lookup reads it (the op's size rules where the plugins load,
 * taking the mutex for that), written canonical into canonical[len]; *known 0 for an op no
 * installed plugin implements. Errors: CUTUNE_ERR_PARSE, CUTUNE_ERR_INVALID. */
int cutune_lookup_size(CutuneLookup *h, const char *op, const char *size, CutuneProblem *want,
                       char *canonical, size_t len, int *known, CutuneError *err);

/* Load the plugins once (the mutex held). 0, or the load's error. */
int cutune_lookup_registry(CutuneLookup *h, CutuneError *err);
/* lookup_kernels.c: unload one tuned kernel and free what it owns (not k itself). */
void cutune_tuned_kernel_free(CutuneTunedKernel *k);
/* Unload every tuned kernel and release every library call (the mutex held). */
void cutune_lookup_kernels_free(CutuneLookup *h);

/* launch_library.c: launch result r of library variant v for problem p on `stream` and the
 * current device `device` (sm_<arch>), preparing its config there on first use (the mutex held).
 * Errors: CUTUNE_ERR_RESOURCES (the config cannot run p here), CUTUNE_ERR_NOT_FOUND (its
 * library is missing), CUTUNE_ERR_CUDA (the call failed), with the plugin's message. */
int cutune_launch_library(CutuneLookup *h, const CutuneVariantDef *v, const CutuneLookupResult *r,
                          const CutuneProblem *p, void **args, void *stream, int device, int arch,
                          CutuneError *err);
void cutune_lookup_libraries_free(CutuneLookup *h);

/* launch.c: the current device's description, read once per ordinal and handle (takes the
 * mutex). */
int cutune_lookup_current_device(CutuneLookup *h, CutuneDeviceInfo *info, CutuneError *err);
/* launch.c: prepare the launch of result r at `size` on device `info` (the mutex held): the
 * kernel built or found, its geometry, the limits checked, its shared memory allowed. The
 * errors of cutune_launch. */
int cutune_launch_prepare(CutuneLookup *h, const CutuneLookupResult *r, const char *size,
                          const CutuneDeviceInfo *info, CutunePrepared *p, CutuneError *err);
/* launch.c: launch what p prepared on the application's args and stream (the mutex held);
 * p keeps the TMA maps it encodes, for the next call on the same buffers. */
int cutune_launch_prepared(CutuneLookup *h, const CutuneLookupResult *r, CutunePrepared *p,
                           void **args, void *stream, CutuneError *err);

#endif
