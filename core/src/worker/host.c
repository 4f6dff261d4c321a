/* Host services for plugins: device memory, copies, seeded random inputs, reference kernels. */
#include "host.h"
#include "random.h"
#include "compile.h"
#include "device.h"
#include "sdk.h"
#include "util.h"

#include <cuda_runtime.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static CutuneHostCtx *ctx_of(void *ctx)
{
    return ctx;
}

int cutune_host_reserve(CutuneHostCtx *c)
{
    if (c->nallocs == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 8;
        void **grown = realloc(c->allocs, cap * sizeof *grown);
        if (!grown)
            return cutune_error(c->err, CUTUNE_ERR_NOMEM, "out of host memory");
        c->allocs = grown;
        c->cap = cap;
    }
    return 0;
}

int cutune_host_forget(CutuneHostCtx *c, void *dptr)
{
    for (size_t i = 0; i < c->nallocs; i++)
        if (c->allocs[i] == dptr) {
            c->allocs[i] = c->allocs[--c->nallocs];
            return 1;
        }
    return 0;
}

void cutune_host_forget_all(CutuneHostCtx *c, void (*release)(void *dptr))
{
    for (size_t i = 0; i < c->nallocs; i++)
        release(c->allocs[i]);
    free(c->allocs);
    c->allocs = NULL;
    c->nallocs = c->cap = 0;
}

static int h_dev_alloc(void *ctx, size_t bytes, void **dptr)
{
    CutuneHostCtx *c = ctx_of(ctx);
    *dptr = NULL;
    int rc = cutune_host_reserve(c);
    if (rc)
        return rc;
    char what[80];
    snprintf(what, sizeof what, "cudaMalloc(%zu bytes)", bytes);
    if ((rc = cutune_cuda_check(cudaMalloc(dptr, bytes ? bytes : 1), what, c->err)))
        return rc;
    c->allocs[c->nallocs++] = *dptr;
    return 0;
}

static void h_dev_free(void *ctx, void *dptr)
{
    if (cutune_host_forget(ctx_of(ctx), dptr))
        cudaFree(dptr);
}

static int h_copy_to_device(void *ctx, void *dst, const void *src, size_t bytes)
{
    return cutune_cuda_check(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice),
                             "cudaMemcpy to device", ctx_of(ctx)->err);
}

static int h_copy_to_host(void *ctx, void *dst, const void *src, size_t bytes)
{
    return cutune_cuda_check(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost),
                             "cudaMemcpy to host", ctx_of(ctx)->err);
}

static int h_copy_on_device(void *ctx, void *dst, const void *src, size_t bytes)
{
    return cutune_cuda_check(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice),
                             "cudaMemcpy device to device", ctx_of(ctx)->err);
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

static int h_memcpy_yardstick(void *ctx, double bytes, CutuneYardstick *out)
{
    return cutune_sdk_memcpy_yardstick(&ctx_of(ctx)->host, bytes, out);
}

static int h_dev_memset(void *ctx, void *dptr, int byte, size_t bytes)
{
    return cutune_cuda_check(cudaMemset(dptr, byte, bytes), "cudaMemset", ctx_of(ctx)->err);
}

int cutune_cuda_error_is_sticky(int status)
{
    switch ((cudaError_t)status) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorIllegalInstruction:
    case cudaErrorHardwareStackError:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable: return 1;
    default: return 0;
    }
}

int cutune_kernel_load(const void *cubin, const char *name, CutuneLoadedKernel *k, CutuneError *err)
{
    cudaLibrary_t lib = NULL;
    cudaKernel_t kern = NULL;
    memset(k, 0, sizeof *k);
    int rc = cutune_cuda_check(cudaLibraryLoadData(&lib, cubin, NULL, NULL, 0, NULL, NULL, 0),
                               "cudaLibraryLoadData", err);
    if (rc)
        return rc;
    rc = cutune_cuda_check(cudaLibraryGetKernel(&kern, lib, name), "cudaLibraryGetKernel", err);
    if (rc) {
        cudaLibraryUnload(lib);
        return rc;
    }
    k->library = lib;
    k->kernel = kern;
    return 0;
}

void cutune_kernel_unload(CutuneLoadedKernel *k)
{
    if (k->library)
        cudaLibraryUnload((cudaLibrary_t)k->library);
    memset(k, 0, sizeof *k);
}

