// matmul_mma: C = A * B (layout nn) or C = A * B^T (layout nt) in FP16 or BF16 on the tensor
// cores through mma.sync.m16n8k16 (sm_80 and later), FP32 accumulation, one rounding of the
// output to the 16-bit type (round to nearest even). Row-major everywhere: A is M x K, B is
// K x N (nn) or N x K (nt, what PyTorch's F.linear(x, W) computes), C is M x N.
//
// The core defines exactly one of CUTUNE_DTYPE_FP16 / CUTUNE_DTYPE_BF16, one of
// CUTUNE_LAYOUT_NN / CUTUNE_LAYOUT_NT, CUTUNE_EPILOGUE_BIAS for the bias epilogue (C = A B +
// bias: bias[c] is added to the FP32 sum of column c before the one rounding, once, after
// split-K's reduction; the kernel's last argument, NULL otherwise), and every tunable
// parameter as a -D macro:
//   BM, BN, BK    the block tile (BK a multiple of 32: an even number of mma K steps of 16)
//   WM, WN        a warp's piece of it (multiples of 16): (BM/WM) x (BN/WN) warps
//   STAGES        depth of the cp.async pipeline (>= 2): STAGES - 1 K steps in flight
//   SPLITK        K slices, one block each, reduced in a thread block cluster (sm_90 only)
//   GROUP_M       block rasterisation: GROUP_M tile rows are walked column by column
//   VEC           output elements a thread stores at once (2: straight from the
//                 accumulators; 4 or 8: through shared memory, 8 or 16-byte stores)
//   MINB          blocks per SM the registers must allow (__launch_bounds__)
//
// It is compiled by NVRTC with no include path, so it needs no header: the 16-bit type is
// plain unsigned short storage, and conversions and tensor-core work are inline PTX.
//
// How a block works. Its BM x BN tile of C is computed K step by K step (BK wide). Each step's
// A tile (BM rows x BK) and B tile (nt: BN rows x BK, nn: BK rows x BN) go from global to
// shared memory by cp.async, 16 bytes a copy, STAGES - 1 steps ahead of the step being
// computed: the copies do not pass through registers, and overlap the mma of earlier steps.
// In shared memory a tile is rows of 16-byte chunks, and chunk c of row r is stored at an
// XOR-swizzled place (swz below), so that the 8 rows an ldmatrix reads at once, and the 8
// chunks a quarter-warp copies in, fall on 8 different bank groups: no bank conflicts and
// no padding. ldmatrix.x4 loads the mma fragments (with .trans for nn's B, whose tile is
// K-major rows: .trans hands each lane the column pairs that mma's "col" operand wants).
//
// Ragged sizes (every M, N, K >= 1 is valid). A copy whose rows or columns lie outside the
// matrix (or past the block's K slice) is zero-filled by cp.async's src-size operand (no
// bytes read), so edge tiles run the same instructions. The 16-byte copies need every row
// to start on 16 bytes: K % 8 == 0 (and N % 8 == 0 for nn's B) and 16-byte aligned A and
// B. When that does not hold (for instance K odd), a block takes the guarded path instead:
// each thread reads its 8 elements one by one (2-byte loads, zeros outside) and stores the
// chunk to shared memory itself. It is slower (the loads are not asynchronous) but right
// for any size and any 2-byte aligned pointers; the test is uniform over the launch. Stores
// of C are guarded per element; they are 4, 8 or 16 bytes wide only where the row and the
// pointer allow (N a multiple of the width, C aligned), else one element at a time.
//
// Split-K (SPLITK > 1). A 16-bit C cannot take fp32 atomic partial sums, and adding slices
// into C one after another would round the output SPLITK times instead of once. So the
// SPLITK slices of a tile run as one thread block cluster (__cluster_dims__(1, 1, SPLITK),
// sm_90): each block puts its fp32 partial tile in its own shared memory, and after a cluster
// barrier block r adds up rows r * BM / SPLITK .. of all SPLITK partial tiles through
// distributed shared memory, in slice order, and rounds once. No workspace, no counters, the
// same result on every run, and the FP32 accumulation bound holds (a slice sum is a
// summation tree of depth K / SPLITK + SPLITK - 1 <= K). The INI allows SPLITK > 1 only on
// CC >= 90; compiled for sm_80 such a config stops with an #error rather than be wrong.
//
// Rasterisation. Blocks are numbered along x; block b computes tile (pid_m, pid_n) with
// GROUP_M tile rows walked column by column (Triton's grouped ordering), so that the blocks
// running at one time share A row panels and B column panels in L2.

