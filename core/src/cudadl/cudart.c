/* The CUDA runtime's functions that cutune (and its tests and benchmarks, which link the
 * internal archive) call, passed on to the libcudart found at run time (cudadl.h). A function
 * that a caller starts to use must be added to CUDART_FNS, or the link fails. */
#include "cudadl.h"
#include "cudafind.h"

#include <cuda_runtime.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

/* the soname's major, from the headers built against: cudaDeviceProp and others change from
 * one major to the next, so another major's runtime would be read wrongly */
#define CUDART_MAJOR (CUDART_VERSION / 1000)

/* the symbol each name stands for after the headers' macros (cudaGetDeviceProperties is
 * cudaGetDeviceProperties_v2 under CUDA 12) */
#define SYM_(x) #x
#define SYM(x) SYM_(x)

/* The driver's functions that the runtime hands out (cuTensorMapEncodeTiled): by version
 * from CUDA 12.5, which deprecates the call without one. */
#if CUDART_VERSION >= 12050
#define CUDART_ENTRY_POINT(X) \
    X(cudaError_t, cudaGetDriverEntryPointByVersion, \
      (const char *symbol, void **fn, unsigned int version, unsigned long long flags, \
       enum cudaDriverEntryPointQueryResult *status), \
      (symbol, fn, version, flags, status))
#else
#define CUDART_ENTRY_POINT(X) \
    X(cudaError_t, cudaGetDriverEntryPoint, \
      (const char *symbol, void **fn, unsigned long long flags, \
       enum cudaDriverEntryPointQueryResult *status), \
      (symbol, fn, flags, status))
#endif

/* X(return type, name, parameters, arguments) */
#define CUDART_FNS(X) \
    X(cudaError_t, cudaGetLastError, (void), ()) \
    X(cudaError_t, cudaPeekAtLastError, (void), ()) \
    X(cudaError_t, cudaDeviceSynchronize, (void), ()) \
    X(cudaError_t, cudaGetDeviceCount, (int *count), (count)) \
    X(cudaError_t, cudaGetDevice, (int *device), (device)) \
    X(cudaError_t, cudaSetDevice, (int device), (device)) \
    X(cudaError_t, cudaGetDeviceProperties, (struct cudaDeviceProp * prop, int device), \
      (prop, device)) \
    X(cudaError_t, cudaDeviceGetAttribute, (int *value, enum cudaDeviceAttr attr, int device), \
      (value, attr, device)) \
    X(cudaError_t, cudaDriverGetVersion, (int *v), (v)) \
    X(cudaError_t, cudaRuntimeGetVersion, (int *v), (v)) \
    X(cudaError_t, cudaMalloc, (void **p, size_t size), (p, size)) \
    X(cudaError_t, cudaFree, (void *p), (p)) \
    X(cudaError_t, cudaMemset, (void *p, int value, size_t count), (p, value, count)) \
    X(cudaError_t, cudaMemsetAsync, (void *p, int value, size_t count, cudaStream_t s), \
      (p, value, count, s)) \
    X(cudaError_t, cudaStreamCreate, (cudaStream_t * s), (s)) \
    X(cudaError_t, cudaStreamDestroy, (cudaStream_t s), (s)) \
    X(cudaError_t, cudaStreamSynchronize, (cudaStream_t s), (s)) \
    X(cudaError_t, cudaMemcpy, (void *dst, const void *src, size_t count, enum cudaMemcpyKind k), \
      (dst, src, count, k)) \
    X(cudaError_t, cudaMemcpyAsync, \
      (void *dst, const void *src, size_t count, enum cudaMemcpyKind k, cudaStream_t s), \
      (dst, src, count, k, s)) \
    X(cudaError_t, cudaFuncGetAttributes, (struct cudaFuncAttributes * attr, const void *func), \
      (attr, func)) \
    X(cudaError_t, cudaFuncSetAttribute, (const void *func, enum cudaFuncAttribute attr, int v), \
      (func, attr, v)) \
    X(cudaError_t, cudaLaunchKernel, \
      (const void *func, dim3 grid, dim3 block, void **args, size_t shared, cudaStream_t s), \
      (func, grid, block, args, shared, s)) \
    X(cudaError_t, cudaLibraryLoadData, \
      (cudaLibrary_t * lib, const void *code, enum cudaJitOption *jo, void **jv, unsigned int nj, \
       enum cudaLibraryOption *lo, void **lv, unsigned int nl), \
      (lib, code, jo, jv, nj, lo, lv, nl)) \
    X(cudaError_t, cudaLibraryGetKernel, (cudaKernel_t * k, cudaLibrary_t lib, const char *name), \
      (k, lib, name)) \
    X(cudaError_t, cudaLibraryUnload, (cudaLibrary_t lib), (lib)) \
    X(cudaError_t, cudaEventCreate, (cudaEvent_t * e), (e)) \
    X(cudaError_t, cudaEventDestroy, (cudaEvent_t e), (e)) \
    X(cudaError_t, cudaEventRecord, (cudaEvent_t e, cudaStream_t s), (e, s)) \
    X(cudaError_t, cudaEventSynchronize, (cudaEvent_t e), (e)) \
    X(cudaError_t, cudaEventElapsedTime, (float *ms, cudaEvent_t a, cudaEvent_t b), (ms, a, b)) \
    X(cudaError_t, cudaThreadExchangeStreamCaptureMode, (enum cudaStreamCaptureMode * mode), \
      (mode)) \
    X(cudaError_t, cudaStreamBeginCapture, (cudaStream_t s, enum cudaStreamCaptureMode mode), \
      (s, mode)) \
    X(cudaError_t, cudaStreamEndCapture, (cudaStream_t s, cudaGraph_t * g), (s, g)) \
    X(cudaError_t, cudaGraphInstantiate, \
      (cudaGraphExec_t * e, cudaGraph_t g, unsigned long long flags), (e, g, flags)) \
    X(cudaError_t, cudaGraphLaunch, (cudaGraphExec_t e, cudaStream_t s), (e, s)) \
    X(cudaError_t, cudaGraphExecDestroy, (cudaGraphExec_t e), (e)) \
    X(cudaError_t, cudaGraphDestroy, (cudaGraph_t g), (g)) \
    CUDART_ENTRY_POINT(X)