int cutune_kernel_launch(const CutuneLoadedKernel *k, const CutuneLaunch *l, void **args,
                         void *stream, CutuneError *err)
{
    dim3 grid = {l->grid[0], l->grid[1], l->grid[2]};
    dim3 block = {l->block[0], l->block[1], l->block[2]};
    return cutune_cuda_check(cudaLaunchKernel((const void *)k->kernel, grid, block, args,
                                              l->shared_bytes, (cudaStream_t)stream),
                             "cudaLaunchKernel", err);
}

/* A host service's kernel (extern "C", as cudaLibraryGetKernel finds it by name) from a
 * source that may hold several: the source is compiled and cached once for all of them, as
 * one program, and each kernel is taken from that cubin. Compiled per kernel, matmul's
 * reference source was compiled four times (round, ref, bounds, widen: about 0.42 s each on
 * an H200's host) on the way to a run's first bf16 trial, in every worker (2026-11-29,
 * bench/RESULTS.md, multi-GPU). */
#define HOST_PROGRAM "cutune_host_kernels"
static int h_run_kernel(void *ctx, const char *source, const char *name, const CutuneLaunch *l,
                        void **args)
{
    CutuneHostCtx *c = ctx_of(ctx);
    CutuneKernelBinary bin;
    int rc = cutune_nvrtc_compile(source, HOST_PROGRAM, NULL, 0, c->arch, c->cache_dir, &bin,
                                  c->err);
    if (rc) {
        cutune_kernel_binary_free(&bin);
        return rc;
    }
    CutuneLoadedKernel k;
    rc = cutune_kernel_load(bin.cubin, name, &k, c->err);
    cutune_kernel_binary_free(&bin);
    if (rc)
        return rc;
    if (l->shared_bytes > 48 * 1024)
        rc = cutune_cuda_check(cudaFuncSetAttribute((const void *)k.kernel,
                                                    cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                    (int)l->shared_bytes),
                               "cudaFuncSetAttribute", c->err);
    if (!rc)
        rc = cutune_kernel_launch(&k, l, args, NULL, c->err);
    if (!rc)
        rc = cutune_cuda_check(cudaDeviceSynchronize(), "reference kernel", c->err);
    cutune_kernel_unload(&k);
    return rc;
}

static int h_random_uniform_device(void *ctx, uint64_t seed, uint64_t stream, float *dptr, size_t n,
                                   float lo, float hi)
{
    if (n == 0)
        return 0;
    unsigned long long count = n, first = cutune_random_first_state(seed, stream);
    size_t blocks = (n + 255) / 256;
    CutuneLaunch l = {{(unsigned)(blocks < 65536 ? blocks : 65536), 1, 1}, {256, 1, 1}, 0};
    void *args[] = {&dptr, &count, &first, &lo, &hi};
    /* through the table, as every service reaches kernels (the CPU's host has its own) */
    return ctx_of(ctx)->host.run_kernel(ctx, cutune_random_uniform_cu, "cutune_random_uniform", &l,
                                        args);
}

static int h_fail(void *ctx, int code, const char *fmt, ...)
{
    CutuneHostCtx *c = ctx_of(ctx);
    char msg[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return cutune_error(c->err, code, "%s", msg);
}

void cutune_host_init(CutuneHostCtx *c, int arch, const char *cache_dir, CutuneError *err)
{
    memset(c, 0, sizeof *c);
    c->err = err;
    c->arch = arch;
    c->cache_dir = cache_dir;
    c->host = (CutuneHost){
        .abi_major = CUTUNE_ABI_MAJOR,
        .abi_minor = CUTUNE_ABI_MINOR,
        .struct_size = sizeof(CutuneHost),
        .ctx = c,
        .dev_alloc = h_dev_alloc,
        .dev_free = h_dev_free,
        .copy_to_device = h_copy_to_device,
        .copy_to_host = h_copy_to_host,
        .dev_memset = h_dev_memset,
        .random_uniform = cutune_random_uniform,
        .run_kernel = h_run_kernel,
        .fail = h_fail,
        .compare_f32 = h_compare_f32,
        .compare_exact = h_compare_exact,
        .copy_on_device = h_copy_on_device,
        .memcpy_yardstick = h_memcpy_yardstick,
        .random_uniform_device = h_random_uniform_device,
    };
}

static void cuda_free(void *dptr)
{
    cudaFree(dptr);
}

void cutune_host_release(CutuneHostCtx *c)
{
    cutune_host_forget_all(c, cuda_free);
}