#if defined(CUTUNE_DTYPE_FP16) == defined(CUTUNE_DTYPE_BF16)
#error "matmul_mma: define exactly one of CUTUNE_DTYPE_FP16 and CUTUNE_DTYPE_BF16"
#endif
#if defined(CUTUNE_LAYOUT_NN) == defined(CUTUNE_LAYOUT_NT)
#error "matmul_mma: define exactly one of CUTUNE_LAYOUT_NN and CUTUNE_LAYOUT_NT"
#endif
#if SPLITK > 1 && defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#error "matmul_mma: SPLITK > 1 reduces in a thread block cluster, which needs sm_90 or later"
#endif

#ifndef CUTUNE_HALF_T
#define CUTUNE_HALF_T unsigned short
#endif
typedef CUTUNE_HALF_T half_t; // fp16 or bf16 bits

#define NT ((BM / WM) * (BN / WN) * 32) // threads
#define MI (WM / 16)                    // mma tiles of a warp along M (16 rows each)
#define NI (WN / 8)                     // ... along N (8 columns each)
#define A_CPR (BK / 8)                  // 16-byte chunks in a row of the A tile
#ifdef CUTUNE_LAYOUT_NT
#define B_CPR (BK / 8) // B tile: BN rows (n) of BK
#else
#define B_CPR (BN / 8) // B tile: BK rows (k) of BN
#endif
#define A_CHUNKS (BM * BK / 8) // 16-byte chunks of a stage's A tile
#define B_CHUNKS (BN * BK / 8)
#define STAGE_BYTES ((BM + BN) * BK * 2)

#ifndef DYNAMIC_SHARED // tests/kemu (kernels run on the CPU) brings its own
#define DYNAMIC_SHARED(type, name) extern __shared__ __align__(16) type name[]
#endif

#ifndef CUTUNE_KEMU
__device__ __forceinline__ unsigned smem_addr(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}
// 16 bytes from global to shared, of which the first `bytes` are read and the rest zeroed
// (0: nothing is read, so src may then lie outside the matrix)
__device__ __forceinline__ void cp_async16(unsigned dst, const void *src, int bytes)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
                 "r"(bytes));
}
__device__ __forceinline__ void cp_async_commit()
{
    asm volatile("cp.async.commit_group;\n" ::);
}
template <int N_> __device__ __forceinline__ void cp_async_wait()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N_) : "memory");
}
__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], unsigned addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}
__device__ __forceinline__ void ldmatrix_x4_trans(unsigned (&r)[4], unsigned addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}
// d += a * b for one 16 x 8 x 16 tile (fragments as the PTX ISA lays them out)
__device__ __forceinline__ void mma16816(float (&d)[4], const unsigned (&a)[4],
                                         const unsigned (&b)[2])
{
#ifdef CUTUNE_DTYPE_BF16
    asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
        "{%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
        "{%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#endif
}
#ifdef CUTUNE_EPILOGUE_BIAS
// a 16-bit value, exactly, as a float
__device__ __forceinline__ float from16(half_t h)
{
#ifdef CUTUNE_DTYPE_BF16
    return __uint_as_float((unsigned)h << 16);
#else
    float f;
    asm("{ .reg .f16 t; mov.b16 t, %1; cvt.f32.f16 %0, t; }" : "=f"(f) : "h"(h));
    return f;
#endif
}
#endif
// lo and hi rounded to the 16-bit type (to nearest, ties to even), lo in the low half
__device__ __forceinline__ unsigned pack2(float lo, float hi)
{
    unsigned r;
#ifdef CUTUNE_DTYPE_BF16
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(hi), "f"(lo));
#else
    asm("cvt.rn.f16x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(hi), "f"(lo));
#endif
    return r;
}
#if SPLITK > 1
__device__ __forceinline__ unsigned cluster_rank()
{
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
    return r;
}
// every thread of the cluster: writes to shared memory before it are seen by reads after it,
// in any block of the cluster
__device__ __forceinline__ void cluster_sync()
{
    asm volatile("barrier.cluster.arrive.release.aligned;\n"
                 "barrier.cluster.wait.acquire.aligned;\n" ::
                     : "memory");
}
// n (2 or 4) floats of block `rank`'s shared memory at the place of `local` in this block's
__device__ __forceinline__ void cluster_load(float *v, const float *local, unsigned rank, int n)
{
    unsigned remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n"
                 : "=r"(remote)
                 : "r"(smem_addr(local)), "r"(rank));
    if (n == 4)
        asm volatile("ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [%4];\n"
                     : "=f"(v[0]), "=f"(v[1]), "=f"(v[2]), "=f"(v[3])
                     : "r"(remote)
                     : "memory");
    else
        asm volatile("ld.shared::cluster.v2.f32 {%0, %1}, [%2];\n"
                     : "=f"(v[0]), "=f"(v[1])
                     : "r"(remote)
                     : "memory");
}
#endif
#endif

