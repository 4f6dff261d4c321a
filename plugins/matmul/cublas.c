/* matmul's yardstick: cuBLAS SGEMM on the op's own inputs and output. cuBLAS is opened at
 * run time (cudafind.h: libcublas.so.13, .12, then libcublas.so), so that the op builds without it and
 * runs where it is missing; the declarations below are cuBLAS's documented C API (v2), so
 * that no cuBLAS header is needed either. SGEMM runs in the default math mode: float32
 * arithmetic, no TF32 (unless NVIDIA_TF32_OVERRIDE says otherwise). */
#include "cublas.h"
#include "cudafind.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void *CublasHandle;
typedef int (*CreateFn)(CublasHandle *);
typedef int (*DestroyFn)(CublasHandle);
typedef int (*SetMathModeFn)(CublasHandle, int);
typedef int (*SgemmFn)(CublasHandle, int transa, int transb, int m, int n, int k,
                       const float *alpha, const float *A, int lda, const float *B, int ldb,
                       const float *beta, float *C, int ldc);
enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1, CUBLAS_DEFAULT_MATH = 0 };

typedef struct Cublas {
    const CutuneHost *host;
    void *lib;
    CublasHandle h;
    DestroyFn destroy;
    SgemmFn sgemm;
    const float *A, *B;
    float *C;
    int M, N, K, bt;
} Cublas;

static int run(void *user, void *stream)
{
    (void)stream; /* the handle's stream: the default one */
    Cublas *c = user;
    const float one = 1.0f, zero = 0.0f;
    /* row-major C = A B is column-major C^T = B^T A^T: an N x M result, K inner; B stored
     * N x K (bt) is column-major K x N, transposed */
    int st = c->sgemm(c->h, c->bt ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, c->N, c->M, c->K, &one,
                      c->B, c->bt ? c->K : c->N, c->A, c->K, &zero, c->C, c->N);
    return st == 0 ? 0 : c->host->fail(c->host->ctx, CUTUNE_ERR_CUDA, "cublasSgemm: status %d", st);
}

static void close_it(void *user)
{
    Cublas *c = user;
    if (!c)
        return;
    if (c->h)
        c->destroy(c->h);
    if (c->lib)
        dlclose(c->lib);
    free(c);
}

int matmul_cublas_yardstick(const CutuneHost *host, const float *A, const float *B, float *C, int M,
                            int N, int K, int bt, CutuneYardstick *out)
{
    Cublas *c = calloc(1, sizeof *c);
    if (!c)
        return host->fail(host->ctx, CUTUNE_ERR_NOMEM, "out of host memory");
    *c = (Cublas){.host = host, .A = A, .B = B, .C = C, .M = M, .N = N, .K = K, .bt = bt};
    /* cuBLAS 13 then 12 where cudafind.h looks (a copy the process holds, pip's
     * nvidia-cublas packages, the system), then libcublas.so */
    char why[1024] = "";
    const void *self = (const void *)matmul_cublas_yardstick;
    if (!(c->lib = cutune_cuda_dlopen("cublas", 13, self, why, sizeof why)) &&
        !(c->lib = cutune_cuda_dlopen("cublas", 12, self, NULL, 0)) &&
        !(c->lib = dlopen("libcublas.so", RTLD_NOW | RTLD_LOCAL))) {
        free(c);
        return host->fail(host->ctx, CUTUNE_ERR_NOT_FOUND,
                          "cuBLAS is not installed here (%s; nor was libcublas.so.12 or "
                          "libcublas.so)",
                          why);
    }
    CreateFn create;
    SetMathModeFn math;
    *(void **)&create = dlsym(c->lib, "cublasCreate_v2");
    *(void **)&c->destroy = dlsym(c->lib, "cublasDestroy_v2");
    *(void **)&c->sgemm = dlsym(c->lib, "cublasSgemm_v2");
    *(void **)&math = dlsym(c->lib, "cublasSetMathMode");
    int st = -1;
    if (!create || !c->destroy || !c->sgemm || (st = create(&c->h)) != 0) {
        int found = create && c->destroy && c->sgemm;
        close_it(c);
        return found ? host->fail(host->ctx, CUTUNE_ERR_CUDA, "cublasCreate: status %d", st)
                     : host->fail(host->ctx, CUTUNE_ERR_NOT_FOUND,
                                  "the cuBLAS found lacks cublasCreate_v2, cublasDestroy_v2 or "
                                  "cublasSgemm_v2");
    }
    if (math)
        math(c->h, CUBLAS_DEFAULT_MATH);
    snprintf(out->name, sizeof out->name, "cuBLAS SGEMM");
    out->checkable = 1;
    out->user = c;
    out->run = run;
    out->close = close_it;
    return 0;
}
