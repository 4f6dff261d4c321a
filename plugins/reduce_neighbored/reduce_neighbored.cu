// reduce_neighbored: each block sums BLOCK consecutive elements with a tree of neighbored
// pairs in shared memory (seed 003, sections 2 and 3). The seed reduces in place in
// global memory and leaves the partial sums to the host; here the block's elements are
// copied to shared memory first (timed launches repeat, so the input must survive) and
// the partials are finished in the same launch (plugins/common/reduce_op.h).
//
// Parameters (-D macros):
//   BLOCK     threads per block = elements per block
//   LESS_DIV  0: thread tid works when tid % (2 stride) == 0, so every warp stays busy
//             with few active threads; 1: thread tid works on element 2 stride tid, so the
//             working threads are packed into the first warps (less divergence)
#define WARPS (BLOCK / 32)

// Sum of v over the block, valid in thread 0; used for the final pass over the partials.
__device__ float block_sum(float v, float *warp_sums)
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

extern "C" __global__ void __launch_bounds__(BLOCK)
reduce_neighbored(const float *__restrict__ x, float *__restrict__ out, float *partials,
                  unsigned int *counter, long long n)
{
    __shared__ float s[BLOCK];
    __shared__ float warp_sums[WARPS];
    __shared__ bool last;
    const int tid = threadIdx.x;
    const long long i = (long long)blockIdx.x * BLOCK + tid;
    s[tid] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (int stride = 1; stride < BLOCK; stride *= 2) {
#if LESS_DIV
        const int at = 2 * stride * tid;
        if (at < BLOCK)
            s[at] += s[at + stride];
#else
        if (tid % (2 * stride) == 0)
            s[tid] += s[tid + stride];
#endif
        __syncthreads();
    }

    // Finish in this launch: the block with the last ticket adds every block's partial.
    if (tid == 0) {
        partials[blockIdx.x] = s[0];
        __threadfence();
        last = atomicAdd(counter, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last)
        return;
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f}; // four chains: independent loads in flight
    for (unsigned b = tid; b < gridDim.x; b += 4 * BLOCK)
#pragma unroll
        for (int k = 0; k < 4; k++)
            if (b + k * BLOCK < gridDim.x)
                acc[k] += __ldcg(&partials[b + k * BLOCK]);
    float total = block_sum((acc[0] + acc[1]) + (acc[2] + acc[3]), warp_sums);
    if (tid == 0) {
        *out = total;
        *counter = 0; // ready for the next launch
    }
}
