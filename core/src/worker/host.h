/* The host-services table handed to plugins, and the state behind it for one problem. */
#ifndef CUTUNE_HOST_H
#define CUTUNE_HOST_H

#include <stddef.h>

#include "cutune/cutune.h"
#include "cutune/op.h"
#include "random.h" /* host->random_uniform */

typedef struct CutuneHostCtx {
    CutuneHost host;       /* host.ctx points back here */
    CutuneError *err;      /* where plugin failures are reported */
    const char *cache_dir; /* kernel cache for reference kernels (may be NULL) */
    int arch;              /* e.g. 90 */
    void **allocs;         /* device allocations still live: freed by cutune_host_release */
    size_t nallocs, cap;
} CutuneHostCtx;

void cutune_host_init(CutuneHostCtx *c, int arch, const char *cache_dir, CutuneError *err);
/* Free every device allocation the plugin did not free itself. */
void cutune_host_release(CutuneHostCtx *c);
/* The allocation list, for a host table whose memory is its own (the CPU's, emu.h): room
 * for one more entry in c->allocs (CUTUNE_ERR_NOMEM said in c->err), an entry taken out
 * (1 when it was there), and every entry passed to release and the list emptied. */
int cutune_host_reserve(CutuneHostCtx *c);
int cutune_host_forget(CutuneHostCtx *c, void *dptr);
void cutune_host_forget_all(CutuneHostCtx *c, void (*release)(void *dptr));


/* Load a cubin and get its kernel; launch it; free it. Used by run_kernel and measure. */
typedef struct CutuneLoadedKernel {
    void *library; /* cudaLibrary_t */
    void *kernel;  /* cudaKernel_t */
} CutuneLoadedKernel;
int cutune_kernel_load(const void *cubin, const char *name, CutuneLoadedKernel *k,
                       CutuneError *err);
void cutune_kernel_unload(CutuneLoadedKernel *k);
/* Asynchronous launch on `stream` (NULL: the default stream); checks the launch itself. */
int cutune_kernel_launch(const CutuneLoadedKernel *k, const CutuneLaunch *l, void **args,
                         void *stream, CutuneError *err);
/* 1 if a CUDA error leaves the context unusable (illegal address, launch failure...). */
int cutune_cuda_error_is_sticky(int cuda_status);

#endif
