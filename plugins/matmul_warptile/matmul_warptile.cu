// matmul_warptile: warp tiling with double-buffered shared memory.
//
// The block computes a BM x BN tile of C with NT = (BM/WM)*(BN/WN)*32 threads: each warp
// owns a WM x WN piece, which it covers in WMITER x WNITER steps of WSUBM x WSUBN; in each
// step every lane computes a TM x TN block. Keeping a warp's threads on one compact piece
// makes its shared-memory reads broadcast-friendly and its register reuse high. With DBUF
// the next K step is loaded from global memory into registers while the current one is
// computed, then written to the other shared buffer: one barrier a step instead of two.
//
// Parameters: BM, BN, BK, WM, WN, WNITER, TM, TN, DBUF (0/1), PAD (0 or 4: extra columns of
// the transposed A tile). WMITER = WM*WN / (32*TM*TN*WNITER), derived.
#define NT ((BM / WM) * (BN / WN) * 32)
#define WMITER ((WM * WN) / (32 * TM * TN * WNITER))
#define WSUBM (WM / WMITER)
#define WSUBN (WN / WNITER)
#define LDA (BM + PAD)
#define LDB BN
#define A_TILE (BK * LDA)
#define B_TILE (BK * LDB)
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
        int gr = row0 + r, gc = k0 + c;
        float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
        if (gr < M) {
            const float *p = A + (size_t)gr * K + gc;
            if (veca && gc + 3 < K) {
                v = *reinterpret_cast<const float4 *>(p);
            } else {
                if (gc + 0 < K) v.x = p[0];
                if (gc + 1 < K) v.y = p[1];
                if (gc + 2 < K) v.z = p[2];
                if (gc + 3 < K) v.w = p[3];
            }
        }
        ra[i] = v;
    }
#pragma unroll
    for (int i = 0; i < B_PER_THREAD; i++) {
        int e = tid + i * NT, r = e / (BN / 4), c = (e % (BN / 4)) * 4;
        int gr = k0 + r, gc = col0 + c;
        float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
        if (gr < K) {
            const float *p = B + (size_t)gr * N + gc;
            if (vecb && gc + 3 < N) {
                v = *reinterpret_cast<const float4 *>(p);
            } else {
                if (gc + 0 < N) v.x = p[0];
                if (gc + 1 < N) v.y = p[1];
                if (gc + 2 < N) v.z = p[2];
                if (gc + 3 < N) v.w = p[3];
            }
        }
        rb[i] = v;
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
                int M, int N, int K)
{
    extern __shared__ float4 smem4[];
    float *smem = reinterpret_cast<float *>(smem4);
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const int wrow = (warp / (BN / WN)) * WM, wcol = (warp % (BN / WN)) * WN;
    const int trow = (lane / (WSUBN / TN)) * TM, tcol = (lane % (WSUBN / TN)) * TN;

    float acc[WMITER * TM][WNITER * TN];
#pragma unroll
    for (int i = 0; i < WMITER * TM; i++)
#pragma unroll
        for (int j = 0; j < WNITER * TN; j++)
            acc[i][j] = 0.0f;
    float ra[WMITER * TM], rb[WNITER * TN];
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
        const float *As = smem + buf * (A_TILE + B_TILE), *Bs = As + A_TILE;
#pragma unroll
        for (int k = 0; k < BK; k++) {
#pragma unroll
            for (int m = 0; m < WMITER; m++)
#pragma unroll
                for (int i = 0; i < TM; i += 4) {
                    float4 v = *reinterpret_cast<const float4 *>(
                        &As[k * LDA + wrow + m * WSUBM + trow + i]);
                    ra[m * TM + i] = v.x, ra[m * TM + i + 1] = v.y;
                    ra[m * TM + i + 2] = v.z, ra[m * TM + i + 3] = v.w;
                }
#pragma unroll
            for (int n = 0; n < WNITER; n++)
#pragma unroll
                for (int j = 0; j < TN; j += 4) {
                    float4 v = *reinterpret_cast<const float4 *>(
                        &Bs[k * LDB + wcol + n * WSUBN + tcol + j]);
                    rb[n * TN + j] = v.x, rb[n * TN + j + 1] = v.y;
                    rb[n * TN + j + 2] = v.z, rb[n * TN + j + 3] = v.w;
                }
#pragma unroll
            for (int i = 0; i < WMITER * TM; i++)
#pragma unroll
                for (int j = 0; j < WNITER * TN; j++)
                    acc[i][j] += ra[i] * rb[j];
        }
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

#pragma unroll
    for (int m = 0; m < WMITER; m++)
#pragma unroll
        for (int n = 0; n < WNITER; n++) {
            float out[TM][TN];
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++)
                    out[i][j] = acc[m * TM + i][n * TN + j];
            store_c<TM, TN>(C, out, M, N, row0 + wrow + m * WSUBM + trow,
                            col0 + wcol + n * WSUBN + tcol);
        }
}
