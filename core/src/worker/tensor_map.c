/* Encoding TMA tensor maps (tensor_map.h). */
#include "tensor_map.h"
#include "device.h"

#include <cudaTypedefs.h>
#include <cuda_runtime.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

_Static_assert(sizeof(CUtensorMap) == 128, "a kernel's CUtensorMap parameter is 128 bytes");

static PFN_cuTensorMapEncodeTiled_v12000 encode_tiled;
static char encode_missing[320];
static pthread_once_t encode_once = PTHREAD_ONCE_INIT;

/* Once per process: the driver's function as of CUDA 12.0, the version whose signature
 * PFN_cuTensorMapEncodeTiled_v12000 gives. An application's first launch may come inside a
 * graph capture, where the query would fail under the default capture mode. */
static void find_encode(void)
{
    int mode = cutune_capture_relax();
    void *fn = NULL;
    enum cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
    cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000,
                                                     cudaEnableDefault, &found);
#else /* before 12.5, the driver's newest version of the function: 12.0's signature still */
    cudaError_t e = cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &fn, cudaEnableDefault,
                                            &found);
#endif
    cutune_capture_restore(mode);
    if (e == cudaSuccess && found == cudaDriverEntryPointSuccess && fn) {
        memcpy(&encode_tiled, &fn, sizeof fn); /* an object pointer into a function pointer */
        return;
    }
    snprintf(encode_missing, sizeof encode_missing,
             "the CUDA driver gives no cuTensorMapEncodeTiled (%s); TMA tensor maps need a "
             "driver of CUDA 12.0 or later",
             e != cudaSuccess                                   ? cudaGetErrorString(e)
             : found == cudaDriverEntryPointVersionNotSufficent ? "the driver is older than 12.0"
                                                                : "symbol not found");
    (void)cudaGetLastError(); /* nothing pending for the launch that follows */
}

static CUtensorMapDataType data_type(int dtype)
{
    switch (dtype) {
    case CUTUNE_DTYPE_FP16: return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
    case CUTUNE_DTYPE_BF16: return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    default: return CU_TENSOR_MAP_DATA_TYPE_FLOAT32; /* fp32, and tf32 stored as float32 */
    }
}

static CUtensorMapSwizzle swizzle_mode(int bytes)
{
    return bytes == 32    ? CU_TENSOR_MAP_SWIZZLE_32B
           : bytes == 64  ? CU_TENSOR_MAP_SWIZZLE_64B
           : bytes == 128 ? CU_TENSOR_MAP_SWIZZLE_128B
                          : CU_TENSOR_MAP_SWIZZLE_NONE;
}

/* One enabled map on `address`: dense row-major, so the byte stride of dimension i >= 1 is
 * the product of the extents before it times the element's bytes. */
static int encode_one(const CutuneTensorMap *m, void *address, CUtensorMap *out, char *why,
                      size_t len)
{
    cuuint64_t dims[CUTUNE_TENSOR_MAP_RANK_MAX], strides[CUTUNE_TENSOR_MAP_RANK_MAX];
    cuuint32_t box[CUTUNE_TENSOR_MAP_RANK_MAX], ones[CUTUNE_TENSOR_MAP_RANK_MAX];
    cuuint64_t stride = (cuuint64_t)cutune_dtype_bytes(m->dtype);
    for (int i = 0; i < m->rank; i++) {
        dims[i] = (cuuint64_t)m->dims[i];
        box[i] = m->box[i];
        ones[i] = 1;
        if (i > 0)
            strides[i - 1] = stride;
        stride *= dims[i];
    }
    CUresult r = encode_tiled(out, data_type(m->dtype), (cuuint32_t)m->rank, address, dims, strides,
                              box, ones, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle_mode(m->swizzle),
                              CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                              CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r == CUDA_SUCCESS)
        return 0;
    snprintf(why, len,
             "cuTensorMapEncodeTiled refused the map of argument %s (CUresult %d; rank %d, "
             "dims[0] %" PRId64 ", box[0] %u, swizzle %d)",
             m->name, (int)r, m->rank, m->dims[0], m->box[0], m->swizzle);
    return CUTUNE_ERR_CUDA;
}

int cutune_tensor_maps_encode(const CutuneTensorMaps *maps, void **args, int nargs,
                              CUtensorMap *out, char *why, size_t len)
{
    int n = maps ? maps->n : 0;
    if (n < 0 || n > CUTUNE_MAX_TENSOR_MAPS || nargs < 0 || nargs + n > CUTUNE_MAX_KERNEL_ARGS) {
        snprintf(why, len, "%d tensor maps after %d arguments: more than a kernel's %d", n, nargs,
                 CUTUNE_MAX_KERNEL_ARGS);
        return CUTUNE_ERR_INVALID;
    }
    for (int i = 0; i < n; i++) {
        const CutuneTensorMap *m = &maps->map[i];
        memset(&out[i], 0, sizeof out[i]);
        args[nargs + i] = &out[i];
        if (!m->enabled)
            continue;
        if (m->arg < 0 || m->arg >= nargs || !args[m->arg] || m->rank < 1 ||
            m->rank > CUTUNE_TENSOR_MAP_RANK_MAX) {
            snprintf(why, len, "the map of argument %s names argument %d of %d (rank %d)", m->name,
                     m->arg, nargs, m->rank);
            return CUTUNE_ERR_INVALID;
        }
        void *address = *(void **)args[m->arg];
        if ((uintptr_t)address % 16 != 0)
            continue; /* no map can be made: zeros, as the kernel (which sees the same address)
                         knows and copies without it */
        pthread_once(&encode_once, find_encode);
        if (!encode_tiled) {
            snprintf(why, len, "%s", encode_missing);
            return CUTUNE_ERR_NOT_FOUND;
        }
        int rc = encode_one(m, address, &out[i], why, len);
        if (rc)
            return rc;
    }
    return 0;
}
