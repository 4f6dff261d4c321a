// The end shared by the reduce_sum kernels (put in front of their source; see
// plugins/meson.build): a block's sum, and the finish of the partials in the same launch.
// BLOCK (threads per block) comes as a -D macro.
#define WARPS (BLOCK / 32)

// Sum of v over the block, valid in thread 0. warp_sums: WARPS floats of shared memory.
__device__ __forceinline__ float block_sum(float v, float *warp_sums)
{
    for (int off = 16; off > 0; off >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, off);
    if ((threadIdx.x & 31) == 0)
        warp_sums[threadIdx.x >> 5] = v;
    __syncthreads();
    v = threadIdx.x < WARPS ? warp_sums[threadIdx.x] : 0.0f;
    if (threadIdx.x < 32)
        for (int off = 16; off > 0; off >>= 1)
            v += __shfl_down_sync(0xffffffffu, v, off);
    return v;
}

// Finish in this launch: thread 0 stores the block's sum v in partials[blockIdx.x] and takes
// a ticket; the block with the last ticket adds every block's partial into *out and resets
// the counter for the next launch. Every thread of the block must call it (it has
// barriers); warp_sums is reused.
__device__ __forceinline__ void finish_sum(float v, float *__restrict__ out, float *partials,
                                           unsigned int *counter, float *warp_sums)
{
    __shared__ bool last;
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = v;
        __threadfence();
        last = atomicAdd(counter, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last)
        return;
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f}; // four chains: independent loads in flight
    for (unsigned b = threadIdx.x; b < gridDim.x; b += 4 * BLOCK)
#pragma unroll
        for (int k = 0; k < 4; k++)
            if (b + k * BLOCK < gridDim.x)
                acc[k] += __ldcg(&partials[b + k * BLOCK]);
    __syncthreads(); // warp_sums may still be read by the block's own sum
    float total = block_sum((acc[0] + acc[1]) + (acc[2] + acc[3]), warp_sums);
    if (threadIdx.x == 0) {
        *out = total;
        *counter = 0;
    }
}