// The place (in 16-byte chunks from the tile's start) of chunk c of row r in a tile of
// CPR chunks a row. Rows of 8 chunks or more: the chunk index XOR r % 8, so the same chunk
// of 8 consecutive rows lands in 8 different 16-byte bank groups (an ldmatrix phase) and
// 8 consecutive chunks of a row stay on 8 different ones (a copy phase). Narrower rows
// share a 128-byte line: the chunk's index within its line XOR the line % 8 (CUTLASS's
// Swizzle<3, 4, 3>), which does the same for them.
template <int CPR> __device__ __forceinline__ int swz(int r, int c)
{
    if (CPR >= 8)
        return r * CPR + (c ^ (r & 7));
    const int q = r * CPR + c;
    return q ^ ((q >> 3) & 7);
}

// The guarded path (rows not 16-byte aligned): 8 elements of row r of X (leading dimension
// ld) from column c, read one by one (zeros where r >= rows or a column >= cols) and stored
// as one chunk at byte dst of shared memory.
__device__ __forceinline__ void copy_guarded(char *smem, int dst, const half_t *__restrict__ X,
                                             int r, int c, int rows, int cols, int ld)
{
    unsigned w[4] = {0u, 0u, 0u, 0u};
    if (r < rows) {
        const half_t *p = X + (size_t)r * ld + c;
#pragma unroll
        for (int j = 0; j < 8; j++)
            if (c + j < cols)
                w[j / 2] |= (unsigned)p[j] << (16 * (j % 2));
    }
    *reinterpret_cast<uint4 *>(smem + dst) = make_uint4(w[0], w[1], w[2], w[3]);
}

// The K step [k0, k0 + BK) (clipped at kend) into stage st, on the guarded path. Chunk e of a
// tile (e = tid + i * NT) is chunk e % CPR of row e / CPR.
__device__ __forceinline__ void load_stage_guarded(char *smem, int st, const half_t *__restrict__ A,
                                                   const half_t *__restrict__ B, int M, int N,
                                                   int K, int row0, int col0, int k0, int kend,
                                                   int tid)
{
    const int sa = st * STAGE_BYTES, sb = sa + BM * BK * 2;
#pragma unroll 1 // one chunk at a time: few registers on top of the main loop's
    for (int i = 0; i < A_CHUNKS / NT; i++) {
        const int e = tid + i * NT, r = e / A_CPR, c = e % A_CPR;
        copy_guarded(smem, sa + swz<A_CPR>(r, c) * 16, A, row0 + r, k0 + c * 8, M, kend, K);
    }
#pragma unroll 1
    for (int i = 0; i < B_CHUNKS / NT; i++) {
        const int e = tid + i * NT, r = e / B_CPR, c = e % B_CPR;
#ifdef CUTUNE_LAYOUT_NT
        copy_guarded(smem, sb + swz<B_CPR>(r, c) * 16, B, col0 + r, k0 + c * 8, N, kend, K);
#else
        copy_guarded(smem, sb + swz<B_CPR>(r, c) * 16, B, k0 + r, col0 + c * 8, kend, N, N);
#endif
    }
}