static struct {
#define FIELD(ret, name, params, args) ret(*name) params;
    CUDART_FNS(FIELD)
#undef FIELD
    const char *(*cudaGetErrorString)(cudaError_t);
    const char *(*cudaGetErrorName)(cudaError_t);
} rt;
static char rt_why[2048];
static int rt_ok;
static pthread_once_t rt_once = PTHREAD_ONCE_INIT;

static void rt_load(void)
{
    void *h = cutune_cuda_dlopen("cudart", CUDART_MAJOR, (const void *)rt_load, rt_why,
                                 sizeof rt_why);
    if (!h)
        return;
    const char *missing = NULL;
#define RESOLVE(ret, name, params, args) \
    if (!(*(void **)&rt.name = dlsym(h, SYM(name))) && !missing) \
        missing = SYM(name);
    CUDART_FNS(RESOLVE)
    RESOLVE(x, cudaGetErrorString, x, x)
    RESOLVE(x, cudaGetErrorName, x, x)
#undef RESOLVE
    if (missing) {
        Dl_info info;
        snprintf(rt_why, sizeof rt_why,
                 "the CUDA runtime found (%s) lacks %s: cutune was built against CUDA %d.%d, "
                 "which needs a libcudart.so.%d of at least that version",
                 dladdr((void *)rt.cudaGetErrorString, &info) && info.dli_fname ? info.dli_fname
                                                                                : "libcudart",
                 missing, CUDART_MAJOR, CUDART_VERSION % 1000 / 10, CUDART_MAJOR);
        return;
    }
    rt_ok = 1;
}

const char *cutune_cudart_unavailable(void)
{
    pthread_once(&rt_once, rt_load);
    return rt_ok ? NULL : rt_why;
}

#define WRAP(ret, name, params, args) \
    ret name params \
    { \
        if (cutune_cudart_unavailable()) \
            return cudaErrorSharedObjectInitFailed; \
        return rt.name args; \
    }
CUDART_FNS(WRAP)
#undef WRAP

const char *cudaGetErrorString(cudaError_t e)
{
    const char *why = cutune_cudart_unavailable();
    return why ? why : rt.cudaGetErrorString(e);
}

const char *cudaGetErrorName(cudaError_t e)
{
    return cutune_cudart_unavailable() ? "cudaErrorSharedObjectInitFailed" : rt.cudaGetErrorName(e);
}
