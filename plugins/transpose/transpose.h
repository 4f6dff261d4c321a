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
#ifndef CUTUNE_OP_TRANSPOSE_H
#define CUTUNE_OP_TRANSPOSE_H

#include "cutune/op.h"

/* The device input A of a state set up by the op (for benchmarks on the same data). */
const float *transpose_device_input(void *state);

/* The op's descriptor (the plugin exports it as cutune_op; benchmarks and tests link the
 * op's code directly). */
const CutuneOp *cutune_op_transpose(void);

#endif