// The 16-byte copies a thread makes at every K step, worked out once. Chunk e = tid + i * NT
// of a tile is chunk e % CPR of row e / CPR, so a thread's chunks are STEP = NT / CPR rows
// apart in one chunk column: chunk i of A is row ra + i * A_STEP of the tile, K columns
// ka .. ka + 7 of the step; nt's B the same; nn's B row (k) kb + i * B_STEP of the step,
// columns nb .. nb + 7 of the tile. When STEP % 8 == 0, chunk i's swizzled place is chunk
// 0's plus i * NT chunks (r % 8, and the line % 8 for narrow rows, do not change), so it
// and the source are a constant and a stride away: no per-step address work but the
// predicates. A chunk outside the matrix or the slice copies 0 bytes (cp.async zero-fills
// it and reads nothing, so its address may lie outside the matrix, as CUTLASS's zfill
// copies do).
#define A_STEP (NT / A_CPR)
#define B_STEP (NT / B_CPR)
struct Copies {
    const half_t *a, *b; // chunk 0's source at k = 0
    int a_dst, b_dst;    // chunk 0's place in a stage's A (B) tile, in bytes
    int a_rows, b_rows;  // chunks 0 .. a_rows - 1 have their row inside A (likewise B; nn:
                         // all or none, as their columns are inside B or not)
    int ka, kb;          // K column of the chunks (A; nt B); nn B: row of chunk 0 in a step
    int cb;              // nn B: the chunks' column of 16-byte chunks
};

__device__ __forceinline__ int rows_inside(int left, int step, int n)
{
    return left <= 0 ? 0 : min(n, (left + step - 1) / step);
}

__device__ __forceinline__ Copies copies_make(const half_t *__restrict__ A,
                                              const half_t *__restrict__ B, int M, int N, int K,
                                              int row0, int col0, int tid)
{
    Copies c;
    const int ra = tid / A_CPR;
    c.ka = (tid % A_CPR) * 8;
    c.a = A + (size_t)(row0 + ra) * K + c.ka;
    c.a_dst = swz<A_CPR>(ra, tid % A_CPR) * 16;
    c.a_rows = rows_inside(M - row0 - ra, A_STEP, A_CHUNKS / NT);
#ifdef CUTUNE_LAYOUT_NT
    const int rb = tid / B_CPR;
    c.kb = (tid % B_CPR) * 8;
    c.b = B + (size_t)(col0 + rb) * K + c.kb;
    c.b_dst = swz<B_CPR>(rb, tid % B_CPR) * 16;
    c.b_rows = rows_inside(N - col0 - rb, B_STEP, B_CHUNKS / NT);
    c.cb = 0;
#else
    c.kb = tid / B_CPR;
    c.cb = tid % B_CPR;
    c.b = B + (size_t)c.kb * N + col0 + c.cb * 8;
    c.b_dst = swz<B_CPR>(c.kb, c.cb) * 16;
    c.b_rows = col0 + c.cb * 8 < N ? B_CHUNKS / NT : 0;
#endif
    return c;
}

// Start the copies of the K step [k0, k0 + BK) (clipped at kend) into the stage at shared
// address st (16-byte copies: rows of A and B 16-byte aligned, K % 8 == 0, so a chunk is all
// inside or all outside).
__device__ __forceinline__ void load_stage(unsigned st, const Copies &c, int N, int K, int k0,
                                           int kend)
{
    static_assert(A_STEP % 8 == 0, "A's chunks of a thread are a multiple of 8 rows apart");
    const unsigned sa = st + c.a_dst, sb = st + BM * BK * 2 + c.b_dst;
    const bool ka_in = k0 + c.ka < kend;
    const half_t *a = c.a + k0;
#pragma unroll
    for (int i = 0; i < A_CHUNKS / NT; i++)
        cp_async16(sa + i * NT * 16, a + (size_t)i * A_STEP * K, ka_in && i < c.a_rows ? 16 : 0);
#ifdef CUTUNE_LAYOUT_NT
    (void)N;
    const bool kb_in = k0 + c.kb < kend;
    const half_t *b = c.b + k0;
#pragma unroll
    for (int i = 0; i < B_CHUNKS / NT; i++)
        cp_async16(sb + i * NT * 16, b + (size_t)i * B_STEP * K, kb_in && i < c.b_rows ? 16 : 0);
#else
    const half_t *b = c.b + (size_t)k0 * N;
#pragma unroll
    for (int i = 0; i < B_CHUNKS / NT; i++) {
        const int r = c.kb + i * B_STEP; // row of the step
        const unsigned dst = B_STEP % 8 == 0 ? sb + i * NT * 16
                                             : st + BM * BK * 2 + swz<B_CPR>(r, c.cb) * 16;
        cp_async16(dst, b + (size_t)i * B_STEP * N, i < c.b_rows && k0 + r < kend ? 16 : 0);
    }
#endif
}

