// matmul_tf32: C = A * B (layout nn) or C = A * B^T (layout nt), float32 in and out, on the
// tensor cores through mma.sync.m16n8k8 with TF32 operands and FP32 accumulation (sm_80 and
// later). Row-major everywhere: A is M x K, B is K x N (nn) or N x K (nt), C is M x N.
//
// Two element types, one kernel, two variants (the core defines exactly one of the macros):
//   CUTUNE_DTYPE_TF32  matmul_tf32.ini, the TF32 GEMM: each operand rounded to TF32
//                      (cvt.rna: 10 mantissa bits, to nearest, ties away), one tensor-core
//                      product a K step of 8.
//   CUTUNE_DTYPE_FP32  matmul_3xtf32.ini, FP32 through 3xTF32: x = hi + lo + e with hi = x
//                      rounded to TF32 and lo = x - hi (exact in float32) as the tensor cores
//                      read it, cut to TF32 (split() below), |e| <= 2^-21 |x|; a b is taken as
//                      lo_a hi_b + hi_a lo_b + hi_a hi_b, dropping lo_a lo_b (<= 2^-22 |a b|):
//                      each product errs by at most 5 2^-22 relative, and its errors do not
//                      grow with K as a float32 sum's do.
// The two have their own spaces because a constraint cannot tell the element types apart,
// while FP32 holds twice the accumulators (below) and takes BK = 16 only: a BK = 32 stage holds
// two independent step sums, whose mma ptxas overlaps, holding both past 255 registers. Both
// take CUTUNE_LAYOUT_NN or CUTUNE_LAYOUT_NT. Tunable parameters (-D macros):
//   BM, BN, BK    the block tile (BK 16 or 32: 2 or 4 mma K steps of 8 a stage)
//   WM, WN        a warp's piece of it (WM a multiple of 16, WN of 32): (BM/WM) x (BN/WN) warps
//   STAGES        depth of the cp.async pipeline (>= 2): STAGES - 1 K steps in flight
//   SPLITK        K slices, one block each, reduced in a thread block cluster (sm_90 only)
//   GROUP_M       block rasterisation: GROUP_M tile rows are walked column by column
//   VEC           output floats a thread stores at once (2 or 4: 8 or 16-byte stores)
//   MINB          blocks per SM the registers must allow (__launch_bounds__)
// It needs mma_ptx.cuh in front (the INIs' headers =): NVRTC has no include path.
//
// The order of the 3xTF32 sums, and why. Tensor cores do not round their sums to nearest: an
// mma aligns its addends to the largest and truncates, and rounds the result toward zero
// (Fasi, Higham, Mikaitis, Pranesh, "Numerical behavior of NVIDIA tensor cores", PeerJ CS
// 2021, for V100 and A100; Khattak and Mikaitis, "Accurate models of NVIDIA tensor cores",
// 2025, for H100). A result rounded toward zero errs against its own sign, so an accumulator
// that mma update all along K drifts towards zero by about an ulp of the partial sum each
// time: the errors add up with the partial sums' sign instead of cancelling, about u times
// the sum of the partial sums, which grows like K^1.5 where cuBLAS SGEMM's sequential FFMA
// (round to nearest) errs like K. Modelled (products exact, each mma's sum rounded toward
// zero; K = 4096 and 8192, inputs uniform in [-1, 1), 3000 dot products, max |error| against
// SGEMM's arithmetic; tests/kemu models the same):
//   all three products of each K step into the accumulator (CUTLASS's order)   20x, 31x
//   the corrections in an accumulator of their own, added at the end            6.6x, 9.8x
//   every 16 of K summed from zero, then added to the accumulator by an FADD   0.26x, 0.29x
// So the kernel takes the last: each 16 of K (two mma K steps of 8) is summed by the tensor
// cores into a step sum d that starts from zero, the corrections of each K step of 8 first
// (lo_a hi_b, hi_a lo_b: 2^-11 of the main term, added before it, while d is still at their
// scale in the first step), and d is added to the FP32 accumulator with an FADD, rounded to
// nearest. The truncations then act on sums of 16 products that start from zero (their signs
// independent: no drift), and the accumulator sees K/16 additions rounded to nearest where
// SGEMM's sees K. Sums of 32 of K err 1.1x to 1.7x SGEMM's at K = 64 to 128; sums of 8 of K
// take twice the FADDs, err less below K = 300 and a third more from K = 1000. It costs an
// FADD per accumulator element every 6 mma, and WM x WN / 32 registers for d (ptxas keeps the
// step sums of all (i, j) tiles live anyway, to overlap the mma). ACC_DIRECT=1 (not in the
// space: an experiment for bench_tf32) compiles CUTLASS's order instead, so that a GPU can
// measure both.
//
// Small K (FP32 only). The op checks FP32 against the worst-case bound of any float32 sum,
// gamma_K sum_k |a_k b_k| (matmul.h), which at K = 1 means the correctly rounded product,
// while 3xTF32's products err by up to 20 u (u = 2^-24) and each step sum's 6 mma by up to
// about 2 u sum |p| each: with K/16 FADDs, (32 + K/16) u sum |p|, within K u sum |p| from K =
// 35 on. And modelled as above, 16-wide sums err more than SGEMM's arithmetic below K = 64.
// So for K < SMALL_K = 64 the block computes its tile on the CUDA cores instead: a
// sequential FFMA sum per element, SGEMM's own arithmetic. It is uniform over the launch (K
// is), and such a product is little work (other variants serve small K better).
//
// How a block works. Its BM x BN tile of C is computed K step by K step (BK wide). Each step's
// A tile (BM rows of BK floats) and B tile (nt: BN rows of BK; nn: BK rows of BN) go from
// global to shared memory by cp.async, 16 bytes a copy, STAGES - 1 steps ahead of the step
// being computed. In shared memory a tile is rows of 16-byte chunks, 8 chunks to a 128-byte
// line, and a chunk's place in its line is XOR-swizzled by a function of its row, so that the
// 8 accesses a quarter-warp (or an ldmatrix phase) makes fall on 8 different 16-byte bank
// groups: the copies write 8 consecutive chunks of a line (any XOR of the row keeps them
// apart), and the fragment loads read:
//   A:      ldmatrix.x4, 8 consecutive rows at one chunk (swizzle by the row, or by the line
//           for 4-chunk rows);
//   B (nt): ldmatrix.x4 of 8 rows 4 apart (the column order below), swizzled by row / 4;
//   B (nn): the rows are k, and the mma wants each lane's B values along k, which ldmatrix
//           cannot transpose for 32-bit elements; so each lane reads 4 consecutive n at rows
//           k and k + 4 with 16-byte loads (ld.shared.v4), 4 rows x 2 chunks a quarter-warp,
//           swizzled by row % 4.
// That last read is what the column order is for. Within each 32-column group of a warp
// tile, mma n tile j (0..3) takes, for its column slot s (0..7, lane g = s for B and slots
// 2t, 2t + 1 for C), the column 4 P(s) + j with P(s) = s / 2 + 4 (s % 2). Then a lane's B
// values of the 4 tiles are 4 consecutive columns (one 16-byte load), and a lane's
// accumulators of a row are columns 4t .. 4t + 3 and 16 + 4t .. 16 + 4t + 3 of the group: the
// epilogue stores them straight from registers, 16 bytes each, 64 contiguous bytes per row
// per instruction. The A fragments come from ldmatrix: for 32-bit data, matrix m of an .x4
// is 8 rows x 4 floats, and lane 4g + t gets row g, float t: exactly mma's a0 (rows 0-7, k
// 0-3), a1 (rows 8-15), a2 (k 4-7), a3; for nt's B, b0 (n rows, k 0-3) and b1 (k 4-7).
//
// Ragged sizes (every M, N, K >= 1 is valid). A copy whose rows or columns lie outside the
// matrix (or past the block's K slice) is zero-filled by cp.async's src-size operand, so edge
// tiles run the same instructions. 16-byte copies need rows that start on 16 bytes: K % 4 ==
// 0 (and N % 4 == 0 for nn's B) and 16-byte aligned A and B. Otherwise a block takes the
// guarded path: each thread reads its 4 floats one by one (zeros outside) and stores the
// chunk itself; slower, right for any size and any 4-byte aligned pointers. Stores of C are
// guarded per element, and 8 or 16 bytes wide only where N and the pointer allow.
//
// Split-K (SPLITK > 1): as matmul_mma does it. The SPLITK slices of a tile run as one thread
// block cluster (__cluster_dims__(1, 1, SPLITK), sm_90): each block puts its fp32 partial tile
// in its own shared memory, and after a cluster barrier block r adds up its share of the rows
// of all SPLITK partial tiles through distributed shared memory, in slice order. No
// workspace, no counters, the same result on every run. The INI allows SPLITK > 1 only on CC
// >= 90; compiled for sm_80 such a config stops with an #error rather than be wrong.
//
// Not handled as cuBLAS does: in FP32, an infinite input gives NaN (hi = inf, x - hi = NaN),
// and inputs within 2^-11 of the float32 range's end round up to infinity in hi; values
// whose remainder x - hi is subnormal lose its low bits. NaN inputs give NaN. Finite data in a
// sane range is computed as described.

