/* The GEMM calls of cutune/lookup.h (cutune_gemm, cutune_gemm_bias, cutune_matmul and their
 * _on forms): a lookup of the size, then its launch (launch.c). A call's prepared launch is
 * kept in the handle by (device, element type, layout, epilogue, M, N, K), so that a shape
 * called again skips the size's text, the cached lookup, the config's geometry and the TMA
 * maps' encoding: what an application's per-call cost is made of beside the launch itself
 * (bench/torch_overhead.py). */
#include "device.h"
#include "lookup_int.h"
#include "util.h"

#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

int cutune_matmul(CutuneLookup *h, const float *A, const float *B, float *C, int M, int N, int K,
                  void *stream, CutuneLookupResult *used, CutuneError *err)
{
    return cutune_gemm(h, CUTUNE_DTYPE_FP32, CUTUNE_LAYOUT_NN, A, B, C, M, N, K, stream, used, err);
}

/* The memo's entry for this call, or NULL (the mutex held). */
static CutuneGemmMemo *memo_find(CutuneLookup *h, int device, const CutuneProblem *p)
{
    for (size_t i = 0; i < h->nmemo; i++) {
        CutuneGemmMemo *m = &h->memo[i];
        if (m->M == p->dim[0] && m->N == p->dim[1] && m->K == p->dim[2] && m->device == device &&
            m->dtype == p->dtype && m->layout == p->layout && m->epilogue == p->epilogue)
            return m;
    }
    return NULL;
}

/* Keep a prepared launch for this call's key (the mutex held): a free slot, else the oldest
 * entry's. NULL when there is no memory, which costs only the next call's speed. */
static CutuneGemmMemo *memo_put(CutuneLookup *h, int device, const CutuneProblem *q,
                                const CutuneLookupResult *r, const CutunePrepared *p)
{
    if (!h->memo && !(h->memo = calloc(CUTUNE_GEMM_MEMO_SIZE, sizeof *h->memo)))
        return NULL;
    CutuneGemmMemo *m;
    if (h->nmemo < CUTUNE_GEMM_MEMO_SIZE)
        m = &h->memo[h->nmemo++];
    else
        m = &h->memo[h->memo_next++ % CUTUNE_GEMM_MEMO_SIZE];
    *m = (CutuneGemmMemo){.device = device,
                          .dtype = q->dtype,
                          .layout = q->layout,
                          .epilogue = q->epilogue,
                          .M = (int)q->dim[0],
                          .N = (int)q->dim[1],
                          .K = (int)q->dim[2],
                          .r = *r,
                          .p = *p};
    m->r.recorded = 0; /* recorded once, by the lookup that made the entry */
    return m;
}

int cutune_gemm(CutuneLookup *h, int dtype, int layout, const void *A, const void *B, void *C,
                int M, int N, int K, void *stream, CutuneLookupResult *used, CutuneError *err)
{
    return cutune_gemm_bias(h, dtype, layout, A, B, NULL, C, M, N, K, stream, used, err);
}