// The fragments of K step kk (16 wide) of the stage whose A and B tiles start at shared
// addresses sa, sb. Lane l gives the row address of row l % 8 of matrix l / 8 of each
// ldmatrix.x4:
//   A:      matrices (rows 0-7, k 0-7), (rows 8-15, k 0-7), (rows 0-7, k 8-15), (rows 8-15,
//           k 8-15) = a0a1, a2a3, a4a5, a6a7 of the 16 x 16 fragment;
//   B (nt): (n 0-7, k 0-7), (n 0-7, k 8-15), (n 8-15, k 0-7), (n 8-15, k 8-15) = b0b1, b2b3
//           of n tile 0, then of n tile 1 (rows are n, as mma's "col" B wants);
//   B (nn): the same four with rows k, loaded with .trans.
__device__ __forceinline__ void load_frags(unsigned sa, unsigned sb, int kk, int wm0, int wn0,
                                           int lane, unsigned (&a)[MI][4], unsigned (&b)[NI][2])
{
#pragma unroll
    for (int i = 0; i < MI; i++) {
        const int r = wm0 + i * 16 + (lane & 15), c = kk * 2 + (lane >> 4);
        ldmatrix_x4(a[i], sa + swz<A_CPR>(r, c) * 16);
    }
#pragma unroll
    for (int j = 0; j < NI / 2; j++) {
        unsigned t[4];
#ifdef CUTUNE_LAYOUT_NT
        const int r = wn0 + j * 16 + ((lane >> 4) << 3) + (lane & 7);
        ldmatrix_x4(t, sb + swz<B_CPR>(r, kk * 2 + ((lane >> 3) & 1)) * 16);
#else
        const int r = kk * 16 + (lane & 15), c = (wn0 + j * 16) / 8 + (lane >> 4);
        ldmatrix_x4_trans(t, sb + swz<B_CPR>(r, c) * 16);
#endif
        b[2 * j][0] = t[0], b[2 * j][1] = t[1];
        b[2 * j + 1][0] = t[2], b[2 * j + 1][1] = t[3];
    }
}

// acc = the products of K steps [kbeg, kend): STAGES - 1 steps of copies in flight while one
// is computed, in K steps of 16 (kk) whose fragments are loaded one kk ahead, into a second
// register set. The barrier comes before a step's last kk, whose mma hide it and the
// fragment loads of the next step's first kk (CUTLASS's multistage main loop): at step t,
// kk = KS - 2, a thread waits for its copies of step t + 1, and the barrier says everyone's
// have landed and that no one reads step t's stage any more (its last fragments were loaded
// before), which the copies of step t + STAGES take at step t + 1, kk = 0. An empty commit
// group where there is no step to copy keeps the wait count right.
template <bool ALIGNED>
__device__ __forceinline__ void main_loop(char *smem, const half_t *__restrict__ A,
                                          const half_t *__restrict__ B, int M, int N, int K,
                                          int row0, int col0, int kbeg, int kend, int nsteps,
                                          int tid, int wm0, int wn0, float (&acc)[MI][NI][4])
{
    constexpr int KS = BK / 16;
    static_assert(KS % 2 == 0, "a step's last kk loads the next step's first into set 0");
    const unsigned base = smem_addr(smem);
    Copies cp{};
    if (ALIGNED)
        cp = copies_make(A, B, M, N, K, row0, col0, tid);
    auto issue = [&](int st, int k0) {
        if (ALIGNED)
            load_stage(base + st * STAGE_BYTES, cp, N, K, k0, kend);
        else
            load_stage_guarded(smem, st, A, B, M, N, K, row0, col0, k0, kend, tid);
    };
#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < nsteps)
            issue(s, kbeg + s * BK);
        cp_async_commit();
    }
    const int lane = tid & 31;
    unsigned fa[2][MI][4], fb[2][NI][2];
    cp_async_wait<STAGES - 2>(); // step 0 has landed
    __syncthreads();
    load_frags(base, base + BM * BK * 2, 0, wm0, wn0, lane, fa[0], fb[0]);
    int rd = 0, wr = STAGES - 1; // the stages computed and filled at this step
    for (int t = 0; t < nsteps; t++) {
        const int nrd = rd + 1 == STAGES ? 0 : rd + 1;
        const unsigned sa = base + rd * STAGE_BYTES, na = base + nrd * STAGE_BYTES;
#pragma unroll
        for (int kk = 0; kk < KS; kk++) {
            if (kk + 1 < KS)
                load_frags(sa, sa + BM * BK * 2, kk + 1, wm0, wn0, lane, fa[(kk + 1) % 2],
                           fb[(kk + 1) % 2]);
            else // the next step's first (after the last step: harmless reads)
                load_frags(na, na + BM * BK * 2, 0, wm0, wn0, lane, fa[0], fb[0]);
            if (kk == 0) {
                if (t + STAGES - 1 < nsteps)
                    issue(wr, kbeg + (t + STAGES - 1) * BK);
                cp_async_commit();
            }
#pragma unroll
            for (int i = 0; i < MI; i++)
#pragma unroll
                for (int j = 0; j < NI; j++)
                    mma16816(acc[i][j], fa[kk % 2][i], fb[kk % 2][j]);
            if (kk == KS - 2) {
                cp_async_wait<STAGES - 2>(); // this thread's copies of step t + 1 have landed
                __syncthreads();
            }
        }
        rd = nrd;
        wr = wr + 1 == STAGES ? 0 : wr + 1;
    }
    cp_async_wait<0>();
    __syncthreads(); // the stages are free for the epilogue
}

