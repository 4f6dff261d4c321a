/* The cuBLASLt layer's own declarations (lt.h's types whole), shared by lt.c (the library,
 * plans and calls) and lt_config.c (a plan's configuration: overrides and descriptions).
 * They are cuBLASLt's documented C API (cublasLt.h, library_types.h, cublas_api.h), so that
 * no CUDA header is needed. */
#ifndef CUTUNE_OP_MATMUL_LT_INT_H
#define CUTUNE_OP_MATMUL_LT_INT_H

#include "lt.h"

#include <stddef.h>
#include <stdint.h>

typedef void *LtHandle, *LtDesc, *LtLayout, *LtPref;
typedef struct LtAlgo {
    uint64_t data[8];
} LtAlgo;
typedef struct LtHeuristic {
    LtAlgo algo;
    size_t workspace;
    int state;
    float waves;
    int reserved[4];
} LtHeuristic;

enum {
    R_32F = 0,
    R_16F = 2,
    R_16BF = 14,
    COMPUTE_32F = 68,
    COMPUTE_32F_FAST_TF32 = 77,
    OP_N = 0,
    OP_T = 1,
    DESC_TRANSA = 3,
    DESC_TRANSB = 4,
    DESC_EPILOGUE = 7,
    DESC_BIAS_POINTER = 8,
    EPILOGUE_BIAS = 4, /* the bias (its type C's) added to each row of row-major C */
    PREF_MAX_WORKSPACE_BYTES = 1,
    /* cublasLtMatmulAlgoConfigAttributes_t */
    CONFIG_ID = 0,
    CONFIG_TILE_ID = 1,
    CONFIG_SPLITK_NUM = 2,
    CONFIG_REDUCTION_SCHEME = 3,
    CONFIG_CTA_SWIZZLING = 4,
    CONFIG_CUSTOM_OPTION = 5,
    CONFIG_STAGES_ID = 6,
    CONFIG_CLUSTER_SHAPE_ID = 8,
};

struct LtApi {
    void *lib;
    char path[512]; /* the file the loader opened */
    int (*create)(LtHandle *);
    int (*destroy)(LtHandle);
    int (*desc_create)(LtDesc *, int, int);
    int (*desc_destroy)(LtDesc);
    int (*desc_set)(LtDesc, int, const void *, size_t);
    int (*layout_create)(LtLayout *, int, uint64_t, uint64_t, int64_t);
    int (*layout_destroy)(LtLayout);
    int (*pref_create)(LtPref *);
    int (*pref_destroy)(LtPref);
    int (*pref_set)(LtPref, int, const void *, size_t);
    int (*heuristic)(LtHandle, LtDesc, LtLayout, LtLayout, LtLayout, LtLayout, LtPref, int,
                     LtHeuristic *, int *);
    int (*matmul)(LtHandle, LtDesc, const void *, const void *, LtLayout, const void *, LtLayout,
                  const void *, const void *, LtLayout, void *, LtLayout, const LtAlgo *, void *,
                  size_t, void *);
    size_t (*version)(void);
    /* optional: the trial messages (get) and the overrides (set, check) */
    int (*config_get)(const LtAlgo *, int, void *, size_t, size_t *);
    int (*config_set)(LtAlgo *, int, const void *, size_t);
    int (*check)(LtHandle, LtDesc, LtLayout, LtLayout, LtLayout, LtLayout, const LtAlgo *,
                 LtHeuristic *);
};

struct LtPlan {
    const LtApi *api;
    const CutuneHost *host;
    LtHandle h;
    LtDesc desc;
    LtLayout la, lb, lc;
    LtPref pref;
    LtAlgo algo;
    int index, found, bias;
    const void *bias_set; /* the vector the descriptor holds (bias_known: one was set) */
    int bias_known;
    int M, N, K;
    size_t ws_limit, ws_size;
    void *workspace; /* ws_size bytes from host->dev_alloc; NULL when 0 */
    char set[96];    /* the configuration a config set ("" when none), for lt_describe */
};

/* Sets the configuration `ov` asks for on c's algorithm and checks it with
 * cublasLtMatmulAlgoCheck: 0 with c->algo and c->ws_size updated, or CUTUNE_ERR_RESOURCES
 * (cuBLASLt refuses it, or this cuBLASLt cannot set it) with `why` filled. */
int lt_config_apply(LtPlan *c, const LtOverride *ov, char *why, size_t len);

#endif