#if defined(CUTUNE_DTYPE_FP32) == defined(CUTUNE_DTYPE_TF32)
#error "matmul_tf32: define exactly one of CUTUNE_DTYPE_FP32 and CUTUNE_DTYPE_TF32"
#endif
#if defined(CUTUNE_LAYOUT_NN) == defined(CUTUNE_LAYOUT_NT)
#error "matmul_tf32: define exactly one of CUTUNE_LAYOUT_NN and CUTUNE_LAYOUT_NT"
#endif
#if SPLITK > 1 && defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#error "matmul_tf32: SPLITK > 1 reduces in a thread block cluster, which needs sm_90 or later"
#endif
#ifndef ACC_DIRECT
#define ACC_DIRECT 0
#endif

#define NT ((BM / WM) * (BN / WN) * 32) // threads
#define MI (WM / 16)                    // mma tiles of a warp along M (16 rows each)
#define NI (WN / 8)                     // ... along N (8 columns each), 4 per column group
#define A_CPR (BK / 4)                  // 16-byte chunks in a row of the A tile
#ifdef CUTUNE_LAYOUT_NT
#define B_CPR (BK / 4) // B tile: BN rows (n) of BK
#else
#define B_CPR (BN / 4) // B tile: BK rows (k) of BN
#endif
#define A_CHUNKS (BM * BK / 4) // 16-byte chunks of a stage's A tile
#define B_CHUNKS (BN * BK / 4)
#define A_BYTES (BM * BK * 4)
#define STAGE_BYTES ((BM + BN) * BK * 4)
#define SMALL_K 64 // FP32: below it, the CUDA-core path (see above)
// FP32 sums each 16 of K from zero into d, then adds d to the accumulator (see above)
#if defined(CUTUNE_DTYPE_FP32) && !ACC_DIRECT
#define STEP_SUMS 1
#define STEP_SUM d
#else
#define STEP_SUMS 0
#define STEP_SUM acc
#endif
#ifdef CUTUNE_DTYPE_TF32 // the fragment schedule of main_loop
#define PREFETCH 1
#else
#define PREFETCH 0
#endif