#ifdef CUTUNE_EPILOGUE_BIAS
// bias[c] as a float, 0 past the last column (whose sums are not stored)
__device__ __forceinline__ float bias_at(const half_t *__restrict__ bias, int N, int c)
{
    return c < N ? from16(bias[c]) : 0.0f;
}
#endif

// Store n (1..VEC) consecutive elements w (packed two a word) at row r, column c of C; one
// vector store when all VEC are inside and aligned (vec_ok), else element by element.
__device__ __forceinline__ void store_out(half_t *__restrict__ C, int M, int N, int r, int c,
                                          const unsigned *w, bool vec_ok)
{
    if (r >= M || c >= N)
        return;
    half_t *p = C + (size_t)r * N + c;
    if (vec_ok && c + VEC <= N) {
        if (VEC == 8)
            *reinterpret_cast<uint4 *>(p) = make_uint4(w[0], w[1 % (VEC / 2)], w[2 % (VEC / 2)],
                                                       w[3 % (VEC / 2)]);
        else if (VEC == 4)
            *reinterpret_cast<uint2 *>(p) = make_uint2(w[0], w[1 % (VEC / 2)]);
        else
            *reinterpret_cast<unsigned *>(p) = w[0];
        return;
    }
#pragma unroll
    for (int j = 0; j < VEC; j++)
        if (c + j < N)
            p[j] = (half_t)(w[j / 2] >> (16 * (j % 2)));
}

#if SPLITK > 1
// The cluster's SPLITK partial tiles (fp32, one per block's shared memory, 16-byte chunks
// swizzled by 2 * r % 8 so that the 8-byte fragment stores of a half-warp, 4 rows x 2
// chunks, hit 8 bank groups) are added in slice order by the block whose share of rows they
// are, then rounded once and stored.
__device__ __forceinline__ int fswz(int r, int c) // float index of column c of row r
{
    return (r * (BN / 4) + ((c >> 2) ^ ((2 * r) & 7))) * 4 + (c & 3);
}

