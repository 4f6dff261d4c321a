/* The yardstick of the memory-bound ops: cudaMemcpy device-to-device of the op's bytes.
 * An op's byte count holds every byte read and written, so a copy of bytes / 2 moves as
 * many bytes as the op. */
#include "sdk.h"

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct MemcpyYardstick {
    const CutuneHost *host;
    void *src, *dst;
    size_t bytes;
} MemcpyYardstick;

static int run(void *user, void *stream)
{
    MemcpyYardstick *m = user;
    cudaError_t e = cudaMemcpyAsync(m->dst, m->src, m->bytes, cudaMemcpyDeviceToDevice,
                                    (cudaStream_t)stream);
    if (e == cudaSuccess)
        return 0;
    return m->host->fail(m->host->ctx, CUTUNE_ERR_CUDA, "cudaMemcpyAsync of %zu bytes: %s",
                         m->bytes, cudaGetErrorString(e));
}

static void close_it(void *user)
{
    MemcpyYardstick *m = user;
    if (!m)
        return;
    m->host->dev_free(m->host->ctx, m->src);
    m->host->dev_free(m->host->ctx, m->dst);
    free(m);
}

int cutune_sdk_memcpy_yardstick(const CutuneHost *host, double bytes, CutuneYardstick *out)
{
    if (!(bytes >= 2))
        return host->fail(host->ctx, CUTUNE_ERR_NOT_FOUND,
                          "the op moves no bytes: a copy is no yardstick for it");
    MemcpyYardstick *m = calloc(1, sizeof *m);
    if (!m)
        return host->fail(host->ctx, CUTUNE_ERR_NOMEM, "out of host memory");
    m->host = host;
    m->bytes = (size_t)(bytes / 2);
    int rc = host->dev_alloc(host->ctx, m->bytes, &m->src);
    if (!rc)
        rc = host->dev_alloc(host->ctx, m->bytes, &m->dst);
    if (!rc)
        rc = host->dev_memset(host->ctx, m->src, 0, m->bytes);
    if (rc) {
        close_it(m);
        return rc;
    }
    snprintf(out->name, sizeof out->name, "cudaMemcpy device-to-device");
    out->checkable = 0;
    out->user = m;
    out->run = run;
    out->close = close_it;
    return 0;
}
