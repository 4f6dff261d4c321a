/* The matmul op: C = A * B in float32, row-major, A is MxK, B is KxN, C is MxN; the problem
 * size is written MxNxK (one number N means NxNxN).
 *
 * Every matmul variant keeps this contract (matmul.c) and brings only its kernel, its
 * space and its launch. Kernel signature, for every variant:
 *   extern "C" __global__ void NAME(const float *A, const float *B, float *C, int M, int N, int K)
 *
 * Check (documented tolerance): inputs uniform in [-1, 1), fresh from the seed; the output is
 * poisoned with NaN before the checked launch; the reference is computed on the device in
 * double precision (matmul_ref.cu). With p_k = a_ik b_kj and u = 2^-24, element (i,j) passes
 * when d = |C - ref| satisfies both
 *   d <= gamma_K * sum_k |p_k|,  gamma_K = K u / (1 - K u): the worst-case bound of any
 *        float32 summation order, with or without FMA (a hard limit no order can pass);
 *   d <= MATMUL_TAU * u * sqrt(K) * (sqrt(sum_k p_k^2) + |ref|): a statistical bound. The
 *        rounding errors of a float32 sum are about u times its partial sums, which for
 *        these inputs wander about sqrt(sum p^2) and end at ref; K of them add up like a
 *        random walk. For sequential sums with and without FMA (the least accurate order
 *        a kernel uses; split and tree sums err less), d / (u sqrt(K) (...)) has an rms of
 *        0.15 to 0.19 at every K from 8 to 8192, and its largest value was 1.8 in 5e7 sums
 *        at K = 8 down to 5e4 at K = 8192 (bench/bench_matmul_error, bench/results/
 *        2026-11-23-cpu-matmul-check), and under 2.1 in 1e8 more at K = 64; without the
 *        |ref| term the largest values double, and against u sqrt(sum p^2) (u sqrt(K) times
 *        the rms of p) they grow with sqrt(K). MATMUL_TAU = 8 leaves four times the
 *        largest, while a 1e-3 relative error in an element with |ref| >= 0.05
 *        sqrt(sum p^2) (96% of them at K = 8192, 99% at K = 1000) is caught; the worst-case
 *        bound alone lets errors of 0.14% (K = 1000) to 3.3% (K = 8192) of an element
 *        through (tests/test_matmul_check.c; on a GPU, tests/test_gpu_check.c).
 * The whole output passes when every element does and the relative Frobenius error is at
 * most 8 u sqrt(K) (about 20x the error of a plain sequential sum on such inputs, while a
 * single missing term gives about 1/sqrt(K)). NaN never passes. */
#ifndef CUTUNE_OP_MATMUL_H
#define CUTUNE_OP_MATMUL_H

#include "cutune/op.h"

#define MATMUL_TAU 8.0

/* The op's descriptor (the plugin exports it as cutune_op; benchmarks and tests link the
 * op's code directly). */
const CutuneOp *cutune_op_matmul(void);

/* The check's tolerances for an inner dimension K (see above): gamma_K, MATMUL_TAU * u and
 * the relative Frobenius bound. */
void matmul_tolerances(int K, double *gamma, double *tau, double *norm_tol);

#endif
