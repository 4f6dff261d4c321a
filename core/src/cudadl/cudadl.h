/* The CUDA runtime and NVRTC, opened on first use (cudafind.h says where from). The files
 * cudart.c and nvrtc.c define, hidden inside libcutune, every cuda* and nvrtc* function that
 * cutune calls, each passing the call on to the library found; so the callers include
 * <cuda_runtime.h> and <nvrtc.h> as before and nothing links libcudart or libnvrtc.
 *
 * Until a library is found, its functions fail (cudaErrorSharedObjectInitFailed,
 * NVRTC_ERROR_INTERNAL_ERROR) and cudaGetErrorString / nvrtcGetErrorString give the message
 * that says where cutune looked and what to install. */
#ifndef CUTUNE_CUDADL_H
#define CUTUNE_CUDADL_H

/* NULL when the CUDA runtime is loaded (loading it now if not yet tried), else why not. */
const char *cutune_cudart_unavailable(void);

/* The same for NVRTC. */
const char *cutune_nvrtc_unavailable(void);

#endif
