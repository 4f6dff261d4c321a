// reduce_interleaved: interleaved pairs in shared memory, each thread first adding UNROLL
// elements BLOCK apart (seed 003, sections 4 to 7: interleaved pairs, unrolling 2/4/8/16
// data blocks per thread block, the unrolled last warp, complete unrolling). The partials
// of the blocks are finished in the same launch (plugins/common/reduce_op.h).
//
// Parameters (-D macros):
//   BLOCK      threads per block; a block covers BLOCK * UNROLL elements
//   UNROLL     data blocks summed by each thread before the tree (1: plain interleaved)
//   LAST_WARP  1: the last 32 -> 1 steps run inside one warp without __syncthreads
//   COMPLETE   1: the tree loop is fully unrolled (BLOCK is a compile-time constant);
//              0: it is kept as a loop
#define WARPS (BLOCK / 32)
#define CUTUNE_STR(x) #x
#define CUTUNE_PRAGMA(x) _Pragma(CUTUNE_STR(x))
#if COMPLETE
#define TREE_UNROLL CUTUNE_PRAGMA(unroll)
#else
#define TREE_UNROLL CUTUNE_PRAGMA(unroll 1)
#endif

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
reduce_interleaved(const float *__restrict__ x, float *__restrict__ out, float *partials,
                   unsigned int *counter, long long n)
{
    __shared__ float s[BLOCK];
    __shared__ float warp_sums[WARPS];
    __shared__ bool last;
    const int tid = threadIdx.x;
    const long long base = (long long)blockIdx.x * BLOCK * UNROLL + tid;
    float v = 0.0f;
#pragma unroll
    for (int k = 0; k < UNROLL; k++) {
        const long long i = base + (long long)k * BLOCK;
        if (i < n)
            v += x[i];
    }
    s[tid] = v;
    __syncthreads();
    TREE_UNROLL
    for (int stride = BLOCK / 2; stride > (LAST_WARP ? 32 : 0); stride >>= 1) {
        if (tid < stride)
            s[tid] += s[tid + stride];
        __syncthreads();
    }
#if LAST_WARP
    if (tid < 32) {
        // Without lockstep execution a lane may not read a neighbour's slot while it is
        // being written: read, sync the warp, write, sync the warp.
        volatile float *vs = s;
#pragma unroll
        for (int off = 32; off > 0; off >>= 1) {
            float t = vs[tid] + vs[tid + off];
            __syncwarp();
            vs[tid] = t;
            __syncwarp();
        }
    }
    __syncthreads();
#endif

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
