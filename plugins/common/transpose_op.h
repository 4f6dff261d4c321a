/* The transpose op: B = A^T, float32, row-major; A is R x C, B is C x R. The problem size
 * is written RxC (rows x columns of A); one number N means NxN.
 *
 * Kernel signature, for every variant:
 *   extern "C" __global__ void NAME(const float *A, float *B, int R, int C)
 *
 * Check: A is uniform in [-1, 1) from the seed (stream 0); B is poisoned with NaN before
 * the checked launch and compared on the host: a transpose moves values without
 * arithmetic, so every element must be bit-identical to A[j][i]. bytes() counts A read once
 * and B written once (8 R C), as cudaMemcpy device-to-device is counted (read + write). */
#ifndef CUTUNE_PLUGINS_TRANSPOSE_OP_H
#define CUTUNE_PLUGINS_TRANSPOSE_OP_H

#include "cutune/plugin.h"

int transpose_check_problem(CutuneProblem *p, char *err, size_t errlen);
int transpose_setup(const CutuneHost *host, const CutuneProblem *p, uint64_t seed, void **state);
int transpose_kernel_args(void *state, const CutuneConfig *cfg, void **args, int max);
int transpose_poison_output(const CutuneHost *host, void *state);
int transpose_check(const CutuneHost *host, void *state, CutuneCheck *out);
void transpose_teardown(const CutuneHost *host, void *state);
double transpose_bytes(const CutuneProblem *p);
double transpose_flops(const CutuneProblem *p); /* 0: no arithmetic */
/* The device input A of a state from transpose_setup (for benchmarks on the same data). */
const float *transpose_device_input(void *state);

#define TRANSPOSE_OP_FIELDS                                                                 \
    .abi_major = CUTUNE_PLUGIN_ABI_MAJOR, .abi_minor = CUTUNE_PLUGIN_ABI_MINOR,             \
    .struct_size = sizeof(CutuneVariant), .op = "transpose", .dim_names = "R,C",           \
    .check_problem = transpose_check_problem, .setup = transpose_setup,                     \
    .kernel_args = transpose_kernel_args, .poison_output = transpose_poison_output,        \
    .check = transpose_check, .teardown = transpose_teardown, .flops = transpose_flops,    \
    .bytes = transpose_bytes

#endif
