/* The host services of cutune/op.h on the CPU (emu.h): what an op's setup, poison and check
 * call, with host memory for device memory and the emulation for kernels. */
#include "emu.h"
#include "host.h"
#include "sdk.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static CutuneCpuHost *ctx_of(void *ctx)
{
    return ctx;
}

static int h_dev_alloc(void *ctx, size_t bytes, void **dptr)
{
    CutuneCpuHost *c = ctx_of(ctx);
    *dptr = NULL;
    if (c->nallocs == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 8;
        void **grown = realloc(c->allocs, cap * sizeof *grown);
        if (!grown)
            return cutune_error(c->err, CUTUNE_ERR_NOMEM, "out of host memory");
        c->allocs = grown;
        c->cap = cap;
    }
    /* 16-byte aligned (vector loads), and not zeroed: a device allocation is not either */
    size_t rounded = ((bytes ? bytes : 1) + 15) / 16 * 16;
    if (!(*dptr = aligned_alloc(16, rounded)))
        return cutune_error(c->err, CUTUNE_ERR_NOMEM, "out of host memory for %zu bytes", bytes);
    c->allocs[c->nallocs++] = *dptr;
    return 0;
}

static void h_dev_free(void *ctx, void *dptr)
{
    CutuneCpuHost *c = ctx_of(ctx);
    for (size_t i = 0; i < c->nallocs; i++)
        if (c->allocs[i] == dptr) {
            free(dptr);
            c->allocs[i] = c->allocs[--c->nallocs];
            return;
        }
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
    CutuneCpuHost *c = ctx_of(ctx);
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

static int h_fail(void *ctx, int code, const char *fmt, ...)
{
    CutuneCpuHost *c = ctx_of(ctx);
    char msg[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return cutune_error(c->err, code, "%s", msg);
}

static int h_compare_f32(void *ctx, const CutuneCompareF32 *spec, CutuneCheck *verdict)
{
    return cutune_sdk_compare_f32(&ctx_of(ctx)->host, spec, verdict);
}

static int h_compare_exact(void *ctx, const void *out, const void *ref, size_t n, size_t *bad,
                           size_t *first)
{
    return cutune_sdk_compare_exact(&ctx_of(ctx)->host, out, ref, n, bad, first);
}

void cutune_cpu_host_init(CutuneCpuHost *c, const char *cache_dir, CutuneError *err)
{
    memset(c, 0, sizeof *c);
    c->err = err;
    c->cache_dir = cache_dir;
    c->host = (CutuneHost){
        .abi_major = CUTUNE_ABI_MAJOR,
        .abi_minor = CUTUNE_ABI_MINOR,
        .struct_size = sizeof(CutuneHost),
        .ctx = c,
        .dev_alloc = h_dev_alloc,
        .dev_free = h_dev_free,
        .copy_to_device = h_copy,
        .copy_to_host = h_copy,
        .dev_memset = h_dev_memset,
        .random_uniform = cutune_random_uniform,
        .run_kernel = h_run_kernel,
        .fail = h_fail,
        .compare_f32 = h_compare_f32,
        .compare_exact = h_compare_exact,
        .copy_on_device = h_copy,
        .memcpy_yardstick = NULL, /* no yardstick on the CPU */
    };
}

void cutune_cpu_host_release(CutuneCpuHost *c)
{
    for (size_t i = 0; i < c->nallocs; i++)
        free(c->allocs[i]);
    free(c->allocs);
    c->allocs = NULL;
    c->nallocs = c->cap = 0;
}
