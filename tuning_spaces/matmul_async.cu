// matmul_async: warp tiling (common/matmul_warp.cuh) fed by a STAGES-deep pipeline of
// asynchronous global -> shared copies (cp.async, sm_80+), and an optional split of K.
//
// Copies go straight to shared memory, without passing through registers, so STAGES - 1
// K steps are in flight while one is computed, at no register cost. A is transposed on
// the way in: 4-byte copies, consecutive lanes on consecutive k (coalesced reads, and with
// PAD = 4 conflict-free shared writes for BK = 8). B moves in 16-byte copies when N % 4 ==
// 0, else in 4-byte ones. A copy whose source lies outside the matrix (or the block's K
// range) is zero-filled by the hardware (src-size 0: nothing is read, so its address may
// lie outside the matrix, as CUTLASS's zero-fill copies do), so the main loop has no
// branch but its own: edge and interior blocks run the same instructions.
//
// SPLITK > 1 splits K into SPLITK slices, one per blockIdx.z, for problems with too few
// output tiles to fill the GPU. Slice 0 stores its partial sum; the others wait until it
// has, then add theirs with atomics (16-byte vector reductions on sm_90). A per-tile
// counter in this module's global memory orders them; the last slice resets it to 0, so
// every launch leaves it as it found it.
// Slice 0's blocks come first in launch order (z is the slowest grid index), so a waiting
// block never waits on one that has not started. Launches of one SPLITK > 1 kernel must not
// run concurrently (on two streams): they share the counters.
//
// WK > 1 warp groups (matmul_warp.cuh) share a step's rows, row g, g + WK, ... for group g;
// at the end groups 1.. hand their sums to group 0 through shared memory, and group 0 stores.
// More warps an SM hide more latency without smaller tiles or a split of K across blocks.
//
// Parameters: those of matmul_warp.cuh (WK among them; every row of a step is unrolled, so
// KUNROLL is not used) plus STAGES (>= 2), SPLITK (>= 1) and MINB, the blocks per SM the
// registers must allow (__launch_bounds__: ptxas caps registers to fit).
#define A_COPIES (BM * BK)     // 4-byte copies of a step's A tile
#define B_COPIES (BK * BN / 4) // 16-byte copies of its B tile
// copies a thread makes: a whole number, or (more threads than copies) one for the first ones
#define A_PER_THREAD ((A_COPIES + NT - 1) / NT)
#define B_PER_THREAD ((B_COPIES + NT - 1) / NT)
#define STAGE_FLOATS (A_TILE + B_TILE)
#define SPLITK_TILES 65536 // output tiles a SPLITK > 1 launch may have (launch_geometry checks)

#ifndef DYNAMIC_SHARED // tests/kemu (kernels run on the CPU) brings its own
#define DYNAMIC_SHARED(type, name) extern __shared__ __align__(16) type name[]
#endif

#ifndef CUTUNE_KEMU
__device__ __forceinline__ void cp_async4(float *dst, const float *src, bool valid)
{
    unsigned d = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(d), "l"(src),
                 "r"(valid ? 4 : 0));
}
__device__ __forceinline__ void cp_async16(float *dst, const float *src, bool valid)
{
    unsigned d = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(d), "l"(src),
                 "r"(valid ? 16 : 0));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N_> __device__ __forceinline__ void cp_async_wait()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N_) : "memory");
}
// p[0..3] += v[0..3]: on sm_90 one vector reduction (a quarter of the L2 requests of four
// atomics); before it, four atomics
__device__ __forceinline__ void red_add4(float *p, const float *v)
{
#if __CUDA_ARCH__ >= 900
    asm volatile("red.global.add.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"l"(p), "f"(v[0]), "f"(v[1]),
                 "f"(v[2]), "f"(v[3])
                 : "memory");
#else
    for (int j = 0; j < 4; j++)
        atomicAdd(p + j, v[j]);
#endif
}
#endif

// Where a thread's copies come from, worked out once: copy i of A is row
// tid / BK + i * (NT / BK), column tid % BK of the step; copy i of B is row
// tid / (BN / 4) + i * (NT / (BN / 4)), columns (tid % (BN / 4)) * 4 .. + 3. (Offsets
// from tid are recomputed where used: cheaper than holding them in registers.)
struct Copier {
    const float *a, *b; // the first copy's source at k = 0
    int a_rows;         // copies 0 .. a_rows - 1 have their A row inside the matrix (rows
                        // grow with i, so the ones inside come first)
    int b_cols;         // columns from the B column group's first to the end of B (4 or more:
                        // the whole group is inside; may be negative)
};

__device__ __forceinline__ Copier copier(const float *A, const float *B, int M, int N, int K,
                                         int row0, int col0, int tid)
{
    Copier c;
    const int ar = tid / BK, bc = (tid % (BN / 4)) * 4;
    c.a = A + (size_t)(row0 + ar) * K + tid % BK;
    c.b = B + (size_t)(tid / (BN / 4)) * N + col0 + bc;
    const int left = M - row0 - ar; /* rows from this thread's first one to the end of A */
    c.a_rows = left <= 0 ? 0 : min(A_PER_THREAD, (left + NT / BK - 1) / (NT / BK));
    /* not clamped: clamped to 0..4 and tested == 4, it made every 16-byte copy path wrong
     * on the GPU (right in C++ and on the CPU; found on an H200, 2026-11-22) */
    c.b_cols = N - col0 - bc;
    return c;
}

