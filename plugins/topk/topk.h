/* The topk op: the k largest values of n float32 values, with their indices, in
 * descending order (like torch.topk with sorted=True). The problem size is written NxK,
 * 1 <= K <= min(N, 1024).
 *
 * Kernel signature, for every variant:
 *   extern "C" __global__ void NAME(const float *x, float *out_val, int *out_idx,
 *                                   float *part_val, int *part_idx, unsigned int *counter,
 *                                   long long n, int k)
 *
 * One launch, one kernel: blocks select candidates from their part of x into part_val /
 * part_idx (at most topk_max_blocks() blocks of k entries each), take a ticket from
 * *counter, and the block with the last ticket selects the final k from the candidates,
 * writes out_val / out_idx and sets *counter back to 0 for the next launch. Only setup()
 * zeroes the counter (poison_output() poisons the outputs alone), so a launch that left it
 * dirty makes the check of the next config fail. The values must be finite (NaN has no
 * order).
 *
 * Check: x is uniform in [-1, 1) from the seed (stream 0), so equal values are common
 * near the top (about 8 copies of each float in [0.5, 1) at n = 2^28) and the indices of
 * tied values are not unique. The reference is the k largest values, found on the host with
 * a min-heap. The output passes when out_val equals the reference values element by
 * element (exactly: selection does no arithmetic), and every index is in [0, n), distinct,
 * and points at its value (x[out_idx[i]] == out_val[i]). Both outputs are poisoned (0xFF:
 * NaN and -1) before the checked launch. bytes() counts x read once and the k pairs
 * written (4 n + 8 k). */
#ifndef CUTUNE_OP_TOPK_H
#define CUTUNE_OP_TOPK_H

#include "cutune/op.h"

#define TOPK_MAX_K 1024

/* The device input x of a state set up by the op (for benchmarks on the same data). */
const float *topk_device_input(void *state);

/* The most blocks a variant may launch: the candidate buffers hold this many times k. */
#define TOPK_MAX_BLOCKS 2048

/* The op's descriptor (the plugin exports it as cutune_op; benchmarks and tests link the
 * op's code directly). */
const CutuneOp *cutune_op_topk(void);

#endif
