/* NVRTC in compile processes. NVRTC compiles in parallel threads of one process only up to
 * a point: on a 64-core host 64 threads compiled 46 configs/s, no more than 32 did, where
 * 64 processes compiled 76-78 (bench/compile_scaling.py; bench/RESULTS.md, "Compile
 * processes"). So each thread of a tuning run's compile pool keeps a cutune-worker of its
 * own in compile mode (it opens no device) and has it run NVRTC. The process starts at the
 * thread's first compile and ends with the thread (the worker dies with the thread that
 * started it). */
#ifndef CUTUNE_COMPILE_PROC_H
#define CUTUNE_COMPILE_PROC_H

#include <stddef.h>

#include "compile.h"
#include "cutune/cutune.h"

/* The runner (compile.h) of a tuning run's compile jobs: cutune_compile_proc, unless
 * CUTUNE_COMPILE_PROCS is "0" (NULL: NVRTC in the pool's threads themselves). */
CutuneNvrtcRunner cutune_compile_runner(void);

/* NVRTC on source with these options in this thread's compile process (a CutuneNvrtcRunner):
 * 0 with out->cubin set; CUTUNE_ERR_COMPILE with err (and out->log where NVRTC wrote one)
 * when the source does not compile or the process died compiling it (a fresh one takes the
 * next compile); 1 when this thread has no compile process and can have none (no worker
 * executable, or one that does not know COMPILE): the caller compiles itself. */
int cutune_compile_proc(const char *source, const char *kernel_name, const char *const *opts,
                        size_t nopts, CutuneKernelBinary *out, CutuneError *err);

#endif
