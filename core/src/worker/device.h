/* CUDA devices through the runtime API (which loads the driver at run time: on a machine
 * without one, cutune still starts and reports CUTUNE_ERR_NO_DEVICE). */
#ifndef CUTUNE_DEVICE_H
#define CUTUNE_DEVICE_H

#include "cutune/cutune.h"

/* Number of CUDA devices. No driver or no device: CUTUNE_ERR_NO_DEVICE with a plain
 * message (the CUDA error text in parentheses). */
int cutune_device_count(int *count, CutuneError *err);

/* Make device `index` current for this thread and describe it. */
int cutune_device_open(int index, CutuneDeviceInfo *info, CutuneError *err);

/* Device `index`'s peak SM and memory clocks in kHz (cudaDevAttrClockRate,
 * cudaDevAttrMemoryClockRate), for display; 0 where the driver does not say. */
void cutune_device_clocks(int index, int *sm_khz, int *mem_khz);

/* Check a CUDA runtime return code; on failure record "<what>: <cuda error name>: <text>". */
int cutune_cuda_check(int cuda_status, const char *what, CutuneError *err);

/* Around work done once and kept that a call may first need inside a CUDA graph capture
 * (loading a tuned kernel; a library's plan and its workspace, cudaMalloc'd): the calling
 * thread's capture mode relaxed (cudaThreadExchangeStreamCaptureMode), since under the
 * default mode (PyTorch's too) such a call on a capturing thread fails and invalidates the
 * capture. None of it is stream work: the graph only refers to what it made, which lives
 * until cutune_close. cutune_capture_relax returns the mode to hand back to
 * cutune_capture_restore (-1: none; nothing was changed). */
int cutune_capture_relax(void);
void cutune_capture_restore(int saved);

#endif
