// topk_filter: per-block selection by a rising threshold, then a merge by the last block,
// in one launch (seed 001, section 0.5: partial selection per block, then a merge; see
// plugins/common/topk_op.h for the contract).
//
// Each block keeps a candidate buffer of CAP (value, index) pairs in shared memory. It
// reads its tiles of BLOCK * ITEMS elements (a grid-stride loop) and appends every element
// above the block's threshold. Before a tile that might not fit, it sorts the buffer
// (bitonic, descending), keeps the best k, and raises the threshold to the k-th value:
// after the first few tiles almost nothing passes, so the block streams x at memory speed.
// CAP leaves room for at least 2048 appends between two sorts (k <= 1024), so sorts are
// rare. Elements equal to the threshold may be dropped: the buffer already holds k values
// at least as large, so the multiset of the k largest values is unchanged. Each block
// writes its best k (padded with -inf, index -1) to the candidate arrays; the block with
// the last ticket runs the same selection over all candidates and writes the answer. It
// starts from the largest of the blocks' k-th values, T: one block alone has k values >= T,
// so no value below T can be among the k largest, and only candidates >= T are appended.
//
// Parameters (-D macros):
//   BLOCK          threads per block
//   ITEMS          elements per thread per tile (loads in flight)
//   BLOCKS_PER_SM  the grid is BLOCKS_PER_SM blocks per SM of the device (set by the plugin)
// The plugin sizes dynamic shared memory as CAP * 8 bytes with the same CAP.
#define TILE (BLOCK * ITEMS)
#define NEG_INF __int_as_float(0xff800000) // -infinity (NVRTC has no math.h)
#define CAP (TILE <= 1024 ? 4096 : 4 * TILE) // >= 1024 + TILE + 2048, a power of two
#ifndef DYNAMIC_SHARED // tests/kemu (kernels run on the CPU) brings its own
#define DYNAMIC_SHARED(type, name) extern __shared__ type name[]
#endif

struct Sel {
    float *val;
    int *idx;
    int cap, k;
    int *count; // entries in the buffer
    float *thr; // elements must be above this to enter
};

// The largest float below t (t finite or -inf): v > below(t) means v >= t.
__device__ __forceinline__ float below(float t)
{
    if (t == NEG_INF)
        return t;
    int b = __float_as_int(t);
    if (t > 0.0f)
        return __int_as_float(b - 1);
    if (t < 0.0f)
        return __int_as_float(b + 1);
    return __int_as_float(0x80000001); // the negative denormal next to zero
}

// Sort the buffer descending and keep the best k; every thread calls it.
__device__ void compact(const Sel &s)
{
    const int c = *s.count;
    for (int i = c + threadIdx.x; i < s.cap; i += BLOCK) {
        s.val[i] = NEG_INF;
        s.idx[i] = -1;
    }
    __syncthreads();
    for (int size = 2; size <= s.cap; size <<= 1)
        for (int stride = size >> 1; stride > 0; stride >>= 1) {
            for (int t = threadIdx.x; t < s.cap / 2; t += BLOCK) {
                const int lo = 2 * t - (t & (stride - 1)), hi = lo + stride;
                const bool desc = (lo & size) == 0;
                const float a = s.val[lo], b = s.val[hi];
                if (desc ? a < b : a > b) {
                    s.val[lo] = b;
                    s.val[hi] = a;
                    const int j = s.idx[lo];
                    s.idx[lo] = s.idx[hi];
                    s.idx[hi] = j;
                }
            }
            __syncthreads();
        }
    if (threadIdx.x == 0) {
        *s.count = c < s.k ? c : s.k;
        *s.thr = c >= s.k ? s.val[s.k - 1] : NEG_INF;
    }
    __syncthreads();
}

// Offer elements [t * TILE, (t + 1) * TILE) of src, for t = first, first + step, ..., to the
// buffer. An element's index is idx[i], or i itself when idx is NULL.
__device__ void consume(const Sel &s, const float *src, const int *idx, long long m,
                        long long first, long long step)
{
    const long long tiles = (m + TILE - 1) / TILE;
    for (long long t = first; t < tiles; t += step) {
        const long long base = t * TILE + threadIdx.x;
        float v[ITEMS];
#pragma unroll
        for (int j = 0; j < ITEMS; j++) {
            const long long i = base + (long long)j * BLOCK;
            v[j] = i < m ? __ldcg(&src[i]) : NEG_INF;
        }
        const int count = *s.count;
        __syncthreads(); // every thread has read count before anyone appends
        if (count + TILE > s.cap)
            compact(s);
        const float thr = *s.thr;
#pragma unroll
        for (int j = 0; j < ITEMS; j++)
            if (v[j] > thr) {
                const long long i = base + (long long)j * BLOCK;
                const int at = atomicAdd(s.count, 1);
                s.val[at] = v[j];
                s.idx[at] = idx ? __ldcg(&idx[i]) : (int)i;
            }
        __syncthreads();
    }
}

extern "C" __global__ void __launch_bounds__(BLOCK)
topk_filter(const float *__restrict__ x, float *__restrict__ out_val, int *__restrict__ out_idx,
            float *part_val, int *part_idx, unsigned int *counter, long long n, int k)
{
    DYNAMIC_SHARED(float, smem);
    __shared__ int count;
    __shared__ float thr;
    __shared__ bool last;
    __shared__ float block_max[BLOCK / 32];
    const Sel s = {smem, reinterpret_cast<int *>(smem + CAP), CAP, k, &count, &thr};
    const int tid = threadIdx.x;
    if (tid == 0) {
        count = 0;
        thr = NEG_INF;
    }
    __syncthreads();
    consume(s, x, nullptr, n, blockIdx.x, gridDim.x);
    compact(s);
    for (int j = tid; j < k; j += BLOCK) {
        const bool have = j < count;
        part_val[(size_t)blockIdx.x * k + j] = have ? s.val[j] : NEG_INF;
        part_idx[(size_t)blockIdx.x * k + j] = have ? s.idx[j] : -1;
    }

    // The merge, in this launch: the block with the last ticket (common/last_block.cuh)
    // selects from all candidates.
    if (!last_block(counter, last))
        return;
    float t = NEG_INF; // T: the largest of the blocks' k-th values
    for (unsigned b = tid; b < gridDim.x; b += BLOCK)
        t = fmaxf(t, __ldcg(&part_val[(size_t)b * k + k - 1]));
    for (int off = 16; off > 0; off >>= 1)
        t = fmaxf(t, __shfl_down_sync(0xffffffffu, t, off));
    if ((tid & 31) == 0)
        block_max[tid >> 5] = t;
    __syncthreads();
    if (tid == 0) {
        for (int w = 1; w < BLOCK / 32; w++)
            t = fmaxf(t, block_max[w]);
        count = 0;
        thr = below(t);
    }
    __syncthreads();
    consume(s, part_val, part_idx, (long long)gridDim.x * k, 0, 1);
    compact(s);
    for (int j = tid; j < k; j += BLOCK) {
        out_val[j] = s.val[j];
        out_idx[j] = s.idx[j];
    }
    if (tid == 0)
        *counter = 0; // ready for the next launch
}
