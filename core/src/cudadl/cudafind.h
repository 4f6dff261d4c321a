/* Finding and opening a CUDA library (the runtime, NVRTC, cuBLAS, cuBLASLt) at run time, so
 * that nothing of cutune links CUDA: a lookup, `cutune query` and `import cutune` run on a
 * machine with no CUDA at all, and the first launch, compile or yardstick opens what it needs.
 *
 * Self-contained (libc and libdl only): the library compiles it, and so do the op plugins
 * that open cuBLAS, which never link libcutune (cutune/op.h). */
#ifndef CUTUNE_CUDAFIND_H
#define CUTUNE_CUDAFIND_H

#include <stddef.h>

/* Open lib<stem>.so.<major> (RTLD_NOW | RTLD_LOCAL), looking where PyTorch's CUDA comes from
 * first, then at the system's:
 *   1. a copy this process has loaded already (PyTorch's, CuPy's), so that one process never
 *      holds two runtimes;
 *   2. pip's nvidia-* packages: <site>/nvidia/cu<major>/lib (CUDA 13 wheels) and
 *      <site>/nvidia/<package>/lib (CUDA 12 wheels: cuda_runtime, cuda_nvrtc, cublas), for
 *      each <site> in $CUTUNE_PYTHON_SITE (colon-separated; the Python module sets it from
 *      its site-packages), the folders above the file `anchor` lies in (a wheel's
 *      libcutune.so, the command and the worker sit in <site>/cutune/lib) and
 *      $VIRTUAL_ENV/lib/python3.* /site-packages;
 *   3. the system: the bare soname (LD_LIBRARY_PATH, the ldconfig cache), then
 *      $CUDA_PATH/lib64, $CUDA_HOME/lib64 and /usr/local/cuda/lib64.
 * `anchor` is the address of any function of the calling file (NULL: no step 2 from it).
 * On failure returns NULL and writes into why (len bytes) where it looked and what to
 * install. With CUTUNE_CUDADL_FORBID set (a test hook for the paths that must need no CUDA:
 * "1" for every library, or the stems, "cudart,nvrtc"), it prints what was about to be
 * loaded and aborts. */
void *cutune_cuda_dlopen(const char *stem, int major, const void *anchor, char *why, size_t len);

/* The pip package that ships lib<stem>.so.<major> ("nvidia-cuda-runtime",
 * "nvidia-cuda-nvrtc-cu12", ...). */
const char *cutune_cuda_pip_name(const char *stem, int major, char *buf, size_t len);

#endif
