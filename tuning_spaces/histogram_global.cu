// histogram_global: every element is one atomicAdd on a bin in global memory (seed 001,
// section 0.3, first version). Skewed data sends most of those atomics to one address.
// The counts are finished in the same launch (plugins/common/histogram_finish.cuh, put in
// front of this source; plugins/common/histogram_op.h).
//
// Parameters (-D macros):
//   BLOCK          threads per block
//   BLOCKS_PER_SM  the grid is BLOCKS_PER_SM blocks per SM of the device (set by the plugin); a
//                  grid-stride loop reads 16 bytes per thread per step

extern "C" __global__ void __launch_bounds__(BLOCK)
histogram_global(const unsigned char *__restrict__ u8, const float *__restrict__ f32,
                 unsigned int *__restrict__ bins, unsigned int *scratch, unsigned int *counter,
                 long long n, int is_float)
{
    __shared__ bool last;
    const int tid = threadIdx.x;
    const long long first = (long long)blockIdx.x * BLOCK + tid, step = (long long)gridDim.x * BLOCK;
    if (!is_float) {
        const long long nv = n / 16;
        const uint4 *v = reinterpret_cast<const uint4 *>(u8);
        for (long long i = first; i < nv; i += step) {
            uint4 w = v[i];
            unsigned words[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
            for (int k = 0; k < 4; k++)
#pragma unroll
                for (int b = 0; b < 4; b++)
                    atomicAdd(&scratch[(words[k] >> (8 * b)) & 0xFFu], 1u);
        }
        for (long long t = nv * 16 + first; t < n; t += step)
            atomicAdd(&scratch[u8[t]], 1u);
    } else {
        const long long nv = n / 4;
        const float4 *v = reinterpret_cast<const float4 *>(f32);
        for (long long i = first; i < nv; i += step) {
            float4 w = v[i];
            float xs[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
            for (int k = 0; k < 4; k++) {
                int b = float_bin(xs[k]);
                if (b >= 0)
                    atomicAdd(&scratch[b], 1u);
            }
        }
        for (long long t = nv * 4 + first; t < n; t += step) {
            int b = float_bin(f32[t]);
            if (b >= 0)
                atomicAdd(&scratch[b], 1u);
        }
    }

    finish_bins(bins, scratch, counter, last);
}
