/* cuBLASLt for matmul, opened at run time: the yardstick in tf32, fp16 and bf16
 * (cublaslt.c) and the matmul_cublaslt variant (plugins/matmul_cublaslt/). They share the
 * descriptors and the heuristic: the variant's ALGO=0 at a 32 MiB workspace is the
 * heuristic's first choice, the yardstick's algorithm (the yardstick asks for one result, as
 * PyTorch does; the heuristic ranks its candidates and returns the first of them).
 *
 * The library is opened once per process: $CUTUNE_CUBLASLT when set (a file name or a
 * path), else libcublasLt.so.13, .12, then libcublasLt.so, as the dynamic loader finds them
 * (in a process that has one loaded already, such as PyTorch, that one). The declarations
 * in lt.c are cuBLASLt's documented C API, so that no CUDA header is needed, and the op
 * builds and runs where cuBLASLt is missing. */
#ifndef CUTUNE_OP_MATMUL_LT_H
#define CUTUNE_OP_MATMUL_LT_H

#include <stddef.h>

#include "cutune/op.h"

enum {
    LT_ALGOS = 16,           /* results asked of the heuristic: the variant's ALGO range */
    LT_WORKSPACE = 32 << 20, /* what PyTorch gives cuBLASLt on Hopper */
    LT_MIN_VERSION = 110000, /* 11.0: bf16 and TF32 compute types */
};

typedef struct LtApi LtApi;
typedef struct LtPlan LtPlan;

/* This process's cuBLASLt, or NULL with `why` naming what was tried: none found, one that
 * lacks a function of the API used here, or one older than LT_MIN_VERSION. */
const LtApi *lt_api(char *why, size_t len);
/* The version of the cuBLASLt found, usable or not (cublasLtGetVersion: major * 10000 +
 * minor * 100 + patch since 11.0, e.g. 130100); 0 when none was found. */
size_t lt_found_version(void);
/* That version as "13.1.0" (cuBLASLt 10.x counted major * 1000 + minor * 100 + patch). */
void lt_version_text(size_t version, char *buf, size_t len);

/* What a config may set of the heuristic's algorithm, in the op's terms (cuBLASLt computes
 * C^T, so its tile is tile_n x tile_m and its cluster cluster_n x cluster_m): 0 keeps the
 * entry's own tile or cluster (both of a pair set or neither), -1 its custom option. */
typedef struct LtOverride {
    int tile_m, tile_n, cluster_m, cluster_n, option;
} LtOverride;

/* Row-major C = A B (bt: C = A B^T, B stored N x K) of M x N x K in dtype (CutuneDtype; fp16
 * and bf16 accumulate in float32, tf32 is float32 data on TF32 compute), plus a row of N
 * (bias: cuBLASLt's bias epilogue, the vector given to each lt_run), with algorithm
 * `index` of the (up to) `requested` that cublasLtMatmulAlgoGetHeuristic returns under a
 * workspace of at most ws_limit bytes, its configuration set as `ov` says (NULL: as the
 * heuristic gave it; cublasLtMatmulAlgoCheck then decides whether it runs, and what
 * workspace it needs); the workspace that algorithm needs is allocated through host
 * (dev_alloc) and freed by lt_plan_free. Returns 0 with *out set, CUTUNE_ERR_RESOURCES when
 * the heuristic offers fewer than index + 1 algorithms or cuBLASLt refuses the override, or
 * CUTUNE_ERR_CUDA (a cuBLASLt call failed) or CUTUNE_ERR_NOMEM, with `why` filled. */
int lt_plan(const LtApi *api, const CutuneHost *host, int dtype, int bt, int bias, int M, int N,
            int K, size_t ws_limit, int index, int requested, const LtOverride *ov, LtPlan **out,
            char *why, size_t len);
/* Enqueue C = A B (+ bias, N elements of the element type, for a plan made with bias) on
 * `stream` (NULL: the default stream): 0, or cuBLASLt's status. With a bias the call sets
 * the plan's descriptor (the vector is its attribute) where the vector is another than the
 * last call's, so one plan takes one call at a time, as the worker and the lookup's
 * per-stream calls make them. */
int lt_run(LtPlan *p, const void *A, const void *B, void *C, const void *bias, void *stream);
/* The algorithm as cuBLASLt describes it (its id, tile, stages, split-K, reduction scheme,
 * CTA swizzling, cluster shape, custom option) and its workspace, for trial messages. */
void lt_describe(const LtPlan *p, char *buf, size_t len);
void lt_plan_free(LtPlan *p);

/* A plan as the yardstick and the variant keep it between calls: with the host, and the
 * problem's operands (the yardstick's) or its size (the variant's, to check each call). */
typedef struct LtCall {
    const CutuneHost *host;
    LtPlan *plan;
    const void *A, *B, *bias;
    void *C;
    int M, N, K;
} LtCall;
/* Frees call (an LtCall, or NULL) and its plan: the yardstick's close and the variant's
 * library_release. */
void lt_call_free(void *call);

#endif
