/* A stand-in for libcublasLt (tests only), loaded through CUTUNE_CUBLASLT: the functions of
 * cuBLASLt's C API that plugins/matmul/lt.c calls, with no GPU. Each create hands out a
 * dummy object; the heuristic returns FAKE_LT_FOUND results (default 5), algorithm i having
 * the id 100 + i (150 + i when the workspace limit is 0, a list of its own) and needing
 * (i % 2) * 4096 bytes of workspace (none at the limit 0); cublasLtMatmul records the
 * algorithm and the workspace it got, which the test reads through fake_lt_last_*.
 * An algorithm's tile, cluster shape and custom option (set through
 * cublasLtMatmulAlgoConfigSetAttribute) sit in data[1..3], 0 when unset; cublasLtMatmulAlgoCheck
 * refuses the option 7 and asks 64 MiB of workspace for the tile 20 (128 x 128), 2048 bytes
 * for any other tile set, none where the tile is unset. cublasLtGetVersion returns FAKE_LT_VERSION (default 130100). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

typedef struct Algo {
    uint64_t data[8];
} Algo;
typedef struct Heuristic {
    Algo algo;
    size_t workspace;
    int state;
    float waves;
    int reserved[4];
} Heuristic;

static int dummy;
static uint64_t ws_limit;
static long long last_algo = -1, last_ws = -1;
static int matmuls;
static uint64_t last_set[3];             /* the last matmul's tile, cluster, option (data[1..3]) */
static int epilogue, last_epilogue = -1; /* CUBLASLT_MATMUL_DESC_EPILOGUE, 1 = default */
static const void *bias, *last_bias = &dummy; /* CUBLASLT_MATMUL_DESC_BIAS_POINTER */

static int make(void **p)
{
    *p = &dummy;
    return 0;
}

EXPORT size_t cublasLtGetVersion(void)
{
    const char *v = getenv("FAKE_LT_VERSION");
    return v ? (size_t)strtoull(v, NULL, 10) : 130100;
}
EXPORT int cublasLtCreate(void **h)
{
    return make(h);
}
EXPORT int cublasLtDestroy(void *h)
{
    return h != &dummy;
}
EXPORT int cublasLtMatmulDescCreate(void **d, int compute, int scale)
{
    (void)compute, (void)scale;
    epilogue = 1; /* CUBLASLT_EPILOGUE_DEFAULT */
    bias = NULL;
    return make(d);
}
EXPORT int cublasLtMatmulDescDestroy(void *d)
{
    return d != &dummy;
}
EXPORT int cublasLtMatmulDescSetAttribute(void *d, int attr, const void *buf, size_t n)
{
    if (attr == 7 && n == sizeof epilogue) /* CUBLASLT_MATMUL_DESC_EPILOGUE */
        memcpy(&epilogue, buf, n);
    if (attr == 8 && n == sizeof bias) /* CUBLASLT_MATMUL_DESC_BIAS_POINTER */
        memcpy(&bias, buf, n);
    return d != &dummy;
}
EXPORT int cublasLtMatrixLayoutCreate(void **l, int type, uint64_t rows, uint64_t cols, int64_t ld)
{
    (void)type, (void)rows, (void)cols, (void)ld;
    return make(l);
}
EXPORT int cublasLtMatrixLayoutDestroy(void *l)
{
    return l != &dummy;
}
EXPORT int cublasLtMatmulPreferenceCreate(void **p)
{
    return make(p);
}
EXPORT int cublasLtMatmulPreferenceDestroy(void *p)
{
    return p != &dummy;
}
EXPORT int cublasLtMatmulPreferenceSetAttribute(void *p, int attr, const void *buf, size_t n)
{
    if (attr == 1 && n == sizeof ws_limit) /* CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES */
        memcpy(&ws_limit, buf, n);
    return p != &dummy;
}
EXPORT int cublasLtMatmulAlgoGetHeuristic(void *h, void *desc, void *a, void *b, void *c, void *d,
                                          void *pref, int requested, Heuristic *out, int *found)
{
    (void)h, (void)desc, (void)a, (void)b, (void)c, (void)d, (void)pref;
    const char *env = getenv("FAKE_LT_FOUND");
    int n = env ? atoi(env) : 5;
    n = n < requested ? n : requested;
    for (int i = 0; i < n; i++) {
        memset(&out[i], 0, sizeof out[i]);
        out[i].algo.data[0] = (uint64_t)((ws_limit ? 100 : 150) + i);
        out[i].workspace = ws_limit ? (size_t)(i % 2) * 4096 : 0;
    }
    *found = n;
    return 0;
}
EXPORT int cublasLtMatmul(void *h, void *desc, const void *alpha, const void *A, void *la,
                          const void *B, void *lb, const void *beta, const void *C, void *lc,
                          void *D, void *ld, const Algo *algo, void *ws, size_t ws_size,
                          void *stream)
{
    (void)h, (void)desc, (void)alpha, (void)A, (void)la, (void)B, (void)lb, (void)beta, (void)C;
    (void)lc, (void)D, (void)ld, (void)stream;
    if (ws_size && !ws)
        return 7; /* CUBLAS_STATUS_INVALID_VALUE */
    last_algo = (long long)algo->data[0];
    last_ws = (long long)ws_size;
    memcpy(last_set, &algo->data[1], sizeof last_set);
    last_epilogue = epilogue;
    last_bias = bias;
    matmuls++;
    return 0;
}
/* the slot in data[] of CUBLASLT_ALGO_CONFIG_TILE_ID (1, 4 bytes), _CUSTOM_OPTION (5, 4)
 * and _CLUSTER_SHAPE_ID (8, 2 bytes); -1 for any other */
