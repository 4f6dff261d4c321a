/* Device discovery and description. */
#include "cudadl.h"
#include "device.h"
#include "cutune/lookup.h"

#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

int cutune_cuda_check(int status, const char *what, CutuneError *err)
{
    if (status == cudaSuccess)
        return 0;
    /* no libcudart to be found: where cutune looked and what to install (src/cudadl/) */
    const char *missing = cutune_cudart_unavailable();
    if (missing)
        return cutune_error(err, CUTUNE_ERR_NO_DEVICE, "%s: %s", what, missing);
    cudaError_t e = (cudaError_t)status;
    if (e == cudaErrorInsufficientDriver || e == cudaErrorNoDevice ||
        e == cudaErrorInitializationError || e == cudaErrorSystemDriverMismatch ||
        e == cudaErrorCompatNotSupportedOnDevice)
        return cutune_error(err, CUTUNE_ERR_NO_DEVICE,
                            "no CUDA driver or device (%s: %s); cutune needs an NVIDIA GPU with "
                            "its driver to tune, but `cutune list` and `cutune query` work "
                            "without one",
                            what, cudaGetErrorString(e));
    return cutune_error(err, CUTUNE_ERR_CUDA, "%s: %s: %s", what, cudaGetErrorName(e),
                        cudaGetErrorString(e));
}

int cutune_capture_relax(void)
{
    enum cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    return cudaThreadExchangeStreamCaptureMode(&mode) == cudaSuccess ? (int)mode : -1;
}

void cutune_capture_restore(int saved)
{
    enum cudaStreamCaptureMode mode = (enum cudaStreamCaptureMode)saved;
    if (saved >= 0)
        (void)cudaThreadExchangeStreamCaptureMode(&mode);
}

int cutune_device_count(int *count, CutuneError *err)
{
    *count = 0;
    int rc = cutune_cuda_check(cudaGetDeviceCount(count), "cudaGetDeviceCount", err);
    if (rc)
        return rc;
    if (*count == 0)
        return cutune_error(err, CUTUNE_ERR_NO_DEVICE, "no CUDA device: the driver found none");
    return 0;
}

static void format_uuid(const unsigned char b[16], char *out, size_t len)
{
    snprintf(out, len, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
             b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
             b[14], b[15]);
}

int cutune_device_open(int index, CutuneDeviceInfo *info, CutuneError *err)
{
    int rc = cutune_device_describe(index, info, err);
    if (rc)
        return rc;
    return cutune_cuda_check(cudaSetDevice(index), "cudaSetDevice", err);
}

int cutune_device_describe(int index, CutuneDeviceInfo *info, CutuneError *err)
{
    int count = 0;
    int rc = cutune_device_count(&count, err);
    if (rc)
        return rc;
    if (index < 0 || index >= count)
        return cutune_error(
            err, CUTUNE_ERR_NOT_FOUND,
            "no CUDA device %d: this machine has %d (0 to %d); see `cutune devices`", index, count,
            count - 1);
    struct cudaDeviceProp p;
    if ((rc = cutune_cuda_check(cudaGetDeviceProperties(&p, index), "cudaGetDeviceProperties",
                                err)))
        return rc;
    memset(info, 0, sizeof *info);
    info->index = index;
    snprintf(info->name, sizeof info->name, "%s", p.name);
    format_uuid((const unsigned char *)p.uuid.bytes, info->uuid, sizeof info->uuid);
    info->cc_major = p.major;
    info->cc_minor = p.minor;
    info->sm_count = p.multiProcessorCount;
    info->total_mem = p.totalGlobalMem;
    info->max_threads_per_block = p.maxThreadsPerBlock;
    info->max_shared_per_block = (int)p.sharedMemPerBlockOptin;
    info->max_shared_per_sm = (int)p.sharedMemPerMultiprocessor;
    info->max_regs_per_block = p.regsPerBlock;
    info->warp_size = p.warpSize;
    info->l2_bytes = p.l2CacheSize;
    if ((rc = cutune_cuda_check(cudaDriverGetVersion(&info->driver_version), "cudaDriverGetVersion",
                                err)))
        return rc;
    return cutune_cuda_check(cudaRuntimeGetVersion(&info->runtime_version), "cudaRuntimeGetVersion",
                             err);
}

void cutune_device_clocks(int index, int *sm_khz, int *mem_khz)
{
    if (cudaDeviceGetAttribute(sm_khz, cudaDevAttrClockRate, index) != cudaSuccess)
        *sm_khz = 0;
    if (cudaDeviceGetAttribute(mem_khz, cudaDevAttrMemoryClockRate, index) != cudaSuccess)
        *mem_khz = 0;
}
