/* The matmul op: C = A * B, row-major, A is MxK, B is KxN (or NxK, layout nt), C is MxN, in
 * fp32, tf32, fp16 or bf16; the problem size is written MxNxK (one number N means NxNxN),
 * then -tf32, -fp16 or -bf16 and -nt where they apply.
 *
 * Every matmul variant keeps this contract (matmul.c) and brings only its kernel, its
 * space and its launch. Kernel signature, for every variant:
 *   extern "C" __global__ void NAME(const T *A, const T *B, T *C, int M, int N, int K,
 *                                   const T *bias)
 * with T float (fp32, tf32) or a 16-bit type (fp16, bf16); the kernel is compiled with
 * CUTUNE_DTYPE_<T>, CUTUNE_LAYOUT_<L> and CUTUNE_EPILOGUE_<E> defined to 1. bias is NULL
 * but for a problem with the bias epilogue ("-bias", fp16 and bf16 only, for the variants
 * whose INI lists `epilogues = none, bias`): C = A B + bias, bias a row of N values added to
 * every row of C in float32, before the one rounding to T.
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
 * single missing term gives about 1/sqrt(K)). NaN never passes.
 *
 * Other element types and layouts (problem "MxNxK-bf16-nt", cutune/op.h). Layout nt stores
 * B as N x K (C = A B^T). In fp16 and bf16, A, B and C hold 16-bit values: the inputs are
 * the float ones rounded to nearest even, and the reference is computed in double from
 * those rounded values, so a product a_ik b_kj is exact (11 + 11 and 8 + 8 significant bits
 * fit a float). The kernel sums in float32 and rounds once to T (unit roundoff u_T = 2^-11
 * for fp16, 2^-8 for bf16). With s the float32 sum, |s - ref| <= e and |C - s| <= u_T |s|,
 * so d = |C - ref| <= u_T |ref| + (1 + u_T) e. Tensor cores may sum with truncation rather
 * than rounding (Fasi et al., "Numerical behavior of NVIDIA tensor cores", 2021): every add
 * errs by at most 2u relative, and the errors need not cancel. So, with u = 2^-24:
 *   worst case:  e <= gamma_2K sum_k |p_k|, gamma_2K = 2Ku / (1 - 2Ku);
 *   statistical: e <= K u (sqrt(sum_k p_k^2) + |ref|), linear in K (biased truncation)
 *                rather than the sqrt(K) of round-to-nearest: 4.9e-4 of the partial sums at
 *                K = 8192, a quarter of a bf16 ulp of a typical element there.
 * One element 2 bf16 ulps off errs by more than 1.5 ulp after rounding, past u_T |ref| (1
 * ulp) plus e, so it is caught wherever e is under a quarter ulp, as for most elements
 * (tests/test_gpu_matmul.c plants one). The Frobenius bound is u_T + 2Ku. fp16 adds 2^-25,
 * half its subnormal spacing, for elements near zero, and takes K <= 65504 (|C| <= K).
 * In tf32 the inputs stay float32 and the kernel cuts them to 10 mantissa bits (rounded, or
 * truncated by the tensor cores: at most 2^-10 relative each), so a product errs by at most
 * 2^-9 + 2^-20 relative: worst case (2^-9 + 2^-20 + gamma_2K) sum |p_k|; statistically
 * 4 * 2^-10 (sqrt(sum p_k^2) + |ref|) (the cut errors are a random walk, their truncation
 * bias follows ref) plus the float32 bound above; Frobenius 2^-7. matmul_ref.cu's
 * cutune_matmul_bounds writes these into mag and scale, checked with gamma = tau = 1. FP32
 * computed through 3xTF32 is fp32: the float32 bounds above hold for it.
 *
 * The bias epilogue (fp16, bf16). The bias b is drawn as the inputs are (stream 2) and
 * rounded to T, so its values are exact in float and double. The reference is R = ref + b,
 * in double. The kernel computes s' = fl32(s + b) = (s + b)(1 + d), |d| <= u, then rounds it
 * once to T. With |s - ref| <= e: |s' - R| <= e + u |s + b| <= (1 + u) e + u |R|, so
 *   d = |C - R| <= u_T |R| + (1 + u_T) ((1 + u) e + u |R|),
 * with e the worst-case or the statistical bound above (both written by
 * cutune_matmul_bounds). Against T's rounding (u_T >= 2^-11) the add costs at most 2^-13
 * of |R| more. A bias added twice, or left out, moves an element by |b| (uniform in
 * [-1, 1)), far past these bounds for most elements. fp16 then takes K <= 65503, so that
 * |C| <= K + 1 stays finite. cuBLASLt's bias epilogue rounds twice at some shapes (the
 * product to T, then the sum): its algorithms are then recorded wrong_result (up to 1.13 bf16
 * ulps off on an H200, bench/RESULTS.md), as is anything that does not round once. */
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
