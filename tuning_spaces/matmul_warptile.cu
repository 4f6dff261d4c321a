// matmul_warptile: warp tiling (common/matmul_warp.cuh) with double-buffered shared memory.
//
// With DBUF the next K step is loaded from global memory into registers while the current
// one is computed, then written to the other shared buffer: one barrier a step instead of
// two. Parameters: those of matmul_warp.cuh plus DBUF (0/1); PAD is 0 or 4 extra columns
// of the transposed A tile.
#define A_PER_THREAD (BM * BK / 4 / NT)
#define B_PER_THREAD (BK * BN / 4 / NT)

// Global -> registers (the float4 pieces this thread moves), then registers -> shared.
__device__ __forceinline__ void fetch(const float *__restrict__ A, const float *__restrict__ B,
                                      int M, int N, int K, int row0, int col0, int k0, int tid,
                                      float4 (&ra)[A_PER_THREAD], float4 (&rb)[B_PER_THREAD])
{
    const bool veca = (K & 3) == 0, vecb = (N & 3) == 0;
#pragma unroll
    for (int i = 0; i < A_PER_THREAD; i++) {
        int e = tid + i * NT, r = e / (BK / 4), c = (e % (BK / 4)) * 4;
        ra[i] = load4(A, M, K, row0 + r, k0 + c, veca);
    }
#pragma unroll
    for (int i = 0; i < B_PER_THREAD; i++) {
        int e = tid + i * NT, r = e / (BN / 4), c = (e % (BN / 4)) * 4;
        rb[i] = load4(B, K, N, k0 + r, col0 + c, vecb);
    }
}

__device__ __forceinline__ void put(float *As, float *Bs, int tid, const float4 (&ra)[A_PER_THREAD],
                                    const float4 (&rb)[B_PER_THREAD])
{
#pragma unroll
    for (int i = 0; i < A_PER_THREAD; i++) {
        int e = tid + i * NT, r = e / (BK / 4), c = (e % (BK / 4)) * 4;
        As[(c + 0) * LDA + r] = ra[i].x;
        As[(c + 1) * LDA + r] = ra[i].y;
        As[(c + 2) * LDA + r] = ra[i].z;
        As[(c + 3) * LDA + r] = ra[i].w;
    }
#pragma unroll
    for (int i = 0; i < B_PER_THREAD; i++) {
        int e = tid + i * NT, r = e / (BN / 4), c = (e % (BN / 4)) * 4;
        *reinterpret_cast<float4 *>(&Bs[r * LDB + c]) = rb[i];
    }
}

extern "C" __global__ void __launch_bounds__(NT)
matmul_warptile(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C,
                int M, int N, int K,
                const float *__restrict__ bias)
{
    (void)bias; // NULL: the bias epilogue is for fp16 and bf16 (plugins/matmul/matmul.h)
    extern __shared__ float4 smem4[];
    float *smem = reinterpret_cast<float *>(smem4);
    const int tid = threadIdx.x;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const WarpPos pos = warp_pos(tid);

    float acc[WMITER * TM][WNITER * TN];
    warp_zero(acc);
    float4 ga[A_PER_THREAD], gb[B_PER_THREAD];

    fetch(A, B, M, N, K, row0, col0, 0, tid, ga, gb);
    put(smem, smem + A_TILE, tid, ga, gb);
    __syncthreads();
    int buf = 0;
    for (int k0 = 0; k0 < K; k0 += BK) {
        const bool more = k0 + BK < K;
#if DBUF
        if (more) /* in flight while this step computes */
            fetch(A, B, M, N, K, row0, col0, k0 + BK, tid, ga, gb);
#endif
        const float *As = smem + buf * (A_TILE + B_TILE);
        warp_tile_step(As, As + A_TILE, pos, acc);
#if DBUF
        if (more) {
            buf ^= 1;
            float *An = smem + buf * (A_TILE + B_TILE);
            put(An, An + A_TILE, tid, ga, gb);
        }
        __syncthreads();
#else
        __syncthreads();
        if (more) {
            fetch(A, B, M, N, K, row0, col0, k0 + BK, tid, ga, gb);
            put(smem, smem + A_TILE, tid, ga, gb);
        }
        __syncthreads();
#endif
    }
    warp_store(C, acc, pos, M, N, row0, col0);
}
