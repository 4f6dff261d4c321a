/* NVRTC's functions that cutune calls, passed on to the libnvrtc found at run time
 * (cudadl.h). A function added to a caller must be added to NVRTC_FNS. */
#include "cudadl.h"
#include "cudafind.h"

#include <cuda_runtime_api.h> /* CUDART_VERSION: NVRTC's major is the toolkit's */
#include <dlfcn.h>
#include <nvrtc.h>
#include <pthread.h>
#include <stdio.h>

#define NVRTC_MAJOR (CUDART_VERSION / 1000)

/* X(name, parameters, arguments); each returns nvrtcResult */
#define NVRTC_FNS(X) \
    X(nvrtcVersion, (int *major, int *minor), (major, minor)) \
    X(nvrtcCreateProgram, \
      (nvrtcProgram * prog, const char *src, const char *name, int nh, const char *const *hs, \
       const char *const *hn), \
      (prog, src, name, nh, hs, hn)) \
    X(nvrtcDestroyProgram, (nvrtcProgram * prog), (prog)) \
    X(nvrtcCompileProgram, (nvrtcProgram prog, int n, const char *const *opts), (prog, n, opts)) \
    X(nvrtcGetPTXSize, (nvrtcProgram prog, size_t * n), (prog, n)) \
    X(nvrtcGetPTX, (nvrtcProgram prog, char *ptx), (prog, ptx)) \
    X(nvrtcGetCUBINSize, (nvrtcProgram prog, size_t * n), (prog, n)) \
    X(nvrtcGetCUBIN, (nvrtcProgram prog, char *cubin), (prog, cubin)) \
    X(nvrtcGetProgramLogSize, (nvrtcProgram prog, size_t * n), (prog, n)) \
    X(nvrtcGetProgramLog, (nvrtcProgram prog, char *log), (prog, log))

static struct {
#define FIELD(name, params, args) nvrtcResult(*name) params;
    NVRTC_FNS(FIELD)
#undef FIELD
    const char *(*nvrtcGetErrorString)(nvrtcResult);
} nv;
static char nv_why[2048];
static int nv_ok;
static pthread_once_t nv_once = PTHREAD_ONCE_INIT;

static void nv_load(void)
{
    void *h = cutune_cuda_dlopen("nvrtc", NVRTC_MAJOR, (const void *)nv_load, nv_why,
                                 sizeof nv_why);
    if (!h)
        return;
    const char *missing = NULL;
#define RESOLVE(name, params, args) \
    if (!(*(void **)&nv.name = dlsym(h, #name)) && !missing) \
        missing = #name;
    NVRTC_FNS(RESOLVE)
    RESOLVE(nvrtcGetErrorString, x, x)
#undef RESOLVE
    if (missing) {
        snprintf(nv_why, sizeof nv_why,
                 "the NVRTC found lacks %s: cutune was built against CUDA %d, whose "
                 "libnvrtc.so.%d it needs",
                 missing, NVRTC_MAJOR, NVRTC_MAJOR);
        return;
    }
    nv_ok = 1;
}

const char *cutune_nvrtc_unavailable(void)
{
    pthread_once(&nv_once, nv_load);
    return nv_ok ? NULL : nv_why;
}

#define WRAP(name, params, args) \
    nvrtcResult name params \
    { \
        if (cutune_nvrtc_unavailable()) \
            return NVRTC_ERROR_INTERNAL_ERROR; \
        return nv.name args; \
    }
NVRTC_FNS(WRAP)
#undef WRAP

const char *nvrtcGetErrorString(nvrtcResult r)
{
    const char *why = cutune_nvrtc_unavailable();
    return why ? why : nv.nvrtcGetErrorString(r);
}