static int slot(int attr, size_t n)
{
    return attr == 1 && n == 4 ? 1 : attr == 8 && n == 2 ? 2 : attr == 5 && n == 4 ? 3 : -1;
}

EXPORT int cublasLtMatmulAlgoConfigGetAttribute(const Algo *algo, int attr, void *buf, size_t n,
                                                size_t *written)
{
    int i = slot(attr, n);
    if ((attr != 0 || n != 4) && i < 0) /* CUBLASLT_ALGO_CONFIG_ID and the three above */
        return 7;
    uint32_t u = (uint32_t)algo->data[i < 0 ? 0 : i];
    uint16_t u16 = (uint16_t)u;
    memcpy(buf, n == 2 ? (void *)&u16 : (void *)&u, n);
    *written = n;
    return 0;
}
EXPORT int cublasLtMatmulAlgoConfigSetAttribute(Algo *algo, int attr, const void *buf, size_t n)
{
    int i = slot(attr, n);
    if (i < 0)
        return 7;
    uint32_t u = 0;
    uint16_t u16 = 0;
    if (n == 2)
        memcpy(&u16, buf, n), u = u16;
    else
        memcpy(&u, buf, n);
    algo->data[i] = u;
    return 0;
}
EXPORT int cublasLtMatmulAlgoCheck(void *h, void *desc, void *a, void *b, void *c, void *d,
                                   const Algo *algo, Heuristic *out)
{
    (void)h, (void)desc, (void)a, (void)b, (void)c, (void)d;
    if (algo->data[3] == 7)
        return 15; /* CUBLAS_STATUS_NOT_SUPPORTED */
    memset(out, 0, sizeof *out);
    out->algo = *algo;
    out->workspace = algo->data[1] == 20 ? (size_t)64 << 20 : algo->data[1] ? 2048 : 0;
    return 0;
}

EXPORT long long fake_lt_last_algo(void)
{
    return last_algo;
}
EXPORT long long fake_lt_last_workspace(void)
{
    return last_ws;
}
/* the last matmul's tile (0), cluster (1) or option (2), as set; 0 when not */
EXPORT long long fake_lt_last_set(int which)
{
    return which >= 0 && which < 3 ? (long long)last_set[which] : -1;
}
EXPORT long long fake_lt_last_epilogue(void)
{
    return last_epilogue;
}
/* 1 when the last matmul's bias pointer was `p` */
EXPORT int fake_lt_last_bias_is(const void *p)
{
    return last_bias == p;
}
EXPORT int fake_lt_matmuls(void)
{
    return matmuls;
}
