/* matmul's yardstick in tf32, fp16 and bf16: cublasLtMatmul with the first algorithm of
 * cuBLASLt's default heuristic, what an application that calls cuBLASLt (or PyTorch) gets.
 * cuBLASLt is opened at run time (libcublasLt.so.13, .12, then libcublasLt.so), so that the
 * op builds without it and runs where it is missing; the declarations below are cuBLASLt's
 * documented C API, so that no CUDA header is needed either. */
#include "cublas.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* cublasLt.h, library_types.h, cublas_api.h */
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
    PREF_MAX_WORKSPACE_BYTES = 1,
};
enum { WORKSPACE = 32 << 20 }; /* what PyTorch gives cuBLASLt on Hopper */

typedef struct Lt {
    const CutuneHost *host;
    void *lib;
    LtHandle h;
    LtDesc desc;
    LtLayout la, lb, lc;
    LtPref pref;
    LtAlgo algo;
    void *workspace;
    const void *A, *B;
    void *C;
    int (*matmul)(LtHandle, LtDesc, const void *, const void *, LtLayout, const void *, LtLayout,
                  const void *, const void *, LtLayout, void *, LtLayout, const LtAlgo *, void *,
                  size_t, void *);
    int (*destroy)(LtHandle);
    int (*desc_destroy)(LtDesc);
    int (*layout_destroy)(LtLayout);
    int (*pref_destroy)(LtPref);
} Lt;

static int run(void *user, void *stream)
{
    Lt *c = user;
    const float one = 1.0f, zero = 0.0f;
    /* as cublas.c: row-major C = A B is column-major C^T = B^T A^T (N x M, K inner), with
     * cuBLASLt's A the op's B and its B the op's A */
    int st = c->matmul(c->h, c->desc, &one, c->B, c->lb, c->A, c->la, &zero, c->C, c->lc, c->C,
                       c->lc, &c->algo, c->workspace, WORKSPACE, stream);
    return st == 0 ? 0
                   : c->host->fail(c->host->ctx, CUTUNE_ERR_CUDA, "cublasLtMatmul: status %d", st);
}

static void close_it(void *user)
{
    Lt *c = user;
    if (!c)
        return;
    if (c->pref)
        c->pref_destroy(c->pref);
    if (c->lc)
        c->layout_destroy(c->lc);
    if (c->lb)
        c->layout_destroy(c->lb);
    if (c->la)
        c->layout_destroy(c->la);
    if (c->desc)
        c->desc_destroy(c->desc);
    if (c->h)
        c->destroy(c->h);
    if (c->lib)
        dlclose(c->lib);
    free(c); /* the workspace is the problem's: the core frees it at teardown */
}

static void *open_lib(char *tried, size_t len)
{
    static const char *const names[] = {"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so"};
    void *lib = NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !lib; i++)
        if (!(lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL))) {
            const char *e = dlerror();
            size_t n = strlen(tried);
            snprintf(tried + n, len - n, "%s%s", n ? "; " : "", e ? e : names[i]);
        }
    return lib;
}

