/* The CPU emulation of kernels (`cutune check --run`): a kernel source compiled with the
 * host's C++ compiler behind kemu.hpp into a shared object, launched with CUTUNE launch
 * geometry and an op's argument pointers; and a CutuneHost table whose "device" memory is
 * host memory and whose kernels (an op's reference, the SDK's comparisons) run the same
 * way, so that an op's setup, poison and check run unchanged. No GPU, no CUDA driver. */
#ifndef CUTUNE_EMU_H
#define CUTUNE_EMU_H

#include <stddef.h>

#include "cutune/cutune.h"
#include "cutune/op.h"
#include "host.h"

/* Compile kernel `kernel_name` of `source` (with each "NAME=value" of `defines` as -D) for
 * the emulation: a shared object in <cache_dir>/emu/ named by the hash of everything that
 * goes into it (reused when it is there), whose path goes into `path`. The C++ compiler is
 * $CXX, else c++ (C++20). CUTUNE_ERR_COMPILE with the compiler's messages (a kernel that
 * uses what kemu.hpp does not emulate, inline PTX say, fails here); CUTUNE_ERR_NOT_FOUND
 * when there is no compiler. cache_dir NULL: the kernel cache folder (cutune_cache_dir). */
int cutune_emu_build(const char *source, const char *kernel_name, const char *const *defines,
                     size_t ndefines, const char *cache_dir, char *path, size_t len,
                     CutuneError *err);

typedef struct CutuneEmuKernel {
    void *handle;
    int (*launch)(const unsigned *grid, const unsigned *block, unsigned long long shared,
                  void **args, int nargs);
    int nparams; /* the kernel's */
} CutuneEmuKernel;

/* Load a kernel that cutune_emu_build made. */
int cutune_emu_open(const char *path, CutuneEmuKernel *k, CutuneError *err);
/* Run one launch to its end: every block, one after another (kemu.hpp). A kernel whose
 * threads never meet at a barrier, or that touches memory it does not own, ends the
 * process (run it in a child). CUTUNE_ERR_LAUNCH when the launch cannot be emulated (a
 * block over 1024 threads, dynamic shared memory over 256 KiB, the wrong argument count). */
int cutune_emu_launch(const CutuneEmuKernel *k, const CutuneLaunch *l, void **args, int nargs,
                      CutuneError *err);
void cutune_emu_close(CutuneEmuKernel *k);

/* The host services of cutune/op.h on the CPU, in a host table of host.h: device memory is
 * malloc'd host memory (freed by cutune_cpu_host_release when the op leaves some), copies
 * are memcpy, run_kernel builds and launches the kernel as above, and failures,
 * compare_f32, compare_exact and random_uniform are the GPU host's (the same comparison
 * kernels, the same seeded numbers). There is no yardstick. */
void cutune_cpu_host_init(CutuneHostCtx *c, const char *cache_dir, CutuneError *err);
void cutune_cpu_host_release(CutuneHostCtx *c);

#endif