int cutune_gemm_bias(CutuneLookup *h, int dtype, int layout, const void *A, const void *B,
                     const void *bias, void *C, int M, int N, int K, void *stream,
                     CutuneLookupResult *used, CutuneError *err)
{
    CutuneLookupResult local;
    CutuneLookupResult *r = used ? used : &local;
    if (!h || !A || !B || !C || M <= 0 || N <= 0 || K <= 0) {
        memset(r, 0, sizeof *r);
        return cutune_error(err, CUTUNE_ERR_INVALID,
                            "cutune_gemm: needs a handle, three device pointers and positive "
                            "M, N, K (got %d, %d, %d)",
                            M, N, K);
    }
    if (!cutune_dtype_name(dtype) || !cutune_layout_name(layout)) {
        memset(r, 0, sizeof *r);
        return cutune_error(err, CUTUNE_ERR_INVALID,
                            "cutune_gemm: element type %d or layout %d is none of cutune/op.h's",
                            dtype, layout);
    }
    CutuneDeviceInfo dev;
    int rc = cutune_lookup_current_device(h, &dev, err);
    if (rc) {
        memset(r, 0, sizeof *r);
        return rc;
    }
    void *args[] = {(void *)&A, (void *)&B, (void *)&C, &M, &N, &K, (void *)&bias};
    CutuneProblem p = {.ndims = 3,
                       .dim = {M, N, K},
                       .dtype = dtype,
                       .layout = layout,
                       .epilogue = bias ? CUTUNE_EPILOGUE_BIAS : CUTUNE_EPILOGUE_NONE};
    /* a call seen before: its launch as prepared then (the lookup's answer is cached for the
     * handle's life, and so is what follows from it) */
    pthread_mutex_lock(&h->mu);
    CutuneGemmMemo *m = memo_find(h, dev.index, &p);
    if (m) {
        if (used)
            *used = m->r;
        rc = cutune_launch_prepared(h, &m->r, &m->p, args, stream, err);
        pthread_mutex_unlock(&h->mu);
        return rc;
    }
    pthread_mutex_unlock(&h->mu);
    memset(r, 0, sizeof *r);
    char size[64];
    cutune_problem_format(&p, size, sizeof size);
    if ((rc = cutune_lookup(h, &dev, "matmul", size, r, err)))
        return rc;
    if (r->match == CUTUNE_MATCH_NONE || !r->variant[0])
        return cutune_error(err, CUTUNE_ERR_INVALID,
                            "cutune_launch: the lookup result holds no config (match none)");
    CutunePrepared prep;
    pthread_mutex_lock(&h->mu);
    if ((rc = cutune_launch_prepare(h, r, size, &dev, &prep, err)) == 0) {
        m = memo_put(h, dev.index, &p, r, &prep);
        rc = cutune_launch_prepared(h, r, m ? &m->p : &prep, args, stream, err);
    }
    pthread_mutex_unlock(&h->mu);
    return rc;
}

/* Make `device` current; *prev gets the device that was. */
static int enter_device(int device, int *prev, CutuneError *err)
{
    int count = 0;
    int rc = cutune_cuda_check(cudaGetDevice(prev), "cudaGetDevice", err);
    if (rc || *prev == device)
        return rc;
    if ((rc = cutune_device_count(&count, err)))
        return rc;
    if (device < 0 || device >= count)
        return cutune_error(err, CUTUNE_ERR_NOT_FOUND,
                            "no CUDA device %d: this machine has %d (0 to %d); see `cutune "
                            "devices`",
                            device, count, count - 1);
    return cutune_cuda_check(cudaSetDevice(device), "cudaSetDevice", err);
}

static void leave_device(int device, int prev)
{
    if (prev != device)
        (void)cudaSetDevice(prev);
}

int cutune_launch_on(CutuneLookup *h, int device, const CutuneLookupResult *r, const char *size,
                     void **args, void *stream, CutuneError *err)
{
    int prev = device;
    int rc = enter_device(device, &prev, err);
    if (rc)
        return rc;
    rc = cutune_launch(h, r, size, args, stream, err);
    leave_device(device, prev);
    return rc;
}

int cutune_matmul_on(CutuneLookup *h, int device, const float *A, const float *B, float *C, int M,
                     int N, int K, void *stream, CutuneLookupResult *used, CutuneError *err)
{
    return cutune_gemm_on(h, device, CUTUNE_DTYPE_FP32, CUTUNE_LAYOUT_NN, A, B, C, M, N, K, stream,
                          used, err);
}

int cutune_gemm_on(CutuneLookup *h, int device, int dtype, int layout, const void *A, const void *B,
                   void *C, int M, int N, int K, void *stream, CutuneLookupResult *used,
                   CutuneError *err)
{
    return cutune_gemm_bias_on(h, device, dtype, layout, A, B, NULL, C, M, N, K, stream, used, err);
}

int cutune_gemm_bias_on(CutuneLookup *h, int device, int dtype, int layout, const void *A,
                        const void *B, const void *bias, void *C, int M, int N, int K, void *stream,
                        CutuneLookupResult *used, CutuneError *err)
{
    int prev = device;
    int rc = enter_device(device, &prev, err);
    if (rc)
        return rc;
    rc = cutune_gemm_bias(h, dtype, layout, A, B, bias, C, M, N, K, stream, used, err);
    leave_device(device, prev);
    return rc;
}
