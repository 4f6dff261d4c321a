// matadd_2d: C = A + B with a 2-D thread block (seed 003, section 1). The block shape is
// the tuning space: block(2,2) of the seed is one point of it, and too few threads per
// block leave the SMs' block slots, not the memory system, as the limit.
//
// Parameters (-D macros):
//   BLOCK_X, BLOCK_Y  the thread block; x runs along a row (consecutive addresses)
//   VEC               columns per thread: 1, or 4 with one 16-byte load/store when the row
//                     length allows aligned float4 access (N % 4 == 0), else 4 scalars
// Rows beyond gridDim.y * BLOCK_Y (65535 blocks) are covered by a loop.
extern "C" __global__ void __launch_bounds__(BLOCK_X * BLOCK_Y)
matadd_2d(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int M,
          int N)
{
    const int col = (blockIdx.x * BLOCK_X + threadIdx.x) * VEC;
    if (col >= N)
        return;
    for (int row = blockIdx.y * BLOCK_Y + threadIdx.y; row < M; row += gridDim.y * BLOCK_Y) {
        const size_t at = (size_t)row * N + col;
#if VEC == 4
        if ((N & 3) == 0) { // aligned: the row starts on a 16-byte boundary and col % 4 == 0
            float4 a = *reinterpret_cast<const float4 *>(A + at);
            float4 b = *reinterpret_cast<const float4 *>(B + at);
            *reinterpret_cast<float4 *>(C + at) = make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
            continue;
        }
#endif
#pragma unroll
        for (int v = 0; v < VEC; v++)
            if (col + v < N)
                C[at + v] = A[at + v] + B[at + v];
    }
}
