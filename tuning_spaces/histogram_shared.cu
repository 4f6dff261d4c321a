// histogram_shared: each block counts into private histograms in shared memory during a
// grid-stride loop, then adds them to the global counts with one atomic per bin (seed 001,
// section 0.3, second version). The counts are finished in the same launch
// (plugins/common/histogram_finish.cuh, put in front of this source; histogram_op.h).
//
// Parameters (-D macros):
//   BLOCK          threads per block
//   BLOCKS_PER_SM  the grid is BLOCKS_PER_SM blocks per SM of the device (set by the plugin)
//   ITEMS          16-byte loads per thread in flight per step of the loop
//   COPIES         private histograms per block: lane l counts into copy l % COPIES,
//                  laid out bin-major (bin * COPIES + copy), so with 32 copies every lane
//                  of a warp owns its own bank and lanes never collide on an address
//   RLE            1: a thread merges runs of equal bins in registers and adds each run
//                  with one atomic (skewed data has long runs); 0: one atomic per element

// A thread's pending run: `count` elements of bin `bin` not yet added to shared memory.
struct Run {
    int bin;
    unsigned count;
};

__device__ __forceinline__ void count_bin(unsigned *hist, int copy, Run &run, int b)
{
#if RLE
    if (b == run.bin) {
        run.count++;
        return;
    }
    if (run.count)
        atomicAdd(&hist[run.bin * COPIES + copy], run.count);
    run.bin = b;
    run.count = 1;
#else
    (void)run;
    atomicAdd(&hist[b * COPIES + copy], 1u);
#endif
}

__device__ __forceinline__ void count_word(unsigned *hist, int copy, Run &run, unsigned w)
{
#pragma unroll
    for (int b = 0; b < 4; b++)
        count_bin(hist, copy, run, (w >> (8 * b)) & 0xFFu);
}

__device__ __forceinline__ void count_float(unsigned *hist, int copy, Run &run, float x)
{
    int b = float_bin(x);
    if (b >= 0)
        count_bin(hist, copy, run, b);
}

// One 16-byte vector, and one element, of either input.
__device__ __forceinline__ void count_vec(unsigned *hist, int copy, Run &run, uint4 w)
{
    count_word(hist, copy, run, w.x);
    count_word(hist, copy, run, w.y);
    count_word(hist, copy, run, w.z);
    count_word(hist, copy, run, w.w);
}
__device__ __forceinline__ void count_vec(unsigned *hist, int copy, Run &run, float4 w)
{
    count_float(hist, copy, run, w.x);
    count_float(hist, copy, run, w.y);
    count_float(hist, copy, run, w.z);
    count_float(hist, copy, run, w.w);
}
__device__ __forceinline__ void count_one(unsigned *hist, int copy, Run &run, unsigned char x)
{
    count_bin(hist, copy, run, x);
}
__device__ __forceinline__ void count_one(unsigned *hist, int copy, Run &run, float x)
{
    count_float(hist, copy, run, x);
}

// This thread's share of the n elements of src: whole 16-byte vectors Vec, ITEMS loads in
// flight per step of a grid-stride loop, then the elements after the last whole vector.
template <class Vec, class Elem>
__device__ __forceinline__ void count_input(const Elem *__restrict__ src, long long n, unsigned *hist,
                                            int copy, Run &run)
{
    constexpr int per = sizeof(Vec) / sizeof(Elem);
    const long long nv = n / per;
    const Vec *v = reinterpret_cast<const Vec *>(src);
    const long long first = (long long)blockIdx.x * BLOCK * ITEMS + threadIdx.x;
    const long long step = (long long)gridDim.x * BLOCK * ITEMS;
    for (long long i = first; i < nv; i += step) {
        Vec w[ITEMS];
#pragma unroll
        for (int k = 0; k < ITEMS; k++)
            if (i + (long long)k * BLOCK < nv)
                w[k] = v[i + (long long)k * BLOCK];
#pragma unroll
        for (int k = 0; k < ITEMS; k++)
            if (i + (long long)k * BLOCK < nv)
                count_vec(hist, copy, run, w[k]);
    }
    const long long tail_step = (long long)gridDim.x * BLOCK;
    for (long long t = nv * per + (long long)blockIdx.x * BLOCK + threadIdx.x; t < n; t += tail_step)
        count_one(hist, copy, run, src[t]);
}

extern "C" __global__ void __launch_bounds__(BLOCK)
histogram_shared(const unsigned char *__restrict__ u8, const float *__restrict__ f32,
                 unsigned int *__restrict__ bins, unsigned int *scratch, unsigned int *counter,
                 long long n, int is_float)
{
    __shared__ unsigned hist[BINS * COPIES];
    __shared__ bool last; /* after hist: see common/last_block.cuh */
    const int tid = threadIdx.x, copy = (tid & 31) % COPIES;
    for (int i = tid; i < BINS * COPIES; i += BLOCK)
        hist[i] = 0;
    __syncthreads();

    Run run = {-1, 0};
    if (!is_float)
        count_input<uint4>(u8, n, hist, copy, run);
    else
        count_input<float4>(f32, n, hist, copy, run);
#if RLE
    if (run.count)
        atomicAdd(&hist[run.bin * COPIES + copy], run.count);
#endif
    __syncthreads();
    // The block's counts, copies summed, into the launch's scratch counters.
    for (int b = tid; b < BINS; b += BLOCK) {
        unsigned sum = 0;
#pragma unroll
        for (int c = 0; c < COPIES; c++)
            sum += hist[b * COPIES + c];
        if (sum)
            atomicAdd(&scratch[b], sum);
    }

    finish_bins(bins, scratch, counter, last);
}
