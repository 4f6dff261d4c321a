// matmul_tiled: A and B staged through shared-memory tiles (seeds 000 version 1, 004, and
// 001 section 0.2 for sizes that are not multiples of the tile).
//
// Parameters (arrive as -D macros):
//   TILE    the block computes a TILE x TILE tile of C, walking K in steps of TILE
//   PAD     extra columns in each shared tile (0 or 1) against bank conflicts
//   WPT     outputs per thread: the block has TILE x (TILE / WPT) threads and each thread
//           computes WPT elements of one column, TILE / WPT rows apart
//   UNROLL  unroll factor of the loop over the shared tile
#define CUTUNE_STR(x) #x
#define CUTUNE_UNROLL(n) _Pragma(CUTUNE_STR(unroll n))
#define ROWS (TILE / WPT) // thread rows in the block

extern "C" __global__ void __launch_bounds__(TILE * ROWS)
matmul_tiled(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C,
             int M, int N, int K,
             const float *__restrict__ bias)
{
    (void)bias; // NULL: the bias epilogue is for fp16 and bf16 (plugins/matmul/matmul.h)
    __shared__ float As[TILE][TILE + PAD];
    __shared__ float Bs[TILE][TILE + PAD];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row0 = blockIdx.y * TILE, col = blockIdx.x * TILE + tx;
    float acc[WPT];
#pragma unroll
    for (int w = 0; w < WPT; w++)
        acc[w] = 0.0f;

    for (int k0 = 0; k0 < K; k0 += TILE) {
        // Each thread loads WPT elements of each tile; zeros outside the matrices make the
        // edge tiles exact without branches in the inner loop.
#pragma unroll
        for (int w = 0; w < WPT; w++) {
            int r = ty + w * ROWS;
            int ar = row0 + r, ak = k0 + tx, bk = k0 + r;
            As[r][tx] = (ar < M && ak < K) ? A[(size_t)ar * K + ak] : 0.0f;
            Bs[r][tx] = (bk < K && col < N) ? B[(size_t)bk * N + col] : 0.0f;
        }
        __syncthreads();
        CUTUNE_UNROLL(UNROLL)
        for (int k = 0; k < TILE; k++) {
            float b = Bs[k][tx];
#pragma unroll
            for (int w = 0; w < WPT; w++)
                acc[w] += As[ty + w * ROWS][k] * b;
        }
        __syncthreads();
    }
#pragma unroll
    for (int w = 0; w < WPT; w++) {
        int row = row0 + ty + w * ROWS;
        if (row < M && col < N)
            C[(size_t)row * N + col] = acc[w];
    }
}
