// transpose_tiled: a TILE x TILE tile of A goes through shared memory, so that both the
// reads of A and the writes of B are coalesced (seed 001, section 0.1); a padding column
// moves the column reads of the tile onto distinct banks.
//
// Parameters (-D macros):
//   TILE  the tile edge
//   ROWS  thread rows: the block is (TILE / VEC) x ROWS threads and each thread moves
//         TILE / ROWS rows of VEC elements, ROWS rows apart
//   PAD   0 or 1 extra columns in the shared tile
//   VEC   elements per access: 1, 2 (float2) or 4 (float4). Vector accesses need aligned
//         rows (C % VEC == 0 to read A, R % VEC == 0 to write B) and a whole vector in
//         the matrix; anywhere else the same thread falls back to scalars with bounds.
// Tile rows beyond gridDim.y (65535) are covered by a loop.
#define TPB_X (TILE / VEC)

#if VEC == 4
typedef float4 vec_t;
#elif VEC == 2
typedef float2 vec_t;
#endif

extern "C" __global__ void __launch_bounds__(TPB_X * ROWS)
transpose_tiled(const float *__restrict__ A, float *__restrict__ B, int R, int C)
{
    __shared__ float tile[TILE][TILE + PAD];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int c0 = blockIdx.x * TILE, tiles_r = (R + TILE - 1) / TILE;
    const int lane_col = tx * VEC; // first tile column (load) / tile row (store) of this thread
#if VEC > 1
    const bool vload = (C % VEC) == 0, vstore = (R % VEC) == 0;
#endif
    for (int tr = blockIdx.y; tr < tiles_r; tr += gridDim.y) {
        const int r0 = tr * TILE;
#pragma unroll
        for (int step = 0; step < TILE / ROWS; step++) {
            const int i = ty + step * ROWS, r = r0 + i, c = c0 + lane_col;
            if (r >= R)
                continue;
            const float *src = A + (size_t)r * C + c;
#if VEC > 1
            if (vload && c + VEC <= C) {
                vec_t v = *reinterpret_cast<const vec_t *>(src);
                const float *f = reinterpret_cast<const float *>(&v);
#pragma unroll
                for (int k = 0; k < VEC; k++)
                    tile[i][lane_col + k] = f[k];
                continue;
            }
#endif
#pragma unroll
            for (int k = 0; k < VEC; k++)
                if (c + k < C)
                    tile[i][lane_col + k] = src[k];
        }
        __syncthreads();
        // B is C x R: its row c0 + j, columns r0 + lane_col .. + VEC, are tile column j
#pragma unroll
        for (int step = 0; step < TILE / ROWS; step++) {
            const int j = ty + step * ROWS, brow = c0 + j, bcol = r0 + lane_col;
            if (brow >= C)
                continue;
            float *dst = B + (size_t)brow * R + bcol;
#if VEC > 1
            if (vstore && bcol + VEC <= R) {
                vec_t v;
                float *f = reinterpret_cast<float *>(&v);
#pragma unroll
                for (int k = 0; k < VEC; k++)
                    f[k] = tile[lane_col + k][j];
                *reinterpret_cast<vec_t *>(dst) = v;
                continue;
            }
#endif
#pragma unroll
            for (int k = 0; k < VEC; k++)
                if (bcol + k < R)
                    dst[k] = tile[lane_col + k][j];
        }
        __syncthreads(); // the tile is reused for the next tile row
    }
}
