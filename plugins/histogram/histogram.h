/* The histogram op: 256 bins over n input elements. The problem size is written NxTxD:
 *   N  the number of elements;
 *   T  the element type by its size: 1 = unsigned 8-bit (bin = the byte), 4 = float32 with
 *      256 even bins over [-1, 1): bin = min((int)((x + 1) * 128), 255) in float
 *      arithmetic, and values outside [-1, 1) are not counted (as CUB's HistogramEven);
 *   D  the data set: 1 = uniform, 2 = skewed.
 * One number N means Nx1x1 (bytes, uniform).
 *
 * Data sets (seeded, chunks of 2^20 elements drawing from generator streams 2c and 2c+1):
 *   uniform u8: every byte value equally likely;
 *   uniform f32: uniform in [-1.0625, 1.0625), so that about 6% fall outside the range;
 *   skewed: 7 elements in 8 fall into one bin (byte 200; floats uniform in bin 192,
 *   [0.5, 0.5078125)), the rest as in the uniform set. This is where atomics contend.
 *
 * Kernel signature, for every variant:
 *   extern "C" __global__ void NAME(const unsigned char *u8, const float *f32,
 *                                   unsigned int *bins, unsigned int *scratch,
 *                                   unsigned int *counter, long long n, int is_float)
 * with exactly one of u8 and f32 non-NULL (is_float says which).
 *
 * One launch computes the whole histogram and overwrites `bins`; nothing needs zeroing
 * between timed launches: the blocks add their counts into `scratch` (256 counters, zero
 * before the launch) and take a ticket from *counter; the block with the last ticket copies
 * scratch into bins and sets scratch and *counter back to zero for the next launch.
 * Only setup() zeroes them: poison_output() poisons the bins alone, so the checked launch of
 * each config runs after every launch of the configs measured before it on the same data,
 * and a launch that left scratch or the counter dirty makes the next check fail.
 *
 * Check: bins are poisoned (0xFF bytes) before the checked launch and compared exactly with
 * counts made on the host from the same data. bytes() counts the input read once and the
 * bins written once (N T + 1024). */
#ifndef CUTUNE_OP_HISTOGRAM_H
#define CUTUNE_OP_HISTOGRAM_H

#include "cutune/op.h"

#define HISTOGRAM_BINS 256

/* The device input of a state set up by the op (bytes or floats, as T says). */
const void *histogram_device_input(void *state);
/* The reference counts of that state (HISTOGRAM_BINS of them). */
const unsigned *histogram_reference(void *state);

/* The op's descriptor (the plugin exports it as cutune_op; benchmarks and tests link the
 * op's code directly). */
const CutuneOp *cutune_op_histogram(void);

#endif