// Start the copies of the K step at k0 (of a slice ending at kend) into stage `st`, without
// a branch: a copy whose source lies outside the matrix or at k >= kend is zero-filled, so
// the same instructions serve interior and edge blocks, the slice's last step and steps
// past it (those fill a stage no one computes). VEC_B: B's rows are 16-byte aligned (N % 4
// == 0), so a column group moves in one 16-byte copy; else in four 4-byte ones.
template <bool VEC_B>
__device__ __forceinline__ void copy_step(const Copier &c, float *smem, int st, int N, int K,
                                          int k0, int kend, int tid)
{
    float *As = smem + st * STAGE_FLOATS, *Bs = As + A_TILE;
    const int ar = tid / BK, ak = tid % BK, br = tid / (BN / 4), bc = (tid % (BN / 4)) * 4;
    const bool k_in = k0 + ak < kend;
    const float *a = c.a + k0;
#pragma unroll
    for (int i = 0; i < A_PER_THREAD; i++, a += (size_t)(NT / BK) * K)
        if (A_COPIES >= NT || tid < A_COPIES) /* a zero-fill copy writes too: none past the tile */
            cp_async4(&As[ak * LDA + ar + i * (NT / BK)], a, k_in && i < c.a_rows);
    const float *b = c.b + (size_t)k0 * N;
#pragma unroll
    for (int i = 0; i < B_PER_THREAD; i++, b += (size_t)(NT / (BN / 4)) * N) {
        if (B_COPIES < NT && tid >= B_COPIES)
            break;
        const int r = br + i * (NT / (BN / 4));
        const bool row_in = k0 + r < kend;
        if (VEC_B) {
            cp_async16(&Bs[r * LDB + bc], b, row_in && c.b_cols >= 4);
        } else {
#pragma unroll
            for (int j = 0; j < 4; j++)
                cp_async4(&Bs[r * LDB + bc + j], b + j, row_in && j < c.b_cols);
        }
    }
}

// acc += this block's K slice [kbeg, kbeg + nsteps * BK), clipped at kend (for warp group g,
// rows g, g + WK, ... of each step): STAGES - 1 steps of copies in flight while one is
// computed. Fragments are read one row ahead into a second register set, and the barrier
// comes before a step's last row, whose products hide it and the first fragment loads of the
// next step (the main loop of CUTLASS's multistage kernels and of cuBLAS's FFMA kernels).
template <bool VEC_B>
__device__ __forceinline__ void main_loop(const Copier &cp, float *smem, const WarpPos &pos, int N,
                                          int K, int kbeg, int kend, int nsteps, int tid,
                                          float (&acc)[WMITER * TM][WNITER * TN])
{
#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        copy_step<VEC_B>(cp, smem, s, N, K, kbeg + s * BK, kend, tid);
        cp_async_commit();
    }
    const float *a_th = smem + pos.wk * LDA + pos.wrow + pos.trow;
    const float *b_th = smem + A_TILE + pos.wk * LDB + pos.wcol + pos.tcol;
    constexpr int KR = BK / WK; /* rows of a step for each group */
    float ra[2][WMITER * TM], rb[2][WNITER * TN];
    cp_async_wait<STAGES - 2>(); /* step 0 has landed */
    __syncthreads();
    warp_frag(a_th, b_th, 0, ra[0], rb[0]);
    int rd = 0, wr = STAGES - 1; /* the stages computed and filled this step */
    for (int t = 0; t < nsteps; t++) {
        const int nrd = rd + 1 == STAGES ? 0 : rd + 1;
        const float *a_rd = a_th + rd * STAGE_FLOATS, *b_rd = b_th + rd * STAGE_FLOATS;
#pragma unroll
        for (int k = 0; k < KR; k++) {
            if (k + 1 < KR)
                warp_frag(a_rd, b_rd, (k + 1) * WK, ra[(k + 1) % 2], rb[(k + 1) % 2]);
            else /* row 0 of the next step (after the last step: harmless reads of smem) */
                warp_frag(a_th + nrd * STAGE_FLOATS, b_th + nrd * STAGE_FLOATS, 0, ra[0], rb[0]);
            if (k == 0) { /* into the stage step t - 1 read: everyone passed the barrier since */
                copy_step<VEC_B>(cp, smem, wr, N, K, kbeg + (t + STAGES - 1) * BK, kend, tid);
                cp_async_commit();
            }
            warp_fma(acc, ra[k % 2], rb[k % 2]);
            if (k == KR - 2) {
                cp_async_wait<STAGES - 2>(); /* this thread's copies of step t + 1 have landed */
                __syncthreads(); /* everyone's have, and no one reads stage wr's old step */
            }
        }
        rd = nrd;
        wr = wr + 1 == STAGES ? 0 : wr + 1;
    }
    cp_async_wait<0>();
}

