/* The host services of cutune/op.h on the CPU (emu.h): what an op's setup, poison and check
 * call, with host memory for device memory and the emulation for kernels. The rest of the
 * table (failures, the SDK's comparisons, the seeded numbers) is the GPU host's (host.c),
 * which reaches memory and kernels only through the table. */
#include "emu.h"
#include "host.h"

#include <stdlib.h>
#include <string.h>

static int h_dev_alloc(void *ctx, size_t bytes, void **dptr)
{
    CutuneHostCtx *c = ctx;
    *dptr = NULL;
    int rc = cutune_host_reserve(c);
    if (rc)
        return rc;
    /* 16-byte aligned (vector loads), and not zeroed: a device allocation is not either */
    if (!(*dptr = aligned_alloc(16, ((bytes ? bytes : 1) + 15) / 16 * 16)))
        return cutune_error(c->err, CUTUNE_ERR_NOMEM, "out of host memory for %zu bytes", bytes);
    c->allocs[c->nallocs++] = *dptr;
    return 0;
}

static void h_dev_free(void *ctx, void *dptr)
{
    if (cutune_host_forget(ctx, dptr))
        free(dptr);
}

static int h_copy(void *ctx, void *dst, const void *src, size_t bytes)
{
    (void)ctx;
    memmove(dst, src, bytes);
    return 0;
}

static int h_dev_memset(void *ctx, void *dptr, int byte, size_t bytes)
{
    (void)ctx;
    memset(dptr, byte, bytes);
    return 0;
}

static int h_run_kernel(void *ctx, const char *source, const char *name, const CutuneLaunch *l,
                        void **args)
{
    CutuneHostCtx *c = ctx;
    char path[4096];
    CutuneEmuKernel k;
    int rc = cutune_emu_build(source, name, NULL, 0, c->cache_dir, path, sizeof path, c->err);
    if (rc || (rc = cutune_emu_open(path, &k, c->err)))
        return rc;
    /* the argument count is the kernel's own: run_kernel's caller passes them in its order */
    rc = cutune_emu_launch(&k, l, args, k.nparams, c->err);
    cutune_emu_close(&k);
    return rc;
}

/* The seeded numbers where the "device" memory is: the host's generator, straight into it. */
static int h_random_uniform_device(void *ctx, uint64_t seed, uint64_t stream, float *dptr, size_t n,
                                   float lo, float hi)
{
    (void)ctx;
    cutune_random_uniform(seed, stream, dptr, n, lo, hi);
    return 0;
}

void cutune_cpu_host_init(CutuneHostCtx *c, const char *cache_dir, CutuneError *err)
{
    cutune_host_init(c, 0, cache_dir, err);
    c->host.dev_alloc = h_dev_alloc;
    c->host.dev_free = h_dev_free;
    c->host.copy_to_device = h_copy;
    c->host.copy_to_host = h_copy;
    c->host.copy_on_device = h_copy;
    c->host.dev_memset = h_dev_memset;
    c->host.run_kernel = h_run_kernel;
    c->host.random_uniform_device = h_random_uniform_device;
    c->host.memcpy_yardstick = NULL; /* no yardstick on the CPU */
}

void cutune_cpu_host_release(CutuneHostCtx *c)
{
    cutune_host_forget_all(c, free);
}