__device__ __forceinline__ void reduce_cluster(char *smem, const float (&acc)[MI][NI][4],
                                               half_t *__restrict__ C,
                                               const half_t *__restrict__ bias, int M, int N,
                                               int row0, int col0, int wm0, int wn0, int tid,
                                               bool vec_ok)
{
    (void)bias;
    float *part = reinterpret_cast<float *>(smem);
    const int lane = tid & 31, g = lane >> 2, tc = (lane & 3) * 2;
#pragma unroll
    for (int i = 0; i < MI; i++)
#pragma unroll
        for (int j = 0; j < NI; j++)
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const int r = wm0 + i * 16 + g + 8 * h, c = wn0 + j * 8 + tc;
                *reinterpret_cast<float2 *>(&part[fswz(r, c)]) = make_float2(acc[i][j][2 * h],
                                                                             acc[i][j][2 * h + 1]);
            }
    cluster_sync();                                   // every partial tile is complete
    constexpr int ROWS = BM / SPLITK, VPR = BN / VEC; // rows this block adds; vectors a row
    const unsigned me = cluster_rank();
    for (int e = tid; e < ROWS * VPR; e += NT) {
        const int r = me * ROWS + e / VPR, c = (e % VPR) * VEC;
        float s[VEC];
#pragma unroll
        for (int j = 0; j < VEC; j++)
            s[j] = 0.0f;
        for (unsigned q = 0; q < SPLITK; q++) {
#pragma unroll
            for (int j = 0; j < VEC; j += (VEC >= 4 ? 4 : 2)) {
                float v[4];
                cluster_load(v, &part[fswz(r, c + j)], q, VEC >= 4 ? 4 : 2);
#pragma unroll
                for (int x = 0; x < (VEC >= 4 ? 4 : 2); x++)
                    s[j + x] += v[x];
            }
        }
#ifdef CUTUNE_EPILOGUE_BIAS // once, to the whole sum: the slices carry none of it
#pragma unroll
        for (int j = 0; j < VEC; j++)
            s[j] += bias_at(bias, N, col0 + c + j);
#endif
        unsigned w[VEC / 2];
#pragma unroll
        for (int j = 0; j < VEC / 2; j++)
            w[j] = pack2(s[2 * j], s[2 * j + 1]);
        store_out(C, M, N, row0 + r, col0 + c, w, vec_ok);
    }
    cluster_sync(); // no block leaves (freeing its shared memory) while another still reads it
}
#elif VEC > 2
// The tile, rounded, goes through shared memory (16-byte chunks swizzled as the stages'
// are: the 4-byte fragment stores of a warp, 8 rows x 4 lanes, hit 32 banks), so that each
// thread then stores VEC consecutive elements of a row: whole 32-byte sectors per warp.
__device__ __forceinline__ void store_staged(char *smem, const float (&acc)[MI][NI][4],
                                             half_t *__restrict__ C, int M, int N, int row0,
                                             int col0, int wm0, int wn0, int tid, bool vec_ok)
{
    const int lane = tid & 31, g = lane >> 2, tc = (lane & 3) * 2;
#pragma unroll
    for (int i = 0; i < MI; i++)
#pragma unroll
        for (int j = 0; j < NI; j++)
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const int r = wm0 + i * 16 + g + 8 * h, c = wn0 + j * 8 + tc;
                *reinterpret_cast<unsigned *>(smem + swz<BN / 8>(r, c / 8) * 16 +
                                              (c % 8) * 2) = pack2(acc[i][j][2 * h],
                                                                   acc[i][j][2 * h + 1]);
            }
    __syncthreads();
    constexpr int VPR = BN / VEC;
#pragma unroll
    for (int e = tid; e < BM * VPR; e += NT) {
        const int r = e / VPR, c = (e % VPR) * VEC;
        const char *src = smem + swz<BN / 8>(r, c / 8) * 16 + (c % 8) * 2;
        unsigned w[VEC / 2];
        if (VEC == 8) {
            const uint4 v = *reinterpret_cast<const uint4 *>(src);
            w[0] = v.x, w[1 % (VEC / 2)] = v.y, w[2 % (VEC / 2)] = v.z, w[3 % (VEC / 2)] = v.w;
        } else {
            const uint2 v = *reinterpret_cast<const uint2 *>(src);
            w[0] = v.x, w[1 % (VEC / 2)] = v.y;
        }
        store_out(C, M, N, row0 + r, col0 + c, w, vec_ok);
    }
}
#endif