#ifndef DYNAMIC_SHARED // tests/kemu (kernels run on the CPU) brings its own
#define DYNAMIC_SHARED(type, name) extern __shared__ __align__(16) type name[]
#endif

#ifndef CUTUNE_KEMU
// x rounded to TF32 (to nearest, ties away from zero), as mma takes its TF32 operands
__device__ __forceinline__ unsigned to_tf32(float x)
{
    unsigned r;
    asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
    return r;
}
// d = a * b + c for one 16 x 8 x 8 tile (fragments as the PTX ISA lays them out)
__device__ __forceinline__ void mma1688(float (&d)[4], const unsigned (&a)[4],
                                        const unsigned (&b)[2], const float (&c)[4])
{
    asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
        "{%8, %9}, {%10, %11, %12, %13};\n"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]),
          "f"(c[2]), "f"(c[3]));
}
#endif

// The place (in 16-byte chunks from the tile's start) of chunk c of row r in a tile of CPR
// chunks a row (4, or a multiple of 8): the chunk's index within its 128-byte line XOR f % 8.
template <int CPR> __device__ __forceinline__ int swz(int r, int c, int f)
{
    static_assert(CPR == 4 || CPR % 8 == 0, "rows of 4 chunks, or of whole 128-byte lines");
    return (r * CPR + c) ^ (f & 7);
}
// A: 8 consecutive rows read at one chunk: swizzled by the row (by the line for 4-chunk rows)
__device__ __forceinline__ int swz_a(int r, int c)
{
    return swz<A_CPR>(r, c, A_CPR >= 8 ? r : r >> 1);
}
#ifdef CUTUNE_LAYOUT_NT
// nt's B: rows 4 apart (4 P(s) + j) read at one chunk: swizzled by row / 4
__device__ __forceinline__ int swz_b(int r, int c)
{
    return swz<B_CPR>(r, c, r >> 2);
}
#else
// nn's B: rows k .. k + 3 (k % 4 == 0) read at chunks P(s) and P(s) + 4: swizzled by row % 4
__device__ __forceinline__ int swz_b(int r, int c)
{
    return swz<B_CPR>(r, c, r & 3);
}
#endif

// ---- copies --------------------------------------------------------------------------------

