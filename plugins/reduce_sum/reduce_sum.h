/* The reduce_sum op: the sum of n float32 values. The problem size is n.
 *
 * Kernel signature, for every variant:
 *   extern "C" __global__ void NAME(const float *x, float *out, float *partials,
 *                                   unsigned int *counter, long long n)
 *
 * One launch, one kernel, the whole sum. Each block writes its partial sum to
 * partials[blockIdx.x], makes it visible (__threadfence) and takes a ticket from *counter;
 * the block that draws the last ticket adds the partials in a fixed order, writes *out and
 * sets *counter back to 0. So *out is written, never accumulated, by every launch (a
 * poisoned *out cannot leak into the result), and back-to-back timed launches need no
 * reset between them. Only setup() zeroes the counter: poison_output() poisons *out alone,
 * so the checked launch of each config runs after every launch of the configs measured
 * before it on the same inputs, and a launch that left the counter dirty makes the next
 * check fail. A variant launches at most reduce_max_blocks(n) blocks (the size of
 * `partials`).
 *
 * Check: x is uniform in [-1, 1) from the seed (stream 0); the reference is the sum in
 * double precision on the host. A worst-case float bound (gamma_n * sum |x|) is useless
 * here: for n >= 2^24 it exceeds the sum itself. The tolerance is statistical instead and
 * grows with n: |out - ref| <= 8 u n^(3/4) max|x|, u = 2^-24. A tree of float additions whose
 * serial chains are at most L long has a rounding error with standard deviation about
 * u sqrt(n L) max|x| / 4; every variant here keeps L below sqrt(n) at the sizes tuned, so
 * the bound is some 32 standard deviations away, while a dropped or doubled element larger
 * than the bound fails (at n = 2^20 the bound is 1.6e-2). NaN never passes.
 * bytes() counts x read once and the result written (4 n + 4). */
#ifndef CUTUNE_OP_REDUCE_SUM_H
#define CUTUNE_OP_REDUCE_SUM_H

#include "cutune/op.h"

/* The device input x of a state set up by the op (for benchmarks on the same data). */
const float *reduce_device_input(void *state);
/* The double-precision reference sum of that state. */
double reduce_reference(void *state);

/* The most blocks a variant may launch for n elements: the length of `partials`. */
static inline int64_t reduce_max_blocks(int64_t n)
{
    int64_t b = (n + 31) / 32;
    return b > 4096 ? b : 4096;
}

/* The op's descriptor (the plugin exports it as cutune_op; benchmarks and tests link the
 * op's code directly). */
const CutuneOp *cutune_op_reduce_sum(void);

#endif