#if WK > 1
// Groups 1 .. WK - 1 hand their sums to group 0 through shared memory (BM x BN floats a
// group; consecutive threads on consecutive words), which adds them to its own.
__device__ __forceinline__ void add_groups(float *smem, const WarpPos &pos, int tid,
                                          float (&acc)[WMITER * TM][WNITER * TN])
{
    constexpr int G = NT / WK, R = WMITER * TM, C = WNITER * TN;
    const int t = tid % G;
    __syncthreads(); /* every group is done with the stages */
    if (pos.wk > 0) {
        float *out = smem + (pos.wk - 1) * R * C * G + t;
#pragma unroll
        for (int i = 0; i < R; i++)
#pragma unroll
            for (int j = 0; j < C; j++)
                out[(i * C + j) * G] = acc[i][j];
    }
    __syncthreads();
    if (pos.wk == 0)
#pragma unroll
        for (int g = 1; g < WK; g++)
#pragma unroll
            for (int i = 0; i < R; i++)
#pragma unroll
                for (int j = 0; j < C; j++)
                    acc[i][j] += smem[((g - 1) * R * C + i * C + j) * G + t];
}
#endif

#if SPLITK > 1
__device__ unsigned matmul_async_slices_done[SPLITK_TILES];

// Slices 1.. add their partial sums to what slice 0 stored: 4 columns a reduction where
// they are 16-byte aligned and inside the matrix, else one by one.
__device__ __forceinline__ void warp_add(float *__restrict__ C, const float (&acc)[WMITER * TM][WNITER * TN],
                                         const WarpPos &p, int M, int N, int row0, int col0)
{
#pragma unroll
    for (int m = 0; m < WMITER; m++)
#pragma unroll
        for (int n = 0; n < WNITER; n++)
#pragma unroll
            for (int i = 0; i < TM; i++) {
                const int r = row0 + p.wrow + m * WSUBM + p.trow + i;
                const int c = col0 + p.wcol + n * WSUBN + p.tcol;
                if (r >= M)
                    break;
                float *row = C + (size_t)r * N;
                const float *v = &acc[m * TM + i][n * TN];
#pragma unroll
                for (int j = 0; j < TN; j += 4) {
                    if ((N & 3) == 0 && c + j + 4 <= N) {
                        red_add4(row + c + j, v + j);
                        continue;
                    }
#pragma unroll
                    for (int q = j; q < j + 4; q++)
                        if (c + q < N)
                            atomicAdd(row + c + q, v[q]);
                }
            }
}

__device__ __forceinline__ void finish_slices(float *__restrict__ C,
                                              const float (&acc)[WMITER * TM][WNITER * TN],
                                              const WarpPos &p, int M, int N, int row0, int col0)
{
    unsigned *done = &matmul_async_slices_done[blockIdx.y * gridDim.x + blockIdx.x];
    if (blockIdx.z == 0) {
        if (p.wk == 0)
            warp_store(C, acc, p, M, N, row0, col0);
        __threadfence();
        __syncthreads();
        if (threadIdx.x == 0)
            atomicAdd(done, 1u);
        return;
    }
    if (threadIdx.x == 0)
        while (atomicAdd(done, 0u) == 0u) {
        }
    __syncthreads();
    __threadfence();
    if (p.wk == 0)
        warp_add(C, acc, p, M, N, row0, col0);
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0 && atomicAdd(done, 1u) == SPLITK - 1)
        atomicExch(done, 0u); /* the last slice: ready for the next launch */
}
#endif

extern "C" __global__ void __launch_bounds__(NT, MINB)
matmul_async(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C,
             int M, int N, int K,
             const float *__restrict__ bias)
{
    (void)bias; // NULL: the bias epilogue is for fp16 and bf16 (plugins/matmul/matmul.h)
    DYNAMIC_SHARED(float, smem);
    const int tid = threadIdx.x;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const WarpPos pos = warp_pos(tid);
    // this block's K range: whole BK steps, SPLITK slices
    const int steps = (K + BK - 1) / BK, per = (steps + SPLITK - 1) / SPLITK;
    const int kbeg = (int)blockIdx.z * per * BK, kend = min(K, kbeg + per * BK);
    const int nsteps = kend > kbeg ? (kend - kbeg + BK - 1) / BK : 0;

    float acc[WMITER * TM][WNITER * TN];
    warp_zero(acc);

    const Copier cp = copier(A, B, M, N, K, row0, col0, tid);
    if ((N & 3) == 0)
        main_loop<true>(cp, smem, pos, N, K, kbeg, kend, nsteps, tid, acc);
    else
        main_loop<false>(cp, smem, pos, N, K, kbeg, kend, nsteps, tid, acc);
#if WK > 1
    add_groups(smem, pos, tid, acc);
#endif

#if SPLITK > 1
    finish_slices(C, acc, pos, M, N, row0, col0);
#else
    if (pos.wk == 0)
        warp_store(C, acc, pos, M, N, row0, col0);
#endif
}
