// reduce_interleaved: interleaved pairs in shared memory, each thread first adding UNROLL
// elements BLOCK apart (seed 003, sections 4 to 7: interleaved pairs, unrolling 2/4/8/16
// data blocks per thread block, the unrolled last warp, complete unrolling). The partials
// of the blocks are finished in the same launch (plugins/common/reduce_finish.cuh).
//
// Parameters (-D macros):
//   BLOCK      threads per block; a block covers BLOCK * UNROLL elements
//   UNROLL     data blocks summed by each thread before the tree (1: plain interleaved)
//   LAST_WARP  1: the last 32 -> 1 steps run inside one warp without __syncthreads
//   COMPLETE   1: the tree loop is fully unrolled (BLOCK is a compile-time constant);
//              0: it is kept as a loop
#define CUTUNE_STR(x) #x
#define CUTUNE_PRAGMA(x) _Pragma(CUTUNE_STR(x))
#if COMPLETE
#define TREE_UNROLL CUTUNE_PRAGMA(unroll)
#else
#define TREE_UNROLL CUTUNE_PRAGMA(unroll 1)
#endif


extern "C" __global__ void __launch_bounds__(BLOCK)
reduce_interleaved(const float *__restrict__ x, float *__restrict__ out, float *partials,
                   unsigned int *counter, long long n)
{
    __shared__ float s[BLOCK];
    __shared__ float warp_sums[WARPS];
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

    finish_sum(s[0], out, partials, counter, warp_sums);
}
