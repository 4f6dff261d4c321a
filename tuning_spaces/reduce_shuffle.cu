// reduce_shuffle: a grid-stride loop with ITEMS independent loads in flight per thread,
// optionally 16 bytes each, then warp shuffles instead of a shared-memory tree (seed 003's
// warp-shuffle form). A grid of BLOCKS_PER_SM blocks per SM stays resident; the partials of
// the blocks are finished in the same launch (plugins/common/reduce_finish.cuh).
//
// Parameters (-D macros):
//   BLOCK          threads per block
//   ITEMS          loads per thread per pass of the loop, each with its own accumulator
//   VEC            1: float loads; 4: float4 loads (the base pointer is 256-byte aligned)
//   BLOCKS_PER_SM  the grid is BLOCKS_PER_SM blocks per SM of the device (set by the plugin)
#if VEC == 4
typedef float4 vec_t;
__device__ __forceinline__ float hsum(float4 v) { return (v.x + v.y) + (v.z + v.w); }
#else
typedef float vec_t;
__device__ __forceinline__ float hsum(float v) { return v; }
#endif


extern "C" __global__ void __launch_bounds__(BLOCK)
reduce_shuffle(const float *__restrict__ x, float *__restrict__ out, float *partials,
               unsigned int *counter, long long n)
{
    __shared__ float warp_sums[WARPS];
    const int tid = threadIdx.x;
    const vec_t *xv = reinterpret_cast<const vec_t *>(x);
    const long long nv = n / VEC; // whole vectors; the tail is added below
    const long long step = (long long)gridDim.x * BLOCK * ITEMS;
    float acc[ITEMS];
#pragma unroll
    for (int k = 0; k < ITEMS; k++)
        acc[k] = 0.0f;
    long long i = (long long)blockIdx.x * BLOCK * ITEMS + tid;
    for (; i + (long long)(ITEMS - 1) * BLOCK < nv; i += step) { // whole passes: no bounds
        vec_t v[ITEMS];
#pragma unroll
        for (int k = 0; k < ITEMS; k++)
            v[k] = xv[i + (long long)k * BLOCK];
#pragma unroll
        for (int k = 0; k < ITEMS; k++)
            acc[k] += hsum(v[k]);
    }
#pragma unroll
    for (int k = 0; k < ITEMS; k++) // the last, partial pass
        if (i + (long long)k * BLOCK < nv)
            acc[k] += hsum(xv[i + (long long)k * BLOCK]);
    for (long long t = nv * VEC + (long long)blockIdx.x * BLOCK + tid; t < n;
         t += (long long)gridDim.x * BLOCK)
        acc[0] += x[t]; // the elements after the last whole vector
    float v = 0.0f;
#pragma unroll
    for (int k = 0; k < ITEMS; k++)
        v += acc[k];
    v = block_sum(v, warp_sums);
    finish_sum(v, out, partials, counter, warp_sums);
}
