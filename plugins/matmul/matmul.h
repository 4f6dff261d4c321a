/* The matmul op: C = A * B in float32, row-major, A is MxK, B is KxN, C is MxN; the problem
 * size is written MxNxK (one number N means NxNxN).
 *
 * Every matmul variant keeps this contract (matmul.c) and brings only its kernel, its
 * space and its launch. Kernel signature, for every variant:
 *   extern "C" __global__ void NAME(const float *A, const float *B, float *C, int M, int N, int K)
 *
 * Check (documented tolerance): inputs uniform in [-1, 1), fresh from the seed; the output is
 * poisoned with NaN before the checked launch; the reference is computed on the device in
 * double precision. Element (i,j) passes when |C - ref| <= gamma_K * sum_k |a_ik||b_kj| with
 * gamma_K = K u / (1 - K u), u = 2^-24: the classical bound for any float32 summation order
 * with or without FMA. The whole output passes when every element does and the relative
 * Frobenius error is at most 8 u sqrt(K) (about 20x the error of a plain sequential sum on
 * such inputs, while a single missing term gives about 1/sqrt(K)). NaN never passes. */
#ifndef CUTUNE_OP_MATMUL_H
#define CUTUNE_OP_MATMUL_H

#include "cutune/op.h"

/* The op's descriptor (the plugin exports it as cutune_op; benchmarks and tests link the
 * op's code directly). */
const CutuneOp *cutune_op_matmul(void);

#endif
