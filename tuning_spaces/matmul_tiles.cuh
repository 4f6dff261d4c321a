// Tile loaders shared by the register-blocked matmul kernels (included by their .cu files
// through the plugin, which prepends it to the kernel source; see matmul_op.h).
//
// A is M x K and B is K x N, row-major. Each loader moves one tile from global to shared
// memory with all threads of the block, zero-filling outside the matrices so that edge
// tiles need no branches in the inner loop. When the row stride is a multiple of 4 (and
// the tile column is in range) a thread moves 4 floats with one 16-byte load; otherwise it
// falls back to single floats. The stride test is uniform across the block.

// 4 consecutive floats of row r of a rows x cols row-major matrix, from column c (a
// multiple of 4); zeros outside the matrix. vec: the row stride is a multiple of 4, so an
// in-range group is one aligned 16-byte load.
__device__ __forceinline__ float4 load4(const float *__restrict__ X, int rows, int cols, int r,
                                        int c, bool vec)
{
    float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
    if (r < rows) {
        const float *p = X + (size_t)r * cols + c;
        if (vec && c + 3 < cols) {
            v = *reinterpret_cast<const float4 *>(p);
        } else {
            if (c + 0 < cols) v.x = p[0];
            if (c + 1 < cols) v.y = p[1];
            if (c + 2 < cols) v.z = p[2];
            if (c + 3 < cols) v.w = p[3];
        }
    }
    return v;
}

// A tile of BM_ rows x BK_ columns, stored TRANSPOSED: As[k * LDA + m].
template <int BM_, int BK_, int NT_, int LDA>
__device__ __forceinline__ void load_a_transposed(const float *__restrict__ A, float *As, int M, int K,
                                                  int row0, int k0, int tid)
{
    const bool vec = (K & 3) == 0;
#pragma unroll
    for (int e = tid; e < BM_ * BK_ / 4; e += NT_) {
        int r = e / (BK_ / 4), c = (e % (BK_ / 4)) * 4;
        float4 v = load4(A, M, K, row0 + r, k0 + c, vec);
        As[(c + 0) * LDA + r] = v.x;
        As[(c + 1) * LDA + r] = v.y;
        As[(c + 2) * LDA + r] = v.z;
        As[(c + 3) * LDA + r] = v.w;
    }
}

// A tile of BK_ rows x BN_ columns of B, stored as is: Bs[k * LDB + n]. LDB % 4 == 0.
template <int BK_, int BN_, int NT_, int LDB>
__device__ __forceinline__ void load_b(const float *__restrict__ B, float *Bs, int K, int N, int k0,
                                       int col0, int tid)
{
    const bool vec = (N & 3) == 0;
#pragma unroll
    for (int e = tid; e < BK_ * BN_ / 4; e += NT_) {
        int r = e / (BN_ / 4), c = (e % (BN_ / 4)) * 4;
        float4 v = load4(B, K, N, k0 + r, col0 + c, vec);
        *reinterpret_cast<float4 *>(&Bs[r * LDB + c]) = v;
    }
}

// Store a TM_ x TN_ block of results at (row, col), 16 bytes at a time where the row stride
// allows and the block is inside C.
template <int TM_, int TN_>
__device__ __forceinline__ void store_c(float *__restrict__ C, const float (&acc)[TM_][TN_], int M,
                                        int N, int row, int col)
{
    const bool vec = (N & 3) == 0 && (TN_ & 3) == 0;
#pragma unroll
    for (int i = 0; i < TM_; i++) {
        if (row + i >= M)
            break;
        float *p = C + (size_t)(row + i) * N + col;
        if (vec && col + TN_ <= N) {
#pragma unroll
            for (int j = 0; j < TN_; j += 4)
                *reinterpret_cast<float4 *>(p + j) =
                    make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]);
        } else {
#pragma unroll
            for (int j = 0; j < TN_; j++)
                if (col + j < N)
                    p[j] = acc[i][j];
        }
    }
}
