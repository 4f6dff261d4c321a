/* matmul's yardstick in tf32, fp16 and bf16: cublasLtMatmul with the first algorithm of
 * cuBLASLt's default heuristic, what an application that calls cuBLASLt (or PyTorch) gets,
 * with PyTorch's workspace on Hopper. cuBLASLt is opened at run time (lt.h), so that the op
 * builds without it and runs where it is missing. */
#include "cublas.h"
#include "lt.h"

#include <stdio.h>
#include <stdlib.h>

static int run(void *user, void *stream)
{
    LtCall *c = user;
    int st = lt_run(c->plan, c->A, c->B, c->C, c->bias, stream);
    return st == 0 ? 0
                   : c->host->fail(c->host->ctx, CUTUNE_ERR_CUDA, "cublasLtMatmul: status %d", st);
}

int matmul_cublaslt_yardstick(const CutuneHost *host, int dtype, int bt, const void *A,
                              const void *B, void *C, const void *bias, int M, int N, int K,
                              CutuneYardstick *out)
{
    char why[1024];
    const LtApi *api = lt_api(why, sizeof why);
    if (!api)
        return host->fail(host->ctx, CUTUNE_ERR_NOT_FOUND, "%s", why);
    LtCall *c = calloc(1, sizeof *c);
    if (!c)
        return host->fail(host->ctx, CUTUNE_ERR_NOMEM, "out of host memory");
    *c = (LtCall){.host = host, .A = A, .B = B, .C = C, .bias = bias};
    /* one result asked for, as PyTorch asks */
    int rc = lt_plan(api, host, dtype, bt, bias != NULL, M, N, K, LT_WORKSPACE, 0, 1, NULL,
                     &c->plan, why, sizeof why);
    if (rc) {
        lt_call_free(c);
        return host->fail(host->ctx, rc == CUTUNE_ERR_NOMEM ? rc : CUTUNE_ERR_CUDA, "%s", why);
    }
    snprintf(out->name, sizeof out->name, "cuBLASLt %s%s", cutune_dtype_name(dtype),
             bias ? " + bias" : "");
    out->checkable = 1;
    out->user = c;
    out->run = run;
    out->close = lt_call_free;
    return 0;
}