// the K slices of a tile: one cluster (grid z = SPLITK)
#if SPLITK > 1
#define CLUSTER_DIMS __cluster_dims__(1, 1, SPLITK)
#else
#define CLUSTER_DIMS
#endif
extern "C" __global__ void CLUSTER_DIMS __launch_bounds__(NT, MINB)
    matmul_mma(const half_t *__restrict__ A, const half_t *__restrict__ B, half_t *__restrict__ C,
               int M, int N, int K, const half_t *__restrict__ bias)
{
    DYNAMIC_SHARED(char, smem);
    const int tid = threadIdx.x, warp = tid >> 5;
    const int wm0 = (warp / (BN / WN)) * WM, wn0 = (warp % (BN / WN)) * WN;

    // this block's tile: GROUP_M tile rows at a time, walked column by column
    const int tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN;
    const int pid = blockIdx.x, in_group = GROUP_M * tiles_n;
    const int first_m = (pid / in_group) * GROUP_M, group_m = min(tiles_m - first_m, GROUP_M);
    const int pid_m = first_m + (pid % in_group) % group_m, pid_n = (pid % in_group) / group_m;
    const int row0 = pid_m * BM, col0 = pid_n * BN;

    // this block's K range: whole BK steps, SPLITK slices (a slice may be empty)
    const int steps = (K + BK - 1) / BK, per = (steps + SPLITK - 1) / SPLITK;
    const int kbeg = (int)blockIdx.z * per * BK, kend = min(K, kbeg + per * BK);
    const int nsteps = kend > kbeg ? (kend - kbeg + BK - 1) / BK : 0;

    float acc[MI][NI][4];
#pragma unroll
    for (int i = 0; i < MI; i++)
#pragma unroll
        for (int j = 0; j < NI; j++)
#pragma unroll
            for (int q = 0; q < 4; q++)
                acc[i][j][q] = 0.0f;

    // 16-byte copies need every row of A and B to start on 16 bytes
    const bool aligned = (K & 7) == 0 && (((unsigned long long)A | (unsigned long long)B) & 15) == 0
#ifdef CUTUNE_LAYOUT_NN
                         && (N & 7) == 0
#endif
        ;
    if (aligned)
        main_loop<true>(smem, A, B, M, N, K, row0, col0, kbeg, kend, nsteps, tid, wm0, wn0, acc);
    else
        main_loop<false>(smem, A, B, M, N, K, row0, col0, kbeg, kend, nsteps, tid, wm0, wn0, acc);

#if defined(CUTUNE_EPILOGUE_BIAS) && SPLITK == 1
    // the bias, added to the FP32 sums before any epilogue rounds them (split-K adds it after
    // its reduction): a thread's columns are col0 + wn0 + 8 j + tc (+ 1), the same in every
    // row it holds
    {
        const int tc = (tid & 3) * 2;
#pragma unroll
        for (int j = 0; j < NI; j++) {
            const int c = col0 + wn0 + j * 8 + tc;
            const float b0 = bias_at(bias, N, c), b1 = bias_at(bias, N, c + 1);
#pragma unroll
            for (int i = 0; i < MI; i++)
#pragma unroll
                for (int h = 0; h < 2; h++)
                    acc[i][j][2 * h] += b0, acc[i][j][2 * h + 1] += b1;
        }
    }
#elif !defined(CUTUNE_EPILOGUE_BIAS)
    (void)bias;
#endif
#if defined(PLANT) && PLANT > 0
    // Planted tensor-core bugs, for the tests only (tests/planted/matmul_mma_planted.ini):
    // the op's check must catch both. Lane 0 of the first warp of the first tile holds C[0][0]
    // and C[0][1] in acc[0][0][0..1].
    if (blockIdx.x == 0 && blockIdx.z == 0 && tid == 0) {
#if PLANT == 1 // a fragment element written to the wrong place: C[0][0] and C[0][1] swapped
        const float t = acc[0][0][0];
        acc[0][0][0] = acc[0][0][1];
        acc[0][0][1] = t;
#else // C[0][0] two bf16 ulps off (an ulp of |x| in [2^E, 2^(E+1)) is 2^(E-7))
        const unsigned e = (__float_as_uint(acc[0][0][0]) >> 23) & 0xffu;
        if (e > 8)
            acc[0][0][0] += 2.0f * __uint_as_float((e - 7u) << 23);
#endif
    }
#endif
    // VEC-wide stores of C need rows and the pointer aligned to VEC elements
    const bool vec_ok = (N % VEC) == 0 && ((unsigned long long)C % (2 * VEC)) == 0;
#if SPLITK > 1
    reduce_cluster(smem, acc, C, bias, M, N, row0, col0, wm0, wn0, tid, vec_ok);
#elif VEC > 2
    store_staged(smem, acc, C, M, N, row0, col0, wm0, wn0, tid, vec_ok);
#else
    const int lane = tid & 31, g = lane >> 2, tc = (lane & 3) * 2;
#pragma unroll
    for (int i = 0; i < MI; i++)
#pragma unroll
        for (int j = 0; j < NI; j++)
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const unsigned w = pack2(acc[i][j][2 * h], acc[i][j][2 * h + 1]);
                store_out(C, M, N, row0 + wm0 + i * 16 + g + 8 * h, col0 + wn0 + j * 8 + tc, &w,
                          vec_ok);
            }
#endif
}
