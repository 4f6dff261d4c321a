// The warp-tiled inner product and epilogue shared by matmul_warptile and matmul_async
// (put in front of their kernel source, after matmul_tiles.cuh; see plugins/meson.build).
//
// A block computes a BM x BN tile of C with NT = (BM/WM)*(BN/WN)*32*WK threads: each warp
// owns a WM x WN piece, which it covers in WMITER x WNITER steps of WSUBM x WSUBN; in each
// step every lane computes a TM x TN block. Keeping a warp's threads on one compact piece
// makes its shared-memory reads broadcast-friendly and its register reuse high. WK > 1
// (matmul_async only; 1 when not defined) gives every piece WK warps, one in each of WK
// groups, which take turns over the rows of a K step and add up at the end.
//
// Shared memory holds one K step of BK: A transposed (As[k * LDA + m], LDA = BM + PAD) and
// B as is (Bs[k * BN + n]). Parameters come as -D macros: BM, BN, BK, WM, WN, WNITER, TM,
// TN, PAD, and optionally KUNROLL (below); WMITER is derived.
#ifndef WK
#define WK 1
#endif
#define NT ((BM / WM) * (BN / WN) * 32 * WK)
#define WMITER ((WM * WN) / (32 * TM * TN * WNITER))
#define WSUBM (WM / WMITER)
#define WSUBN (WN / WNITER)
#define LDA (BM + PAD)
#define LDB BN
#define A_TILE (BK * LDA)
#define B_TILE (BK * LDB)

// Where this thread's outputs lie in the block tile, and its warp group (0 when WK = 1).
struct WarpPos {
    int wrow, wcol, trow, tcol, wk;
};

__device__ __forceinline__ WarpPos warp_pos(int tid)
{
    const int lane = tid % 32, warp = WK > 1 ? tid / 32 % (NT / WK / 32) : tid / 32;
    WarpPos p;
    p.wk = WK > 1 ? tid / (NT / WK) : 0;
    p.wrow = (warp / (BN / WN)) * WM;
    p.wcol = (warp % (BN / WN)) * WN;
    p.trow = (lane / (WSUBN / TN)) * TM;
    p.tcol = (lane % (WSUBN / TN)) * TN;
    return p;
}

__device__ __forceinline__ void warp_zero(float (&acc)[WMITER * TM][WNITER * TN])
{
#pragma unroll
    for (int i = 0; i < WMITER * TM; i++)
#pragma unroll
        for (int j = 0; j < WNITER * TN; j++)
            acc[i][j] = 0.0f;
}

// 4 consecutive floats of shared memory into r[0..3].
__device__ __forceinline__ void lds4(float *r, const float *s)
{
    float4 v = *reinterpret_cast<const float4 *>(s);
    r[0] = v.x, r[1] = v.y, r[2] = v.z, r[3] = v.w;
}

// KUNROLL: rows of a K step the loop below unrolls, 0 for all BK (the default). Fewer make
// a smaller loop body, for the instruction cache, at the cost of an address add a round.
#ifndef KUNROLL
#define KUNROLL 0
#endif
#define MATMUL_PRAGMA(x) _Pragma(#x)
#define MATMUL_UNROLL(n) MATMUL_PRAGMA(unroll n)

// This thread's fragments of row k of a K step: ra from the A tile, rb from the B tile. a and
// b point at the thread's first element of its stage (As + wrow + trow, Bs + wcol + tcol), so
// every offset below is a constant the shared loads carry as an immediate.
__device__ __forceinline__ void warp_frag(const float *a, const float *b, int k,
                                          float (&ra)[WMITER * TM], float (&rb)[WNITER * TN])
{
#pragma unroll
    for (int m = 0; m < WMITER; m++)
#pragma unroll
        for (int i = 0; i < TM; i += 4)
            lds4(&ra[m * TM + i], a + k * LDA + m * WSUBM + i);
#pragma unroll
    for (int n = 0; n < WNITER; n++)
#pragma unroll
        for (int j = 0; j < TN; j += 4)
            lds4(&rb[n * TN + j], b + k * LDB + n * WSUBN + j);
}

// acc += the outer product of one row's fragments.
__device__ __forceinline__ void warp_fma(float (&acc)[WMITER * TM][WNITER * TN],
                                         const float (&ra)[WMITER * TM],
                                         const float (&rb)[WNITER * TN])
{
#pragma unroll
    for (int i = 0; i < WMITER * TM; i++)
#pragma unroll
        for (int j = 0; j < WNITER * TN; j++)
            acc[i][j] += ra[i] * rb[j];
}

// acc += the BK steps of the tiles in As / Bs that fall on this thread.
__device__ __forceinline__ void warp_tile_step(const float *As, const float *Bs, const WarpPos &p,
                                               float (&acc)[WMITER * TM][WNITER * TN])
{
    float ra[WMITER * TM], rb[WNITER * TN];
#if KUNROLL
    MATMUL_UNROLL(KUNROLL)
#else
#pragma unroll
#endif
    for (int k = 0; k < BK; k++) {
#pragma unroll
        for (int m = 0; m < WMITER; m++)
#pragma unroll
            for (int i = 0; i < TM; i += 4)
                lds4(&ra[m * TM + i], &As[k * LDA + p.wrow + m * WSUBM + p.trow + i]);
#pragma unroll
        for (int n = 0; n < WNITER; n++)
#pragma unroll
            for (int j = 0; j < TN; j += 4)
                lds4(&rb[n * TN + j], &Bs[k * LDB + p.wcol + n * WSUBN + p.tcol + j]);
        warp_fma(acc, ra, rb);
    }
}

// The TM x TN block of step (m, n) of this thread's accumulators.
__device__ __forceinline__ void warp_block(const float (&acc)[WMITER * TM][WNITER * TN], int m, int n,
                                           float (&out)[TM][TN])
{
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++)
            out[i][j] = acc[m * TM + i][n * TN + j];
}

// Write this thread's accumulators to C, whose block tile starts at (row0, col0).
__device__ __forceinline__ void warp_store(float *__restrict__ C, const float (&acc)[WMITER * TM][WNITER * TN],
                                           const WarpPos &p, int M, int N, int row0, int col0)
{
#pragma unroll
    for (int m = 0; m < WMITER; m++)
#pragma unroll
        for (int n = 0; n < WNITER; n++) {
            float out[TM][TN];
            warp_block(acc, m, n, out);
            store_c<TM, TN>(C, out, M, N, row0 + p.wrow + m * WSUBM + p.trow,
                            col0 + p.wcol + n * WSUBN + p.tcol);
        }
}