// The guarded path (rows not 16-byte aligned): 4 floats of row r of X (leading dimension ld)
// from column c, read one by one (zeros where r >= rows or a column >= cols) and stored as
// one chunk at byte dst of shared memory.
__device__ __forceinline__ void copy_guarded(char *smem, int dst, const float *__restrict__ X,
                                             int r, int c, int rows, int cols, int ld)
{
    float v[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    if (r < rows) {
        const float *p = X + (size_t)r * ld + c;
#pragma unroll
        for (int j = 0; j < 4; j++)
            if (c + j < cols)
                v[j] = p[j];
    }
    *reinterpret_cast<float4 *>(smem + dst) = make_float4(v[0], v[1], v[2], v[3]);
}

// The K step [k0, k0 + BK) (clipped at kend) into stage st, on the guarded path. Chunk e of a
// tile (e = tid + i * NT) is chunk e % CPR of row e / CPR.
__device__ __forceinline__ void load_stage_guarded(char *smem, int st, const float *__restrict__ A,
                                                   const float *__restrict__ B, int M, int N, int K,
                                                   int row0, int col0, int k0, int kend, int tid)
{
    const int sa = st * STAGE_BYTES, sb = sa + A_BYTES;
#pragma unroll 1 // one chunk at a time: few registers on top of the main loop's
    for (int i = 0; i < A_CHUNKS / NT; i++) {
        const int e = tid + i * NT, r = e / A_CPR, c = e % A_CPR;
        copy_guarded(smem, sa + swz_a(r, c) * 16, A, row0 + r, k0 + c * 4, M, kend, K);
    }
#pragma unroll 1
    for (int i = 0; i < B_CHUNKS / NT; i++) {
        const int e = tid + i * NT, r = e / B_CPR, c = e % B_CPR;
#ifdef CUTUNE_LAYOUT_NT
        copy_guarded(smem, sb + swz_b(r, c) * 16, B, col0 + r, k0 + c * 4, N, kend, K);
#else
        copy_guarded(smem, sb + swz_b(r, c) * 16, B, k0 + r, col0 + c * 4, kend, N, N);
#endif
    }
}

// The 16-byte copies a thread makes at every K step, worked out once. Chunk e = tid + i * NT
// of a tile is chunk e % CPR of row e / CPR, so a thread's chunks are STEP = NT / CPR rows
// apart in one chunk column. When STEP keeps the swizzle's f % 8 (A_FIXED, B_FIXED), chunk
// i's place is chunk 0's plus i * NT chunks: no per-step address work but the predicates.
// A chunk outside the matrix or the slice copies 0 bytes (cp.async zero-fills it and reads
// nothing, so its address may lie outside the matrix, as CUTLASS's zfill copies do).
#define A_STEP (NT / A_CPR)
#define B_STEP (NT / B_CPR)
#define A_FIXED (A_CPR >= 8 ? A_STEP % 8 == 0 : A_STEP % 16 == 0)
#ifdef CUTUNE_LAYOUT_NT
#define B_FIXED (B_STEP % 32 == 0)
#else
#define B_FIXED (B_STEP % 4 == 0)
#endif
struct Copies {
    const float *a, *b; // chunk 0's source at k = 0
    int ra, ca;         // chunk 0's row and chunk column in the A tile
    int rb, cb;         // ... in the B tile (nn: the row is k within a step)
    int a_rows, b_rows; // chunks 0 .. a_rows - 1 have their row inside A (likewise B; nn:
                        // all or none, as their columns are inside B or not)
};

__device__ __forceinline__ int rows_inside(int left, int step, int n)
{
    return left <= 0 ? 0 : min(n, (left + step - 1) / step);
}

__device__ __forceinline__ Copies copies_make(const float *__restrict__ A,
                                              const float *__restrict__ B, int M, int N, int K,
                                              int row0, int col0, int tid)
{
    Copies c;
    c.ra = tid / A_CPR, c.ca = tid % A_CPR;
    c.a = A + (size_t)(row0 + c.ra) * K + c.ca * 4;
    c.a_rows = rows_inside(M - row0 - c.ra, A_STEP, A_CHUNKS / NT);
    c.rb = tid / B_CPR, c.cb = tid % B_CPR;
#ifdef CUTUNE_LAYOUT_NT
    c.b = B + (size_t)(col0 + c.rb) * K + c.cb * 4;
    c.b_rows = rows_inside(N - col0 - c.rb, B_STEP, B_CHUNKS / NT);
#else
    c.b = B + (size_t)c.rb * N + col0 + c.cb * 4;
    c.b_rows = col0 + c.cb * 4 < N ? B_CHUNKS / NT : 0;
#endif
    return c;
}

// Start the copies of the K step [k0, k0 + BK) (clipped at kend) into the stage at shared
// address st (16-byte copies: rows 16-byte aligned and K % 4 == 0, so that a chunk is all
// inside or all outside).
__device__ __forceinline__ void load_stage(unsigned st, const Copies &c, int N, int K, int k0,
                                           int kend)
{
    const bool ka_in = k0 + c.ca * 4 < kend;
    const float *a = c.a + k0;
    const int a0 = swz_a(c.ra, c.ca);
#pragma unroll
    for (int i = 0; i < A_CHUNKS / NT; i++) {
        const int dst = A_FIXED ? a0 + i * NT : swz_a(c.ra + i * A_STEP, c.ca);
        cp_async16(st + dst * 16, a + (size_t)i * A_STEP * K, ka_in && i < c.a_rows ? 16 : 0);
    }
    const unsigned sb = st + A_BYTES;
    const int b0 = swz_b(c.rb, c.cb);
#ifdef CUTUNE_LAYOUT_NT
    (void)N;
    const bool kb_in = k0 + c.cb * 4 < kend;
    const float *b = c.b + k0;
#pragma unroll
    for (int i = 0; i < B_CHUNKS / NT; i++) {
        const int dst = B_FIXED ? b0 + i * NT : swz_b(c.rb + i * B_STEP, c.cb);
        cp_async16(sb + dst * 16, b + (size_t)i * B_STEP * K, kb_in && i < c.b_rows ? 16 : 0);
    }
#else
    const float *b = c.b + (size_t)k0 * N;
#pragma unroll
    for (int i = 0; i < B_CHUNKS / NT; i++) {
        const int r = c.rb + i * B_STEP; // row (k) of the step
        const int dst = B_FIXED ? b0 + i * NT : swz_b(r, c.cb);
        cp_async16(sb + dst * 16, b + (size_t)i * B_STEP * N,
                   i < c.b_rows && k0 + r < kend ? 16 : 0);
    }
#endif
}

// ---- fragments and products ----------------------------------------------------------------

// f(i, j, q) for each of a thread's accumulators: element q of m tile i, n tile j
template <class F> __device__ __forceinline__ void for_each_acc(F f)
{
#pragma unroll
    for (int i = 0; i < MI; i++)
#pragma unroll
        for (int j = 0; j < NI; j++)
#pragma unroll
            for (int q = 0; q < 4; q++)
                f(i, j, q);
}

// The column slot s (0..7) of an mma n tile sits at chunk P(s) of its 32-column group.
__device__ __forceinline__ int slot_chunk(int s)
{
    return (s >> 1) + 4 * (s & 1);
}

// Where a lane's fragment loads fall, in bytes from its tile's start, at K step kk = 0 and
// for the first m tile (A) and n tile pair or column group (B). The loads of the other tiles
// are these plus constants, and those of K step kk these XOR kk * 32, so that each load is a
// register and an immediate offset, not an address a tile and a K step held in registers
// (ptxas hoists those, 16 to 32 of them at 64 x 64). Why it holds: a load's chunk column is
// 2 kk + x (x = 0, 1: bits 1-2 and bit 0 of the chunk index, apart from the row's bits), the
// swizzle XORs the chunk's 3 low bits with f(row), and the other tiles' rows (16 apart for A,
// 2 or 32 apart for nt's B, 4 or 8 kk apart for nn's B) keep f % 8, or f % 4 for nn's B
// whose column groups are 8 chunks apart.
struct FragOffsets {
    unsigned a, b;
};
__device__ __forceinline__ FragOffsets frag_offsets(int wm0, int wn0, int lane)
{
    FragOffsets o;
    o.a = swz_a(wm0 + (lane & 15), lane >> 4) * 16;
#ifdef CUTUNE_LAYOUT_NT
    // matrices of an .x4: (tile j, k 0-3), (tile j, k 4-7), (tile j + 1, k 0-3), (j + 1, k 4-7);
    // lane l gives row l % 8 (slot s) of matrix l / 8
    const int m = lane >> 3, s = lane & 7;
    o.b = swz_b(wn0 + 4 * slot_chunk(s) + (m >> 1), m & 1) * 16;
#else
    // lane 4g + t: row (k) t, the 4 columns of chunk P(g) of the first group
    o.b = swz_b(lane & 3, wn0 / 4 + slot_chunk(lane >> 2)) * 16;
#endif
    return o;
}

// The raw (float32) fragments of K step kk (8 wide) of the stage whose A and B tiles start at
// shared addresses sa, sb (see the top for the layouts).
__device__ __forceinline__ void load_frags(unsigned sa, unsigned sb, int kk, const FragOffsets &o,
                                           unsigned (&a)[MI][4], unsigned (&b)[NI][2])
{
    const unsigned oa = o.a ^ (kk * 32);
#pragma unroll
    for (int i = 0; i < MI; i++) // m tile i: 16 rows further
        ldmatrix_x4(a[i], sa + oa + i * 16 * A_CPR * 16);
#ifdef CUTUNE_LAYOUT_NT
    const unsigned ob = o.b ^ (kk * 32);
#pragma unroll
    for (int j = 0; j < NI; j += 2) { // n tiles j, j + 1: rows 32 (j / 4) + j % 4 further
        unsigned t[4];
        ldmatrix_x4(t, sb + ob + ((j / 4) * 32 + j % 4) * B_CPR * 16);
        b[j][0] = t[0], b[j][1] = t[1];
        b[j + 1][0] = t[2], b[j + 1][1] = t[3];
    }
#else
#pragma unroll
    for (int h = 0; h < NI / 4; h++) { // rows 8 kk and 8 kk + 4 further, group h 8 chunks on
        unsigned v0[4], v1[4];
        lds128(v0, sb + o.b + (kk * 8 * B_CPR + h * 8) * 16);
        lds128(v1, sb + o.b + ((kk * 8 + 4) * B_CPR + h * 8) * 16);
#pragma unroll
        for (int j = 0; j < 4; j++)
            b[4 * h + j][0] = v0[j], b[4 * h + j][1] = v1[j];
    }
#endif
}

__device__ __forceinline__ float as_float(unsigned u)
{
    return __uint_as_float(u);
}

// FP32 x (bits) as hi + lo: hi = x rounded to TF32 (to nearest, ties away: the bits of
// cvt.rna.tf32.f32 for every finite x and for infinities), lo = x - hi (exact in float32),
// handed to the tensor cores as it is: they read its top 19 bits, a truncation to TF32
// (|error| <= 2^-10 |lo| <= 2^-21 |x|, where rounding lo would give 2^-22). Modelled as at
// the top, truncating lo leaves the error of the products the same (rms within 2% at K = 64
// to 8192), and costs 3 instructions an element where two cvt.rna cost 7 (ptxas guards each
// against NaN and infinity, and masks hi's low bits for the subtraction): at 64 x 32, 72
// instructions a K step of 8 instead of 168, next to 48 mma. A NaN x may give hi = 0, but lo
// is NaN, so NaN still reaches the sum.
__device__ __forceinline__ void split(unsigned x, unsigned &hi, unsigned &lo)
{
    hi = (x + 0x1000u) & 0xffffe000u;
    lo = __float_as_uint(__uint_as_float(x) - __uint_as_float(hi));
}

// One K step of 8 (raw fragments a, b): tf32: acc += its products; fp32: d += its three
// 3xTF32 products, corrections first (FIRST: d starts from zero), or with ACC_DIRECT the
// same into acc (d is acc then).
template <bool FIRST>
__device__ __forceinline__ void mma_step(const unsigned (&a)[MI][4], const unsigned (&b)[NI][2],
                                         float (&d)[MI][NI][4])
{
#ifdef CUTUNE_DTYPE_TF32
    unsigned ah[MI][4], bh[NI][2];
#pragma unroll
    for (int i = 0; i < MI; i++)
#pragma unroll
        for (int q = 0; q < 4; q++)
            ah[i][q] = to_tf32(as_float(a[i][q]));
#pragma unroll
    for (int j = 0; j < NI; j++)
#pragma unroll
        for (int q = 0; q < 2; q++)
            bh[j][q] = to_tf32(as_float(b[j][q]));
#pragma unroll
    for (int i = 0; i < MI; i++)
#pragma unroll
        for (int j = 0; j < NI; j++)
            mma1688(d[i][j], ah[i], bh[j], d[i][j]);
#else
    unsigned ah[MI][4], al[MI][4], bh[NI][2], bl[NI][2];
#pragma unroll
    for (int i = 0; i < MI; i++)
#pragma unroll
        for (int q = 0; q < 4; q++)
            split(a[i][q], ah[i][q], al[i][q]);
#pragma unroll
    for (int j = 0; j < NI; j++)
#pragma unroll
        for (int q = 0; q < 2; q++)
            split(b[j][q], bh[j][q], bl[j][q]);
    const float zero[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
    for (int i = 0; i < MI; i++)
#pragma unroll
        for (int j = 0; j < NI; j++) {
            if (FIRST && !ACC_DIRECT)
                mma1688(d[i][j], al[i], bh[j], zero);
            else
                mma1688(d[i][j], al[i], bh[j], d[i][j]);
            mma1688(d[i][j], ah[i], bl[j], d[i][j]);
            mma1688(d[i][j], ah[i], bh[j], d[i][j]);
        }
#endif
}

// acc = the products of K steps [kbeg, kend): STAGES - 1 steps of copies in flight while one
// is computed, in K steps of 8 (kk). An empty commit group where there is no step to copy
// keeps the wait count right. Two schedules of the fragment loads:
//   TF32 (PREFETCH): a kk's fragments are loaded one kk ahead, into a second register set,
//     and the barrier comes before a step's last kk, whose mma hide it and the fragment loads
//     of the next step's first kk (CUTLASS's multistage main loop): at step t, kk = KS - 2, a
//     thread waits for its copies of step t + 1, and the barrier says everyone's have landed
//     and that no one reads step t's stage any more (its last fragments were loaded before),
//     which the copies of step t + STAGES take at step t + 1, kk = 0.
//   FP32: three mma per fragment pair leave the loads' latency to other warps, and the
//     registers of a second set (WM / 4 + WN / 4) are what a 64 x 32 warp tile lacks, next to
//     its step sums and the hi and lo parts: a kk's fragments are loaded at that kk, and the
//     wait and the barrier come after the step's last mma.
template <bool ALIGNED>
__device__ __forceinline__ void main_loop(char *smem, const float *__restrict__ A,
                                          const float *__restrict__ B, int M, int N, int K,
                                          int row0, int col0, int kbeg, int kend, int nsteps,
                                          int tid, int wm0, int wn0, float (&acc)[MI][NI][4])
{
    constexpr int KS = BK / 8;
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
    const FragOffsets fo = frag_offsets(wm0, wn0, tid & 31);
    unsigned fa[PREFETCH ? 2 : 1][MI][4], fb[PREFETCH ? 2 : 1][NI][2];
    cp_async_wait<STAGES - 2>(); // step 0 has landed
    __syncthreads();
    if (PREFETCH)
        load_frags(base, base + A_BYTES, 0, fo, fa[0], fb[0]);
    int rd = 0, wr = STAGES - 1; // the stages computed and filled at this step
    for (int t = 0; t < nsteps; t++) {
        const int nrd = rd + 1 == STAGES ? 0 : rd + 1;
        const unsigned sa = base + rd * STAGE_BYTES, na = base + nrd * STAGE_BYTES;
#if STEP_SUMS
        float d[MI][NI][4]; // the sum of 16 of K (kk = 2 s, 2 s + 1; the first mma starts it)
#endif
#pragma unroll
        for (int kk = 0; kk < KS; kk++) {
            const int set = PREFETCH ? kk % 2 : 0;
            if (!PREFETCH)
                load_frags(sa, sa + A_BYTES, kk, fo, fa[0], fb[0]);
            else if (kk + 1 < KS)
                load_frags(sa, sa + A_BYTES, kk + 1, fo, fa[(kk + 1) % 2], fb[(kk + 1) % 2]);
            else // the next step's first (after the last step: harmless reads)
                load_frags(na, na + A_BYTES, 0, fo, fa[0], fb[0]);
            if (kk == 0) {
                if (t + STAGES - 1 < nsteps)
                    issue(wr, kbeg + (t + STAGES - 1) * BK);
                cp_async_commit();
            }
            if (kk % 2 == 0)
                mma_step<true>(fa[set], fb[set], STEP_SUM);
            else
                mma_step<false>(fa[set], fb[set], STEP_SUM);
#if STEP_SUMS // the sum of 16 of K into the accumulator, rounded to nearest
            if (kk % 2 == 1)
                for_each_acc([&](int i, int j, int q) { acc[i][j][q] += d[i][j][q]; });
#endif
            if (kk == (PREFETCH ? KS - 2 : KS - 1)) {
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

#ifdef CUTUNE_DTYPE_FP32
// K < SMALL_K: the block's tile on the CUDA cores, a sequential FFMA sum per element
__device__ __forceinline__ void small_k(const float *__restrict__ A, const float *__restrict__ B,
                                        float *__restrict__ C, int M, int N, int K, int row0,
                                        int col0, int tid)
{
    for (int e = tid; e < BM * BN; e += NT) {
        const int r = row0 + e / BN, c = col0 + e % BN;
        if (r >= M || c >= N)
            continue;
        const float *a = A + (size_t)r * K;
        float s = 0.0f;
        for (int k = 0; k < K; k++)
#ifdef CUTUNE_LAYOUT_NT
            s = fmaf(a[k], B[(size_t)c * K + k], s);
#else
            s = fmaf(a[k], B[(size_t)k * N + c], s);
#endif
        C[(size_t)r * N + c] = s;
    }
}
#endif

// ---- the epilogue --------------------------------------------------------------------------

// Store the 4 consecutive floats v at row r, column c of C: VEC-wide stores where inside and
// aligned (vec_ok: N % VEC == 0 and C aligned), else one by one.
__device__ __forceinline__ void store4(float *__restrict__ C, int M, int N, int r, int c,
                                       const float (&v)[4], bool vec_ok)
{
    if (r >= M || c >= N)
        return;
    float *p = C + (size_t)r * N + c;
    if (vec_ok && c + 4 <= N) {
        if (VEC == 4) {
            *reinterpret_cast<float4 *>(p) = make_float4(v[0], v[1], v[2], v[3]);
        } else {
            *reinterpret_cast<float2 *>(p) = make_float2(v[0], v[1]);
            *reinterpret_cast<float2 *>(p + 2) = make_float2(v[2], v[3]);
        }
        return;
    }
#pragma unroll
    for (int j = 0; j < 4; j++)
        if (c + j < N)
            p[j] = v[j];
}

// Lane 4g + t holds, for m tile i, 32-column group h, row half rh (rows g, g + 8) and
// x = 0, 1: columns 32 h + 16 x + 4 t .. + 3 in acc[i][4 h + 0..3][2 rh + x].
template <class F> __device__ __forceinline__ void for_each_run(int lane, F f)
{
    const int g = lane >> 2, t = lane & 3;
#pragma unroll
    for (int i = 0; i < MI; i++)
#pragma unroll
        for (int h = 0; h < NI / 4; h++)
#pragma unroll
            for (int rh = 0; rh < 2; rh++)
#pragma unroll
                for (int x = 0; x < 2; x++)
                    f(i, h, 2 * rh + x, i * 16 + g + 8 * rh, h * 32 + 16 * x + 4 * t);
}

#if SPLITK > 1
// The partial tile, BM x BN floats in 16-byte chunks, chunk c of row r at c ^ 4 (r % 2) (the
// 16-byte stores of a quarter-warp, rows r, r + 1 x 4 chunks, hit 8 bank groups).
__device__ __forceinline__ int pidx(int r, int c) // float index of column c of row r
{
    return (r * (BN / 4) + ((c >> 2) ^ ((r & 1) << 2))) * 4 + (c & 3);
}

// The cluster's SPLITK partial tiles (one per block's shared memory) are added in slice order
// by the block whose share of rows they are, and stored.
__device__ __forceinline__ void reduce_cluster(char *smem, const float (&acc)[MI][NI][4],
                                               float *__restrict__ C, int M, int N, int row0,
                                               int col0, int wm0, int wn0, int tid, bool vec_ok)
{
    float *part = reinterpret_cast<float *>(smem);
    for_each_run(tid & 31, [&](int i, int h, int q, int r, int c) {
        *reinterpret_cast<float4 *>(
            &part[pidx(wm0 + r, wn0 + c)]) = make_float4(acc[i][4 * h][q], acc[i][4 * h + 1][q],
                                                         acc[i][4 * h + 2][q],
                                                         acc[i][4 * h + 3][q]);
    });
    cluster_sync();                                 // every partial tile is complete
    constexpr int ROWS = BM / SPLITK, CPR = BN / 4; // rows this block adds; chunks a row
    const unsigned me = cluster_rank();
    for (int e = tid; e < ROWS * CPR; e += NT) {
        const int r = me * ROWS + e / CPR, c = (e % CPR) * 4;
        float s[4] = {0.0f, 0.0f, 0.0f, 0.0f};
        for (unsigned q = 0; q < SPLITK; q++) {
            float v[4];
            cluster_load4(v, &part[pidx(r, c)], q);
#pragma unroll
            for (int x = 0; x < 4; x++)
                s[x] += v[x];
        }
        store4(C, M, N, row0 + r, col0 + c, s, vec_ok);
    }
    cluster_sync(); // no block leaves (freeing its shared memory) while another still reads it
}
#endif

// the K slices of a tile: one cluster (grid z = SPLITK)
#if SPLITK > 1
#define CLUSTER_DIMS __cluster_dims__(1, 1, SPLITK)
#else
#define CLUSTER_DIMS
#endif
extern "C" __global__ void CLUSTER_DIMS __launch_bounds__(NT, MINB)
    matmul_tf32(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C,
                int M, int N, int K,
                const float *__restrict__ bias)
{
    (void)bias; // NULL: the bias epilogue is for fp16 and bf16 (plugins/matmul/matmul.h)
    DYNAMIC_SHARED(char, smem);
    static_assert(WN % 32 == 0 && WM % 16 == 0 && (BK == 16 || BK == 32), "see the top");
    const int tid = threadIdx.x, warp = tid >> 5;
    const int wm0 = (warp / (BN / WN)) * WM, wn0 = (warp % (BN / WN)) * WN;

    // this block's tile: GROUP_M tile rows at a time, walked column by column
    const int tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN;
    const int pid = blockIdx.x, in_group = GROUP_M * tiles_n;
    const int first_m = (pid / in_group) * GROUP_M, group_m = min(tiles_m - first_m, GROUP_M);
    const int pid_m = first_m + (pid % in_group) % group_m, pid_n = (pid % in_group) / group_m;
    const int row0 = pid_m * BM, col0 = pid_n * BN;

#ifdef CUTUNE_DTYPE_FP32
    if (K < SMALL_K) { // uniform over the launch: no block reaches a cluster barrier
        if (blockIdx.z == 0)
            small_k(A, B, C, M, N, K, row0, col0, tid);
        return;
    }
#endif

    // this block's K range: whole BK steps, SPLITK slices (a slice may be empty)
    const int steps = (K + BK - 1) / BK, per = (steps + SPLITK - 1) / SPLITK;
    const int kbeg = (int)blockIdx.z * per * BK, kend = min(K, kbeg + per * BK);
    const int nsteps = kend > kbeg ? (kend - kbeg + BK - 1) / BK : 0;

    float acc[MI][NI][4];
    for_each_acc([&](int i, int j, int q) { acc[i][j][q] = 0.0f; });

    // 16-byte copies need every row of A and B to start on 16 bytes
    const bool aligned = (K & 3) == 0 && (((unsigned long long)A | (unsigned long long)B) & 15) == 0
#ifdef CUTUNE_LAYOUT_NN
                         && (N & 3) == 0
#endif
        ;
    if (aligned)
        main_loop<true>(smem, A, B, M, N, K, row0, col0, kbeg, kend, nsteps, tid, wm0, wn0, acc);
    else
        main_loop<false>(smem, A, B, M, N, K, row0, col0, kbeg, kend, nsteps, tid, wm0, wn0, acc);

    // VEC-wide stores of C need rows and the pointer aligned to VEC floats
    const bool vec_ok = (N % VEC) == 0 && ((unsigned long long)C % (4 * VEC)) == 0;
#if SPLITK > 1
    reduce_cluster(smem, acc, C, M, N, row0, col0, wm0, wn0, tid, vec_ok);
#else
    for_each_run(tid & 31, [&](int i, int h, int q, int r, int c) {
        const float v[4] = {acc[i][4 * h][q], acc[i][4 * h + 1][q], acc[i][4 * h + 2][q],
                            acc[i][4 * h + 3][q]};
        store4(C, M, N, row0 + wm0 + r, col0 + wn0 + c, v, vec_ok);
    });
#endif
}
