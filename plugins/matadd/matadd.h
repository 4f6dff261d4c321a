/* The matadd op: C = A + B, element-wise, float32, row-major M x N matrices. The problem
 * size is written MxN (rows x columns); one number N means NxN.
 *
 * Kernel signature, for every variant:
 *   extern "C" __global__ void NAME(const float *A, const float *B, float *C, int M, int N)
 *
 * Check: inputs uniform in [-1, 1) from the seed (streams 0 and 1); C is poisoned with NaN
 * before the checked launch and compared on the device with the float sums of a plain
 * reference kernel (matadd_ref.cu). One IEEE addition has one correctly rounded result, so the
 * check is exact: every element must be bit-identical. bytes() counts A and B read once and C written once (12 M N). */
#ifndef CUTUNE_OP_MATADD_H
#define CUTUNE_OP_MATADD_H

#include "cutune/op.h"

/* The device input A and B of a state set up by the op (for benchmarks on the same data). */
const float *matadd_device_input(void *state, int which);

/* The op's descriptor (the plugin exports it as cutune_op; benchmarks and tests link the
 * op's code directly). */
const CutuneOp *cutune_op_matadd(void);

#endif
