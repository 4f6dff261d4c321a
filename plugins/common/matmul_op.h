/* The matmul op: C = A * B in float32, row-major, A is MxK, B is KxN, C is MxN; the problem
 * size is written MxNxK (one number N means NxNxN).
 *
 * Every matmul variant keeps this contract and shares everything here but its kernel and
 * launch geometry. Kernel signature, for every variant:
 *   extern "C" __global__ void NAME(const float *A, const float *B, float *C, int M, int N, int K)
 *
 * Check (documented tolerance): inputs uniform in [-1, 1), fresh from the seed; the output is
 * poisoned with NaN before the checked launch; the reference is computed on the device in
 * double precision. Element (i,j) passes when |C - ref| <= gamma_K * sum_k |a_ik||b_kj| with
 * gamma_K = K u / (1 - K u), u = 2^-24: the classical bound for any float32 summation order
 * with or without FMA. The whole output passes when every element does and the relative
 * Frobenius error is at most 8 u sqrt(K) (about 20x the error of a plain sequential sum on
 * such inputs, while a single missing term gives about 1/sqrt(K)). NaN never passes. */
#ifndef CUTUNE_PLUGINS_MATMUL_OP_H
#define CUTUNE_PLUGINS_MATMUL_OP_H

#include "cutune/plugin.h"

int matmul_check_problem(CutuneProblem *p, char *err, size_t errlen);
int matmul_setup(const CutuneHost *host, const CutuneProblem *p, uint64_t seed, void **state);
int matmul_kernel_args(void *state, const CutuneConfig *cfg, void **args, int max);
int matmul_poison_output(const CutuneHost *host, void *state);
int matmul_check(const CutuneHost *host, void *state, CutuneCheck *out);
void matmul_teardown(const CutuneHost *host, void *state);
double matmul_flops(const CutuneProblem *p);
double matmul_bytes(const CutuneProblem *p);

/* The descriptor fields every matmul variant shares. */
#define MATMUL_OP_FIELDS                                                                    \
    .abi_major = CUTUNE_PLUGIN_ABI_MAJOR, .abi_minor = CUTUNE_PLUGIN_ABI_MINOR,             \
    .struct_size = sizeof(CutuneVariant), .op = "matmul", .dim_names = "M,N,K",            \
    .check_problem = matmul_check_problem, .setup = matmul_setup,                           \
    .kernel_args = matmul_kernel_args, .poison_output = matmul_poison_output,              \
    .check = matmul_check, .teardown = matmul_teardown, .flops = matmul_flops,             \
    .bytes = matmul_bytes

/* ceil(a / b) for launch geometry */
static inline unsigned matmul_ceil_div(int64_t a, int64_t b)
{
    return (unsigned)((a + b - 1) / b);
}

#endif
