// matmul_naive: one thread per element of C, reading A and B straight from global memory
// (seeds 000 version 0 and 002).
//
// Parameters (arrive as -D macros):
//   BLOCK_X, BLOCK_Y  block dimensions; x walks the columns of C so that loads of B and
//                     stores of C are coalesced across a warp
//   INDEXING          0: 2-D blocks and grid; 1: the 1-D form of seed 002, one flat index
//                     per thread in 1-D blocks of BLOCK_X*BLOCK_Y threads
//   UNROLL            unroll factor of the k loop
#define CUTUNE_STR(x) #x
#define CUTUNE_UNROLL(n) _Pragma(CUTUNE_STR(unroll n))

extern "C" __global__ void __launch_bounds__(BLOCK_X * BLOCK_Y)
matmul_naive(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C,
             int M, int N, int K,
             const float *__restrict__ bias)
{
    (void)bias; // NULL: the bias epilogue is for fp16 and bf16 (plugins/matmul/matmul.h)
#if INDEXING == 0
    int col = blockIdx.x * BLOCK_X + threadIdx.x;
    int row = blockIdx.y * BLOCK_Y + threadIdx.y;
#else
    long long idx = (long long)blockIdx.x * (BLOCK_X * BLOCK_Y) + threadIdx.x;
    int row = (int)(idx / N);
    int col = (int)(idx % N);
#endif
    if (row >= M || col >= N)
        return;
    const float *a = A + (size_t)row * K;
    const float *b = B + col;
    float acc = 0.0f;
    CUTUNE_UNROLL(UNROLL)
    for (int k = 0; k < K; k++)
        acc += a[k] * b[(size_t)k * N];
    C[(size_t)row * N + col] = acc;
}
