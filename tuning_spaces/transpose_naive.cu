// transpose_naive: one thread per element, straight from global memory (seed 001,
// section 0.1). One side of the copy is always strided: ORDER picks which.
//
// Parameters (-D macros):
//   BLOCK_X, BLOCK_Y  the thread block
//   ORDER             0: threads along x read consecutive elements of a row of A (coalesced
//                     reads, writes C floats apart); 1: threads along x write consecutive
//                     elements of a row of B (coalesced writes, strided reads)
// Rows of the grid beyond gridDim.y * BLOCK_Y (65535 blocks) are covered by a loop.
extern "C" __global__ void __launch_bounds__(BLOCK_X * BLOCK_Y)
transpose_naive(const float *__restrict__ A, float *__restrict__ B, int R, int C)
{
#if ORDER == 0
    const int j = blockIdx.x * BLOCK_X + threadIdx.x; // column of A
    if (j >= C)
        return;
    for (int i = blockIdx.y * BLOCK_Y + threadIdx.y; i < R; i += gridDim.y * BLOCK_Y)
        B[(size_t)j * R + i] = A[(size_t)i * C + j];
#else
    const int i = blockIdx.x * BLOCK_X + threadIdx.x; // column of B = row of A
    if (i >= R)
        return;
    for (int j = blockIdx.y * BLOCK_Y + threadIdx.y; j < C; j += gridDim.y * BLOCK_Y)
        B[(size_t)j * R + i] = A[(size_t)i * C + j];
#endif
}
