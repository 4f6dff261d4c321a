// What the histogram kernels share (put in front of their source, after last_block.cuh; see
// plugins/meson.build): the float binning and the finish of the counts in the same launch.
// BLOCK (threads per block) comes as a -D macro.
#define BINS 256

// The bin of a float input: [-1, 1) in 256 equal bins; -1 for a value outside (not counted).
__device__ __forceinline__ int float_bin(float x)
{
    if (!(x >= -1.0f && x < 1.0f))
        return -1;
    int b = (int)((x + 1.0f) * 128.0f);
    return b < BINS - 1 ? b : BINS - 1;
}

// Finish in this launch, once the block's counts are in the scratch counters: the block
// with the last ticket publishes the counts in bins and clears the scratch counters and the
// ticket counter for the next launch. Every thread of the block must call it (it has
// barriers); `last` as in last_block().
__device__ __forceinline__ void finish_bins(unsigned int *__restrict__ bins, unsigned int *scratch,
                                            unsigned int *counter, bool &last)
{
    if (!last_block(counter, last))
        return;
    for (int b = threadIdx.x; b < BINS; b += BLOCK) {
        bins[b] = __ldcg(&scratch[b]);
        scratch[b] = 0;
    }
    if (threadIdx.x == 0)
        *counter = 0;
}
