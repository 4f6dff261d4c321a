/* The matadd op: C = A + B, element-wise, float32, row-major M x N matrices. The problem
 * size is written MxN (rows x columns); one number N means NxN.
 *
 * Kernel signature, for every variant:
 *   extern "C" __global__ void NAME(const float *A, const float *B, float *C, int M, int N)
 *
 * Check: inputs uniform in [-1, 1) from the seed (streams 0 and 1); C is poisoned with NaN
 * before the checked launch and compared on the device with the float sums of a plain
 * reference kernel (exact.cu). One IEEE addition has one correctly rounded result, so the
 * check is exact: every element must be bit-identical. bytes() counts A and B read once and C written once (12 M N). */
#ifndef CUTUNE_PLUGINS_MATADD_OP_H
#define CUTUNE_PLUGINS_MATADD_OP_H

#include "cutune/plugin.h"

int matadd_check_problem(CutuneProblem *p, char *err, size_t errlen);
int matadd_setup(const CutuneHost *host, const CutuneProblem *p, uint64_t seed, void **state);
int matadd_kernel_args(void *state, const CutuneConfig *cfg, void **args, int max);
int matadd_poison_output(const CutuneHost *host, void *state);
int matadd_check(const CutuneHost *host, void *state, CutuneCheck *out);
void matadd_teardown(const CutuneHost *host, void *state);
double matadd_flops(const CutuneProblem *p);
double matadd_bytes(const CutuneProblem *p);
/* The device input A and B of a state from matadd_setup (for benchmarks on the same data). */
const float *matadd_device_input(void *state, int which);

#define MATADD_OP_FIELDS                                                                    \
    .abi_major = CUTUNE_PLUGIN_ABI_MAJOR, .abi_minor = CUTUNE_PLUGIN_ABI_MINOR,             \
    .struct_size = sizeof(CutuneVariant), .op = "matadd", .dim_names = "M,N",              \
    .check_problem = matadd_check_problem, .setup = matadd_setup,                           \
    .kernel_args = matadd_kernel_args, .poison_output = matadd_poison_output,              \
    .check = matadd_check, .teardown = matadd_teardown, .flops = matadd_flops,             \
    .bytes = matadd_bytes

#endif