/* The descriptors and the heuristic's first algorithm: 0, or the status that failed. */
static int describe(Lt *c, int dtype, int bt, int M, int N, int K, const char **what)
{
    int (*create)(LtHandle *);
    int (*desc_create)(LtDesc *, int, int);
    int (*desc_set)(LtDesc, int, const void *, size_t);
    int (*layout_create)(LtLayout *, int, uint64_t, uint64_t, int64_t);
    int (*pref_create)(LtPref *);
    int (*pref_set)(LtPref, int, const void *, size_t);
    int (*heuristic)(LtHandle, LtDesc, LtLayout, LtLayout, LtLayout, LtLayout, LtPref, int,
                     LtHeuristic *, int *);
    *(void **)&create = dlsym(c->lib, "cublasLtCreate");
    *(void **)&c->destroy = dlsym(c->lib, "cublasLtDestroy");
    *(void **)&desc_create = dlsym(c->lib, "cublasLtMatmulDescCreate");
    *(void **)&c->desc_destroy = dlsym(c->lib, "cublasLtMatmulDescDestroy");
    *(void **)&desc_set = dlsym(c->lib, "cublasLtMatmulDescSetAttribute");
    *(void **)&layout_create = dlsym(c->lib, "cublasLtMatrixLayoutCreate");
    *(void **)&c->layout_destroy = dlsym(c->lib, "cublasLtMatrixLayoutDestroy");
    *(void **)&pref_create = dlsym(c->lib, "cublasLtMatmulPreferenceCreate");
    *(void **)&c->pref_destroy = dlsym(c->lib, "cublasLtMatmulPreferenceDestroy");
    *(void **)&pref_set = dlsym(c->lib, "cublasLtMatmulPreferenceSetAttribute");
    *(void **)&heuristic = dlsym(c->lib, "cublasLtMatmulAlgoGetHeuristic");
    *(void **)&c->matmul = dlsym(c->lib, "cublasLtMatmul");
    *what = "the cuBLASLt found lacks a function of its C API (cublasLtCreate ... "
            "cublasLtMatmul)";
    if (!create || !c->destroy || !desc_create || !c->desc_destroy || !desc_set || !layout_create ||
        !c->layout_destroy || !pref_create || !c->pref_destroy || !pref_set || !heuristic ||
        !c->matmul)
        return -1;
    int type = dtype == CUTUNE_DTYPE_BF16 ? R_16BF : dtype == CUTUNE_DTYPE_FP16 ? R_16F : R_32F;
    int compute = dtype == CUTUNE_DTYPE_TF32 ? COMPUTE_32F_FAST_TF32 : COMPUTE_32F;
    int opa = bt ? OP_T : OP_N, opb = OP_N, st;
    uint64_t ws = WORKSPACE;
    LtHeuristic h[1];
    int found = 0;
    if ((*what = "cublasLtCreate", st = create(&c->h)) ||
        (*what = "cublasLtMatmulDescCreate", st = desc_create(&c->desc, compute, R_32F)) ||
        (*what = "cublasLtMatmulDescSetAttribute",
         st = desc_set(c->desc, DESC_TRANSA, &opa, sizeof opa)) ||
        (st = desc_set(c->desc, DESC_TRANSB, &opb, sizeof opb)) ||
        (*what = "cublasLtMatrixLayoutCreate",
         st = layout_create(&c->lb, type, bt ? K : N, bt ? N : K, bt ? K : N)) ||
        (st = layout_create(&c->la, type, K, M, K)) ||
        (st = layout_create(&c->lc, type, N, M, N)) ||
        (*what = "cublasLtMatmulPreferenceCreate", st = pref_create(&c->pref)) ||
        (st = pref_set(c->pref, PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws)) ||
        (*what = "cublasLtMatmulAlgoGetHeuristic",
         st = heuristic(c->h, c->desc, c->lb, c->la, c->lc, c->lc, c->pref, 1, h, &found)))
        return st ? st : -1;
    if (found < 1) {
        *what = "cublasLtMatmulAlgoGetHeuristic found no algorithm";
        return -1;
    }
    c->algo = h[0].algo;
    return 0;
}

int matmul_cublaslt_yardstick(const CutuneHost *host, int dtype, int bt, const void *A,
                              const void *B, void *C, int M, int N, int K, CutuneYardstick *out)
{
    Lt *c = calloc(1, sizeof *c);
    if (!c)
        return host->fail(host->ctx, CUTUNE_ERR_NOMEM, "out of host memory");
    *c = (Lt){.host = host, .A = A, .B = B, .C = C};
    char tried[512] = "";
    if (!(c->lib = open_lib(tried, sizeof tried))) {
        free(c);
        return host->fail(host->ctx, CUTUNE_ERR_NOT_FOUND,
                          "cuBLASLt is not installed here (tried libcublasLt.so.13, .12 and "
                          "libcublasLt.so: %s)",
                          tried);
    }
    const char *what = "";
    int st = describe(c, dtype, bt, M, N, K, &what);
    if (st == 0 && host->dev_alloc(host->ctx, WORKSPACE, &c->workspace) != 0)
        st = -2, what = "the workspace";
    if (st) {
        int missing = st == -1 && strstr(what, "lacks");
        close_it(c);
        return host->fail(host->ctx, missing ? CUTUNE_ERR_NOT_FOUND : CUTUNE_ERR_CUDA,
                          "cuBLASLt %s: %s (status %d)", cutune_dtype_name(dtype), what, st);
    }
    snprintf(out->name, sizeof out->name, "cuBLASLt %s", cutune_dtype_name(dtype));
    out->checkable = 1;
    out->user = c;
    out->run = run;
    out->close = close_it;
    return 0;
}
