// reduce_neighbored: each block sums BLOCK consecutive elements with a tree of neighbored
// pairs in shared memory (seed 003, sections 2 and 3). The seed reduces in place in
// global memory and leaves the partial sums to the host; here the block's elements are
// copied to shared memory first (timed launches repeat, so the input must survive) and
// the partials are finished in the same launch (plugins/common/reduce_finish.cuh).
//
// Parameters (-D macros):
//   BLOCK     threads per block = elements per block
//   LESS_DIV  0: thread tid works when tid % (2 stride) == 0, so every warp stays busy
//             with few active threads; 1: thread tid works on element 2 stride tid, so the
//             working threads are packed into the first warps (less divergence)


extern "C" __global__ void __launch_bounds__(BLOCK)
reduce_neighbored(const float *__restrict__ x, float *__restrict__ out, float *partials,
                  unsigned int *counter, long long n)
{
    __shared__ float s[BLOCK];
    __shared__ float warp_sums[WARPS];
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

    finish_sum(s[0], out, partials, counter, warp_sums);
}
