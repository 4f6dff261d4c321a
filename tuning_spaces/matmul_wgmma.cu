// matmul_wgmma: C = A * B (layout nn) or C = A * B^T (layout nt) in FP16 or BF16 on the Hopper
// tensor cores through wgmma.mma_async (sm_90a only), FP32 accumulation, one rounding of the
// output to the 16-bit type (round to nearest even). Row-major everywhere: A is M x K, B is
// K x N (nn) or N x K (nt, what PyTorch's F.linear(x, W) computes), C is M x N.
//
// Float32 in and out, layouts nn and nt, in two more variants on this file:
//   CUTUNE_DTYPE_TF32  matmul_wgmma_tf32.ini: wgmma .tf32 (k8) on the floats as they are.
//   CUTUNE_DTYPE_FP32  matmul_wgmma_3xtf32.ini: FP32 through 3xTF32 (SPLIT3 below).
// wgmma reads 32-bit operands K-major only (the PTX ISA gives .tf32 no transpose), and nn's B
// (K x N, N contiguous) is MN-major: in floats the producer transposes it in shared memory
// (TRANSPOSE_B below), or with SWAP = 1 (matmul_wgmma_tf32_nn.ini, matmul_wgmma_3xtf32_nn.ini)
// the consumers take B into registers and compute C^T = B^T A^T (SWAP below). Everything
// below is in bytes where it can be: a K-major row of a swizzle block is 64 or 128 bytes (16
// or 32 floats), a wgmma K step 32 bytes (8 floats, 16 halves).
//
// 3xTF32 (SPLIT3). Each stage holds, after the data, a second buffer of the same layout. Once a
// stage's copies have landed, the producer thread that copied each 16-byte chunk splits it:
// hi = x rounded to TF32 in place, lo = (x - hi) rounded to TF32 into the second buffer, so
// that x = hi + lo + e with |e| <= 2^-22 |x|, and both are exact TF32 values whatever wgmma
// does with an operand's low 13 bits. No barrier among the producer's threads is needed (a
// thread splits what it copied); it splits LAG = STAGES - 2 steps behind its copies (a
// cp.async group a step), so that the consumers have the stage before to work on meanwhile.
// The consumers then sum, for every 16 of K (two wgmma K steps of 8), lo_a hi_b, hi_a lo_b and
// hi_a hi_b from zero into a step sum d (scale-d 0 on the first), and add d to the FP32
// accumulators with FADDs, rounded to nearest: matmul_tf32.cu explains why this order keeps
// the error below cuBLAS SGEMM's, where an accumulator that the tensor cores update all along
// K (rounding toward zero) drifts. The cost: twice the shared memory a stage, twice the
// accumulator registers (a consumer owns at most 64 x 128 or 128 x 64), three wgmma a K step,
// the split (a 16-byte load, 8 cvt, 2 stores per chunk, in the producer warpgroup, with
// shared memory's bandwidth), and a wgmma.wait for each step sum before its FADDs, which a
// second consumer warpgroup (or block) covers. Below K = 64 the op's FP32 bound is tighter
// than 3xTF32's error: the variant's space starts at K = 64.
//
// nn in floats (TRANSPOSE_B). The producer copies B's K step as it is, 16 bytes (4 floats
// along N at one k) a thread, 8 threads across 128 contiguous bytes of a row of B, but parks
// each chunk in the K-major tile, in a chunk that the same warp's floats will fill; once its
// copies have landed (LAG steps behind, as 3xTF32's split, with which it is one pass) each
// thread reads its chunks back, its warp syncs, and it writes its 4 floats to their K-major
// places, 4 bytes each (3xTF32: split into hi and lo there). The warp's reads and writes
// cover the same 512 bytes, so no staging area is needed, and a rotation of each thread's 4
// floats keeps the 4-byte writes free of bank conflicts (TCopies says how). Then B is K-major
// as in nt, and the consumers are nt's. The cost is shared memory's bandwidth: B's bytes are
// read and written once more in each stage. With TMA = 1 one producer thread moves A's boxes
// (its expect_tx one more arrival on full[s]) and the threads copy and transpose B.
//
// nn in floats with the operands swapped (SWAP = 1). A register operand of wgmma has no
// K-major rule: the consumers compute C^T = B^T A^T, wgmma's A (64 x 8, in registers) a piece
// of B^T that each thread loads from B's MN-major tile with two 8-byte loads, wgmma's B A's
// K-major tile through the descriptor that is A's without SWAP. B stays in shared memory as
// 16-bit nn keeps it (bytes are bytes: BN / 32 blocks of 32 floats by BK k-rows, 128-byte
// swizzle), copied by cp.async or TMA (boxes of 32 floats by BK), and nothing is transposed. A
// consumer issues BN / 64 m64nWk8 wgmma a K step of 8, W = WG_M (its rows of C: wgmma's N);
// the accumulators hold C^T, as many as without SWAP. The rows of wgmma's A are permuted (a
// row of C^T is a column of C, wherever the epilogue stores it) so that fragment rows r and
// r + 8 are adjacent columns (one 8-byte load) and a half-warp's loads hit every bank once
// (consume_swap says how). A wgmma reads its register operand until it completes: the
// fragments are double-buffered across K steps, a commit group each. 3xTF32: the producer
// splits A's tile alone (a stage holds A's lo parts after B's tile, not B's), the consumers
// split B's fragments in registers, and the three products and their step sums are as below
// (lo_b hi_a, hi_b lo_a, hi_b hi_a); it copies with cp.async only (as 3xTF32 does). The
// epilogue stores C from the accumulators, 8 bytes (two columns) at a time: VEC 2 only.
//
// The core defines exactly one of CUTUNE_DTYPE_FP16 / _BF16 / _TF32 / _FP32, one of
// CUTUNE_LAYOUT_NN / CUTUNE_LAYOUT_NT, CUTUNE_EPILOGUE_BIAS for the bias epilogue (C = A B +
// bias: bias[c], the kernel's seventh argument, NULL otherwise, is added to the FP32 sum of
// column c before the one rounding, in every epilogue path), and every tunable parameter as
// a -D macro:
//   BM, BN, BK    the block tile: BM in {64, 128, 256}, BN in {64, 128, 256}, BK in {32, 64, 128}
//                 (16-bit types) or {16, 32, 64} (floats): 64, 128 or 256 bytes of K
//   CONSUMERS     consumer warpgroups (1 or 2)
//   SCHEDULE      0: a block per tile; 1: persistent blocks (as many as run at once) walk the
//                 tiles, the consumers sharing each tile, BM / CONSUMERS rows each; 2:
//                 persistent ping-pong: the two consumers take turns, a whole tile each, so
//                 that one's epilogue overlaps the other's wgmma (CUTLASS's two Hopper kernel
//                 schedules, "cooperative" and "ping-pong")
//   STAGES        depth of the shared-memory pipeline (>= 2)
//   CLUSTER_M/_N  thread block cluster shape (1 or 2): the blocks of a cluster take adjacent
//                 tiles and run at the same time on one GPC (with MCAST = 1 they share loads)
//   GROUP_M       block rasterisation: GROUP_M rows of clusters are walked column by column
//   VEC           output elements a thread stores at once (2: straight from the
//                 accumulators; 4 or 8: through shared memory, 8 or 16-byte stores; floats:
//                 2 or 4)
//   MINB          blocks per SM the registers must allow (__launch_bounds__)
//   SWAP          1: nn in floats as C^T = B^T A^T (above); 0 or undefined: not
//   TMA           loads: 0 cp.async by the producer's 128 threads, 1 TMA boxes by one of them
//                 (not 3xTF32; TF32 nn: A's only, with SWAP both; where it is defined at
//                 all, the kernel takes the two tensor maps after its six arguments, as the
//                 INI's [tensor_map.*] sections give them)
//   MCAST         1: TMA multicast within a cluster of two (16-bit types, TMA = 1, SCHEDULE 0,
//                 whole clusters; "Multicast" below); 0 or undefined: none
//
// It is compiled by NVRTC with no include path, so it needs no header: the 16-bit type is
// plain unsigned short storage, and conversions, copies, barriers and tensor-core work are
// inline PTX. wgmma and setmaxnreg exist only on sm_90a (the "a" features of compute
// capability 9.0): compiled for anything else the file stops with an #error.
//
// How a block works: warp specialisation. Warpgroup 0 (128 threads) is the producer: it only
// copies the K steps' A and B tiles from global to shared memory, up to STAGES steps ahead.
// Warpgroups 1..CONSUMERS are the consumers: they only issue wgmma on the tiles in shared
// memory, each for its rows of the BM x BN tile (ping-pong: for whole tiles in turn), with
// the accumulators in registers, and store C. The two sides hand the STAGES buffers back and
// forth through two mbarriers a stage: full[s] completes when the producer's copies of the
// step have landed, empty[s] when every consumer warp is done reading it. setmaxnreg moves
// registers from the producer (which needs few) to the consumers (which hold up to 128
// accumulators a thread). The persistent schedules keep the stages one ring over all the
// block's tiles, so that the producer loads the next tile while the consumers store the last
// one; in ping-pong a third pair of mbarriers passes the turn between the two consumers.
//
// Loads: cp.async, or TMA (TMA = 1). With cp.async the producer's 128 threads copy 16 bytes
// each (zero-filled outside the matrix) straight into the layouts wgmma's shared-memory
// descriptors describe, and cp.async.mbarrier.arrive.noinc makes each thread's copies of a
// step one arrival on full[s] when they land. With TMA one producer thread moves each step in
// a few boxes (cp.async.bulk.tensor.2d), through the tensor maps tmA and tmB that the core
// encodes on the host from A and B (the INI's [tensor_map.*] sections: dims, box, swizzle),
// and full[s] completes when the boxes' bytes have landed (mbarrier.arrive.expect_tx, then
// complete_tx): the copy engine writes the same swizzled layouts, fills what lies outside the
// matrix with zeros, and takes the address arithmetic off 127 threads. A K-major tile (A,
// nt's B) is BK * ES / RB boxes of RB bytes by its rows, swizzled by RB; nn's B is BN / 64
// boxes of 64 columns (128 bytes) by BK k-rows, swizzled by 128 bytes. TMA needs rows of a
// multiple of 16 bytes and 16-byte aligned A and B: the core encodes the maps only where
// K % CE == 0 and N % 8 == 0 (`when`) and the pointers are aligned, which is exactly when this
// kernel uses them (else it copies with cp.async, or takes the guarded path below). TF32's nn
// has no map of B (its producer's threads copy and transpose B) but with SWAP, where B's boxes
// are 32 floats (128 bytes) wide. Without MCAST a cluster only places adjacent tiles on one
// GPC at the same time; with it the two blocks of a cluster share the operand they have in
// common (below).
//
// Multicast (MCAST = 1: 16-bit types, TMA, a block a tile, clusters of two). The two tiles of a
// cluster adjacent along N (CLUSTER_N = 2) read the same rows of A, along M (CLUSTER_M = 2)
// the same columns of B: each block's producer loads half of that operand's tile, in boxes of
// half the rows (A, nt's B: BM / 2 or BN / 2 rows; nn's B: BK / 2 k-rows; the INI's boxes say
// so), and multicasts it (cp.async.bulk.tensor ... .multicast::cluster, ctaMask 0b11) to the
// same offset of both blocks' stage, where it completes the transaction bytes of full[s] at
// the same offset too; the other operand it loads whole, for itself. A half is a multiple of
// 8 rows (at least 16) and starts on a multiple of the swizzle pattern's 1024 (512) bytes,
// so it lands swizzled as a whole box would. So:
// - full[s]: still one arrival (the producer's expect_tx of the whole stage's bytes), and
//   the peer's half counts towards those bytes (it may land before the expect_tx: the
//   pending arrival keeps the phase open meanwhile).
// - empty[s]: a stage is written by both producers, so either may refill it only once both
//   blocks' consumers are done with it: each consumer warp arrives on empty[s] of its own block
//   and of the peer (mapa, mbarrier.arrive at its default .release.cta, as CUTLASS's
//   ClusterBarrier::arrive does: with .release.cluster every config ran 1.3-1.8x slower on an
//   H200, bench/RESULTS.md, "TMA multicast"), and empty[s] counts twice the
//   warps. Neither side can run a phase ahead: a block's consumers release step t + STAGES
//   only after the peer's half of it landed, which the peer's producer sent only after its own
//   empty[s] had completed the phase of step t.
// - after mbarrier.init a cluster barrier (barrier.cluster.arrive.release, wait.acquire)
//   instead of __syncthreads, so that no multicast or remote arrival reaches a barrier not yet
//   made; before exit another, so that no block leaves while the peer's consumers can still
//   arrive on its barriers (every multicast into a block has landed once its consumers saw
//   their last full[s]).
// Where the maps are zeros (TMA's `when` is 0, or unaligned pointers: cp.async), or the tile
// grid does not divide into clusters (a partial one would leave a half unsent), the kernel
// does without multicast: each block loads both halves for itself, the barriers count one
// block, and there is no cluster barrier.
//
// Shared-memory layouts (PTX ISA, "Shared Memory Matrix Layout" of wgmma; CUTLASS calls them
// GMMA::Layout_K_SW128_Atom and friends). A and nt's B are K-major: a tile of R rows is
// blocks of R rows of RB bytes (RB = 128, or 64 when a K step is 64 bytes), and the 16-byte
// chunk c of row r sits at chunk c ^ ((r * RB / 128) % (RB / 16)) of its row:
// the 128-byte (64-byte) swizzle, whose pattern repeats every 8 rows, so 8-row groups are
// 1024 (512) bytes apart (the descriptor's stride byte offset). nn's B in 16-bit types (K x
// N in global memory, N contiguous) is MN-major: BN / 64 blocks of BK rows (one a k) of 64
// elements, chunk c of row k at c ^ (k % 8); the leading byte offset is the distance between
// the 64-column blocks (BK * 128) and the stride byte offset that between 8-k groups (1024),
// and wgmma reads B transposed (imm-trans-b = 1); in floats nn's B is K-major as nt's (the
// producer transposes it), or with SWAP MN-major as in 16-bit types, 32 floats a block,
// which only the consumers' loads read. Stage buffers start on 1024 bytes, where the swizzle
// pattern starts. One wgmma K step (16 halves, 8 floats) is a descriptor whose start address
// moves 32 bytes within a K-major row (4 steps a 128-byte block), or 2048 bytes (16 rows) in
// 16-bit nn's B. The same bytes hold for floats (CUTLASS's SW128 K-major atom for tf32 is 8 rows of
// 32).
//
// Ragged sizes (every M, N, K >= 1 is valid). Copies of rows or chunks outside the matrix
// read nothing and zero-fill (cp.async's src-size 0), so edge tiles run the same wgmma. The
// 16-byte copies need rows that start on 16 bytes: K % 8 == 0 (floats: K % 4 == 0; and N the
// same for nn's B) and 16-byte aligned A and B. When that does not hold, the producer takes
// the guarded path: element loads with bounds, a 16-byte shared store (3xTF32: split at
// once; nn in floats: 4 k of a column of B, as the K-major tile holds them),
// fence.proxy.async (the stores are the generic proxy's, wgmma reads through the async
// proxy) and a plain arrival on full[s].
// Stores of C are guarded per element and are 4, 8 or 16 bytes wide only where the row and
// the pointer allow.
//
// Rasterisation. Block b is rank b % (CLUSTER_M * CLUSTER_N) of cluster b / (CLUSTER_M *
// CLUSTER_N) (then of every gridDim.x / (CLUSTER_M * CLUSTER_N)-th cluster after it, when
// persistent); clusters cover CLUSTER_M x CLUSTER_N tiles and are numbered GROUP_M cluster
// rows at a time, column by column (Triton's grouped ordering), so that the blocks running at
// one time share A row panels and B column panels in L2. Tiles of a partial cluster past the
// matrix are skipped.

#if defined(CUTUNE_DTYPE_FP16) + defined(CUTUNE_DTYPE_BF16) + defined(CUTUNE_DTYPE_TF32) + \
        defined(CUTUNE_DTYPE_FP32) != \
    1
#error "matmul_wgmma: define exactly one of CUTUNE_DTYPE_FP16, _BF16, _TF32 and _FP32"
#endif
#if defined(CUTUNE_LAYOUT_NN) == defined(CUTUNE_LAYOUT_NT)
#error "matmul_wgmma: define exactly one of CUTUNE_LAYOUT_NN and CUTUNE_LAYOUT_NT"
#endif
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error "matmul_wgmma: wgmma and setmaxnreg need sm_90a (compile with --gpu-architecture=sm_90a)"
#endif

#ifndef CUTUNE_HALF_T
#define CUTUNE_HALF_T unsigned short
#endif
typedef CUTUNE_HALF_T half_t; // fp16 or bf16 bits
#if defined(CUTUNE_DTYPE_TF32) || defined(CUTUNE_DTYPE_FP32)
#define ES 4 // bytes of an element
typedef float elem_t;
#else
#define ES 2
typedef half_t elem_t;
#endif
#ifdef CUTUNE_DTYPE_FP32
#define SPLIT3 1 // 3xTF32: the producer splits each stage into hi and lo parts
#else
#define SPLIT3 0
#endif
#ifndef SWAP
#define SWAP 0 // nn in floats with the operands swapped (see above)
#endif
#if SWAP && !(ES == 4 && defined(CUTUNE_LAYOUT_NN))
#error "matmul_wgmma: SWAP = 1 is nn in floats (TF32, 3xTF32) only"
#endif
#if ES == 4 && defined(CUTUNE_LAYOUT_NN) && !SWAP
#define TRANSPOSE_B 1 // nn's B in floats: the producer transposes it to K-major in place
#else
#define TRANSPOSE_B 0
#endif
// the producer post-processes each landed stage (split, transpose) before it signals it full
#define POST (SPLIT3 || TRANSPOSE_B)
#ifdef TMA
#define TMA_ARGS 1 // the kernel takes the tensor maps (whatever TMA is)
#else
#define TMA 0
#define TMA_ARGS 0
#endif
#if TMA && SPLIT3
#error "matmul_wgmma: 3xTF32 splits what the producer's threads copied: TMA = 0 only"
#endif
#ifndef MCAST
#define MCAST 0 // no multicast (every variant but matmul_wgmma.ini's MCAST = 1)
#endif
#if MCAST && !(TMA && ES == 2 && CLUSTER_M * CLUSTER_N == 2 && SCHEDULE == 0)
#error "matmul_wgmma: MCAST = 1 takes TMA = 1, 16-bit types, a cluster of two and SCHEDULE 0"
#endif
// Multicast: the boxes of each operand's rows, 2 for the one the cluster's blocks share (A
// along N, B along M: a half a block), else 1
#define A_SPLIT (MCAST && CLUSTER_N == 2 ? 2 : 1)
#define B_SPLIT (MCAST && CLUSTER_M == 2 ? 2 : 1)
// A CUtensorMap as the kernel receives it: 128 opaque bytes on 64 (the driver's layout; the
// kernel only passes its address to cp.async.bulk.tensor). kemu brings its own.
#ifndef CUTUNE_TENSOR_MAP
struct alignas(64) cutune_tensor_map {
    unsigned long long opaque[16];
};
#define CUTUNE_TENSOR_MAP cutune_tensor_map
#endif
#define CE (16 / ES) // elements of a 16-byte chunk
#define WK (32 / ES) // K of one wgmma: 16 (16-bit types) or 8 (TF32), 32 bytes of a K-major row

#define NT ((CONSUMERS + 1) * 128) // threads: the producer warpgroup and the consumers
#define WG_M (SCHEDULE == 2 ? BM : BM / CONSUMERS) // rows of a consumer warpgroup's tile
#define MI (WG_M / 64)                             // m64 wgmma a consumer issues per K step of 16
// A consumer's wgmma of a K step: NI of them, m64nWNk8 (the accumulators: NI x WN / 2 a
// thread); without SWAP one for each 64 of its rows, N the tile's BN; with SWAP (C^T = B^T
// A^T) one for each 64 of the tile's columns, N its WG_M rows.
#if SWAP
#define NI (BN / 64)
#define WN WG_M
#else
#define NI MI
#define WN BN
#endif
#define RB (BK * ES < 128 ? BK * ES : 128) // bytes of a K-major row of a swizzle block
#define A_BYTES (BM * BK * ES)
#define B_BYTES (BN * BK * ES)
// 3xTF32: the lo parts (A's, then B's; SWAP: A's alone) after the stage's data, which becomes
// the hi parts
#define LO_OFF (A_BYTES + B_BYTES)
#if SWAP
#define STAGE_BYTES (A_BYTES * (SPLIT3 ? 2 : 1) + B_BYTES)
#else
#define STAGE_BYTES ((A_BYTES + B_BYTES) * (SPLIT3 ? 2 : 1))
#endif
#define PIPE_BYTES (STAGES * STAGE_BYTES)
#define EPI_BYTES (VEC > 2 ? BM * BN * ES : 0) // the rounded tile (VEC > 2)
// with one tile a block, the rounded tile goes over the stages; the persistent schedules
// keep a buffer of their own (one a consumer warpgroup in ping-pong), as the producer is
// filling the stages with the next tile meanwhile
#define DATA_BYTES \
    (SCHEDULE == 0 ? (PIPE_BYTES > EPI_BYTES ? PIPE_BYTES : EPI_BYTES) \
                   : PIPE_BYTES + (SCHEDULE == 2 ? 2 : 1) * EPI_BYTES)
// must match the INI's [launch] shared: 1024 to align the stages, the data, the mbarriers
#define SHARED_BYTES (1024 + DATA_BYTES + 16 * STAGES + 16)

// Registers. __launch_bounds__(NT, MINB) gives every thread LAUNCH_REGS (what MINB blocks leave
// of the SM's 64 Ki, in steps of 8, at most 255). With more than 256 threads on an SM that is
// too few for the consumers' accumulators, so the producer gives registers back
// (setmaxnreg.dec to PRODUCER_REGS) and the consumers take them (setmaxnreg.inc to
// CONSUMER_REGS). The two add up to exactly what the block holds: setmaxnreg.inc waits until
// the registers it asks for are free, and waits forever if they never are. The consumers
// leave the producer 40 a thread, 56 where it transposes nn's B (TRANSPOSE_B: the places and
// the rotation of its floats; with 40 or 48 ptxas spills a few): the INIs' `registers`
// constraint counts 40, which admits the same configs (a consumer needs 72, 104, 168 or 296,
// and gets 96, 216 or 232 with 40, 88, 200 or 224 with 56).
#define LAUNCH_REGS_ (65536 / (NT * MINB) / 8 * 8)
#define LAUNCH_REGS (LAUNCH_REGS_ > 255 ? 255 : LAUNCH_REGS_)
#define REALLOC (NT * MINB > 256)
#define PRODUCER_MIN (TRANSPOSE_B ? 56 : 40)
#define CONSUMER_REGS ((LAUNCH_REGS * (CONSUMERS + 1) - PRODUCER_MIN) / CONSUMERS / 8 * 8)
#define PRODUCER_REGS (LAUNCH_REGS * (CONSUMERS + 1) - CONSUMERS * CONSUMER_REGS)

static_assert(CONSUMERS == 1 || CONSUMERS == 2, "one or two consumer warpgroups");
static_assert(SCHEDULE >= 0 && SCHEDULE <= 2 && (SCHEDULE < 2 || CONSUMERS == 2),
              "SCHEDULE: 0 a tile a block, 1 persistent, 2 persistent ping-pong of two consumers");
static_assert(WG_M == 64 || WG_M == 128, "a consumer owns 64 or 128 rows (one or two m64 wgmma)");
static_assert(BN == 64 || BN == 128 || BN == 256, "BN is the wgmma's N: 64, 128 or 256");
static_assert(
    BK * ES == 64 || BK * ES == 128 || BK * ES == 256,
    "BK is 64, 128 or 256 bytes of K: one 64-byte swizzle block, one or two 128-byte ones");
static_assert(STAGES >= 2, "a pipeline of two stages at least");
static_assert((VEC == 2 || VEC == 4 || VEC == 8) && VEC * ES <= 16,
              "VEC is 2, 4 or 8, at most 16 bytes");
static_assert(!SWAP || VEC == 2, "SWAP stores C straight from the accumulators: VEC 2");
static_assert(!REALLOC ||
                  (PRODUCER_REGS >= 24 && CONSUMER_REGS <= 256 &&
                   PRODUCER_REGS * 128 + CONSUMER_REGS * 128 * CONSUMERS == LAUNCH_REGS * NT),
              "setmaxnreg's registers add up to the block's");

#ifndef DYNAMIC_SHARED // tests/kemu (kernels run on the CPU) brings its own
#define DYNAMIC_SHARED(type, name) extern __shared__ __align__(16) type name[]
#endif

#ifndef CUTUNE_KEMU
#if ES == 4
#define WG_TYPE "tf32"
#define WG_TRANS "" // 32-bit operands: no transpose immediates, both K-major
#elif defined(CUTUNE_DTYPE_BF16)
#define WG_TYPE "bf16"
#else
#define WG_TYPE "f16"
#endif
#if ES == 4
#elif defined(CUTUNE_LAYOUT_NN)
#define WG_TRANS ", 0, 1" // A K-major, B MN-major in shared memory (transposed)
#else
#define WG_TRANS ", 0, 0"
#endif

__device__ __forceinline__ unsigned smem_addr(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}
// 16 bytes from global to shared, of which the first `bytes` are read and the rest zeroed
// (0: nothing is read, so src may then lie outside the matrix)
__device__ __forceinline__ void cp_async16(unsigned dst, const void *src, int bytes)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(bytes)
                 : "memory");
}
// one arrival on the mbarrier once this thread's cp.async so far have landed (.noinc: the
// arrival is one of the count the barrier was made with)
__device__ __forceinline__ void cp_async_arrive(unsigned bar)
{
    asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(bar) : "memory");
}
__device__ __forceinline__ void cp_async_wait_all()
{
    asm volatile("cp.async.wait_all;\n" ::: "memory");
}
// 3xTF32's producer tracks its copies by groups (a group a K step) instead
__device__ __forceinline__ void cp_async_commit()
{
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}
template <int N_> __device__ __forceinline__ void cp_async_wait()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N_) : "memory");
}
// x rounded to TF32 (to nearest, ties away from zero: the low 13 bits are then zero)
__device__ __forceinline__ float to_tf32(float x)
{
    unsigned r;
    asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
    return __uint_as_float(r);
}
// 16 bytes of shared memory at a, and 4 to it (TRANSPOSE_B's transposition). Volatile and
// "memory": the order with __syncwarp, and with the other threads' accesses, is the point.
__device__ __forceinline__ void lds128(unsigned (&r)[4], unsigned a)
{
    asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(a)
                 : "memory");
}
__device__ __forceinline__ void sts32(unsigned a, float v)
{
    asm volatile("st.shared.f32 [%0], %1;\n" ::"r"(a), "f"(v) : "memory");
}
// 8 bytes of shared memory at a (SWAP's fragments of B), after the wait for the stage
__device__ __forceinline__ void lds64(unsigned &x, unsigned &y, unsigned a)
{
    asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];\n" : "=r"(x), "=r"(y) : "r"(a) : "memory");
}
__device__ __forceinline__ void mbar_init(unsigned bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
// the inits, seen by the other threads' (and the copies') mbarrier operations after a barrier
__device__ __forceinline__ void mbar_init_fence()
{
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}
__device__ __forceinline__ void mbar_arrive(unsigned bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
// until the phase of the given parity has completed (try_wait suspends the thread a while
// in hardware before it reports false)
__device__ __forceinline__ void mbar_wait(unsigned bar, unsigned parity)
{
    unsigned done;
    do {
        asm volatile("{\n.reg .pred p;\n"
                     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                     "selp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(done)
                     : "r"(bar), "r"(parity)
                     : "memory");
    } while (!done);
}
// this thread's shared-memory accesses of the generic proxy (stores, and what cp.async wrote
// that an acquire made visible) ordered with those of the async proxy (wgmma's reads)
__device__ __forceinline__ void fence_proxy_async()
{
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}
#if TMA
// one arrival on the mbarrier that also expects `bytes` more of copies (complete_tx) before
// its phase completes
__device__ __forceinline__ void mbar_expect_tx(unsigned bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes)
                 : "memory");
}
// the box at coordinates (x, y) (innermost first, in elements) of the tensor map into shared
// memory at dst, its bytes counted on the mbarrier bar when they land
__device__ __forceinline__ void tma_load(unsigned dst, const CUTUNE_TENSOR_MAP *map, unsigned bar,
                                         int x, int y)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%3, %4}], [%2];\n" ::"r"(dst),
                 "l"((unsigned long long)map), "r"(bar), "r"(x), "r"(y)
                 : "memory");
}
#if MCAST
// tma_load's box into shared memory at dst's offset in every block of the cluster that mask
// names (bit r: rank r), its bytes counted on the mbarrier at bar's offset in each
__device__ __forceinline__ void tma_load_mcast(unsigned dst, const CUTUNE_TENSOR_MAP *map,
                                               unsigned bar, int x, int y, unsigned short mask)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
                 ".multicast::cluster [%0], [%1, {%4, %5}], [%2], %3;\n" ::"r"(dst),
                 "l"((unsigned long long)map), "r"(bar), "h"(mask), "r"(x), "r"(y)
                 : "memory");
}
// one arrival on the mbarrier at bar's offset in block `rank` of the cluster (the peer's
// producer then overwrites the stage; the consumers' wgmma reads of it are done, waited for)
__device__ __forceinline__ void mbar_arrive_cluster(unsigned bar, unsigned rank)
{
    asm volatile("{\n.reg .b32 r;\nmapa.shared::cluster.u32 r, %0, %1;\n"
                 "mbarrier.arrive.shared::cluster.b64 _, [r];\n}\n" ::"r"(bar),
                 "r"(rank)
                 : "memory");
}
// every thread of the cluster, those that have not exited (not .aligned: a warp may arrive
// diverged)
__device__ __forceinline__ void cluster_barrier()
{
    asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;\n" ::: "memory");
}
#endif
#endif
template <int R> __device__ __forceinline__ void setmaxnreg_dec()
{
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(R));
}
template <int R> __device__ __forceinline__ void setmaxnreg_inc()
{
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(R));
}
__device__ __forceinline__ void wgmma_fence()
{
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void wgmma_commit()
{
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
template <int N_> __device__ __forceinline__ void wgmma_wait()
{
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N_) : "memory");
}
// The compiler may not move reads or writes of the accumulators across this point: wgmma
// writes them asynchronously, behind the compiler's back, until wgmma_wait says it is done.
__device__ __forceinline__ void acc_fence(float (&d)[WN / 2])
{
#pragma unroll
    for (int i = 0; i < WN / 2; i++)
        asm volatile("" : "+f"(d[i])::"memory");
}
// (the operand lists are laid out by hand, by decades as the register names are)
// clang-format off
// d (a 64 x BN fragment, BN / 2 floats a thread) += A (64 x WK) * B (WK x BN), both in shared
// memory as the descriptors da and db describe (SCALE_D 0: d = A * B). The register list is
// written out: a literal "%0, %1, ..." built from decades (WG_R10(t): %t0 .. %t9) and the
// operands to match; then the descriptors and scale-d.
#define WG_R10(t) \
    "%" #t "0, %" #t "1, %" #t "2, %" #t "3, %" #t "4, " \
    "%" #t "5, %" #t "6, %" #t "7, %" #t "8, %" #t "9"
#define WG_F10(t) \
    "+f"(d[t##0]), "+f"(d[t##1]), "+f"(d[t##2]), "+f"(d[t##3]), "+f"(d[t##4]), "+f"(d[t##5]), \
        "+f"(d[t##6]), "+f"(d[t##7]), "+f"(d[t##8]), "+f"(d[t##9])
// scale-d is a predicate (true: D = A * B + D); the immediates: scale A and B by 1, and for
// 16-bit types A not transposed (K-major), B transposed for nn (32-bit types have no
// transpose: both K-major)
#if ES == 4
#define WG_K "8"
#else
#define WG_K "16"
#endif
#define WG_ASM(n, regs, da, db, sd) \
    "{\n.reg .pred p;\nsetp.ne.b32 p, " sd ", 0;\n" \
    "wgmma.mma_async.sync.aligned.m64n" #n "k" WG_K ".f32." WG_TYPE "." WG_TYPE " {" regs \
    "}, " da ", " db ", p, 1, 1" WG_TRANS ";\n}\n"
template <int SCALE_D>
__device__ __forceinline__ void wgmma_step(float (&d)[WN / 2], unsigned long long da,
                                           unsigned long long db)
{
#if WN == 64
    asm volatile(WG_ASM(64, WG_R10() ", " WG_R10(1) ", " WG_R10(2) ", %30, %31", "%32", "%33", "%34")
                 : WG_F10(), WG_F10(1), WG_F10(2), "+f"(d[30]), "+f"(d[31])
                 : "l"(da), "l"(db), "n"(SCALE_D));
#elif WN == 128
    asm volatile(WG_ASM(128,
                        WG_R10() ", " WG_R10(1) ", " WG_R10(2) ", " WG_R10(3) ", " WG_R10(4) ", "
                            WG_R10(5) ", %60, %61, %62, %63",
                        "%64", "%65", "%66")
                 : WG_F10(), WG_F10(1), WG_F10(2), WG_F10(3), WG_F10(4), WG_F10(5), "+f"(d[60]),
                   "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                 : "l"(da), "l"(db), "n"(SCALE_D));
#else
    asm volatile(WG_ASM(256,
                        WG_R10() ", " WG_R10(1) ", " WG_R10(2) ", " WG_R10(3) ", " WG_R10(4) ", "
                            WG_R10(5) ", " WG_R10(6) ", " WG_R10(7) ", " WG_R10(8) ", " WG_R10(9)
                                ", " WG_R10(10) ", " WG_R10(11)
                                    ", %120, %121, %122, %123, %124, %125, %126, %127",
                        "%128", "%129", "%130")
                 : WG_F10(), WG_F10(1), WG_F10(2), WG_F10(3), WG_F10(4), WG_F10(5), WG_F10(6),
                   WG_F10(7), WG_F10(8), WG_F10(9), WG_F10(10), WG_F10(11), "+f"(d[120]),
                   "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]),
                   "+f"(d[126]), "+f"(d[127])
                 : "l"(da), "l"(db), "n"(SCALE_D));
#endif
}
#if SWAP
// d (64 x WN) += A (64 x 8, in registers: a, the .tf32 fragment, PTX ISA "Register Fragments
// and Shared Memory Matrix Layouts" of wgmma) * B (8 x WN in shared memory, the descriptor db,
// K-major). A register operand has no transpose immediate.
#define WG_ASM_R(n, regs, a, db, sd) \
    "{\n.reg .pred p;\nsetp.ne.b32 p, " sd ", 0;\n" \
    "wgmma.mma_async.sync.aligned.m64n" #n "k8.f32.tf32.tf32 {" regs "}, {" a "}, " db \
    ", p, 1, 1;\n}\n"
template <int SCALE_D>
__device__ __forceinline__ void wgmma_step_r(float (&d)[WN / 2], const unsigned (&a)[4],
                                             unsigned long long db)
{
#if WN == 64
    asm volatile(WG_ASM_R(64, WG_R10() ", " WG_R10(1) ", " WG_R10(2) ", %30, %31",
                          "%32, %33, %34, %35", "%36", "%37")
                 : WG_F10(), WG_F10(1), WG_F10(2), "+f"(d[30]), "+f"(d[31])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "n"(SCALE_D));
#else
    asm volatile(WG_ASM_R(128,
                          WG_R10() ", " WG_R10(1) ", " WG_R10(2) ", " WG_R10(3) ", " WG_R10(4) ", "
                              WG_R10(5) ", %60, %61, %62, %63",
                          "%64, %65, %66, %67", "%68", "%69")
                 : WG_F10(), WG_F10(1), WG_F10(2), WG_F10(3), WG_F10(4), WG_F10(5), "+f"(d[60]),
                   "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "n"(SCALE_D));
#endif
}
#endif
// clang-format on
#if ES == 2
// lo and hi rounded to the 16-bit type (to nearest, ties to even), lo in the low half
__device__ __forceinline__ unsigned pack2(float lo, float hi)
{
    unsigned r;
    asm("cvt.rn." WG_TYPE "x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
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
#endif
#endif

// A shared-memory matrix descriptor (PTX ISA, "Matrix Descriptor Format"): the start
// address, the leading and stride byte offsets (all in 16-byte units, 14 bits each) and the
// swizzle mode in bits 62-63 (1: 128-byte, 2: 64-byte).
__device__ __forceinline__ unsigned long long desc_make(unsigned addr, unsigned lbo, unsigned sbo,
                                                        unsigned mode)
{
    return (unsigned long long)((addr >> 4) & 0x3fff) |
           (unsigned long long)((lbo >> 4) & 0x3fff) << 16 |
           (unsigned long long)((sbo >> 4) & 0x3fff) << 32 | (unsigned long long)mode << 62;
}
#define K_MODE (RB == 128 ? 1u : 2u) // the K-major swizzle: 128 or 64 bytes
// wgmma K step ks (WK wide: 32 bytes of a row) of rows r0.. of a K-major tile of R rows at
// shared address t (the leading byte offset is unused by swizzled K-major layouts: 16, as
// CUTLASS sets it)
template <int R> __device__ __forceinline__ unsigned long long desc_k(unsigned t, int r0, int ks)
{
    return desc_make(t + (ks / (RB / 32)) * R * RB + r0 * RB + (ks % (RB / 32)) * 32, 16, 8 * RB,
                     K_MODE);
}
#if defined(CUTUNE_LAYOUT_NN) && !TRANSPOSE_B
__device__ __forceinline__ unsigned long long desc_b(unsigned t, int ks)
{
    return desc_make(t + ks * 2048, BK * 128, 1024, 1u); // MN-major, 128-byte swizzle
}
#else
__device__ __forceinline__ unsigned long long desc_b(unsigned t, int ks)
{
    return desc_k<BN>(t, 0, ks);
}
#endif

// The byte of chunk c (16 bytes, CE elements along K) of row r in a K-major tile of R rows.
template <int R> __device__ __forceinline__ int k_chunk(int r, int c)
{
    return (c / (RB / 16)) * R * RB + r * RB +
           (((c % (RB / 16)) ^ ((r * RB / 128) % (RB / 16))) * 16);
}
// The byte of chunk c (16 bytes: 8 elements along N, or 4 floats) of k-row r in nn's MN-major B
// tile (16-bit types, and floats with SWAP): blocks of 128 bytes of N by BK k-rows.
__device__ __forceinline__ int mn_chunk(int r, int c)
{
    return (c / 8) * BK * 128 + r * 128 + (((c % 8) ^ (r % 8)) * 16);
}

// ---- the producer ---------------------------------------------------------------------------

#if SPLIT3
// 3xTF32's split of the 16-byte chunk at p (4 floats x): hi = x rounded to TF32 in place, lo =
// x - hi (exact in float32) rounded to TF32 at p + LO_OFF. Both are TF32 values, so wgmma
// reads them as they are, whatever it does with the low 13 bits of an operand; x = hi + lo + e
// with |e| <= 2^-22 |x| (lo has 13 significant bits at most and |lo| <= 2^-11 |x|).
__device__ __forceinline__ void split_chunk(char *p)
{
    float4 x = *reinterpret_cast<const float4 *>(p), lo;
    x.x = to_tf32(lo.x = x.x), x.y = to_tf32(lo.y = x.y), x.z = to_tf32(lo.z = x.z),
    x.w = to_tf32(lo.w = x.w);
    lo.x = to_tf32(lo.x - x.x), lo.y = to_tf32(lo.y - x.y), lo.z = to_tf32(lo.z - x.z),
    lo.w = to_tf32(lo.w - x.w);
    *reinterpret_cast<float4 *>(p) = x;
    *reinterpret_cast<float4 *>(p + LO_OFF) = lo;
}
#endif
// The guarded path's chunk v to p (3xTF32: split, as split_chunk does)
__device__ __forceinline__ void put_chunk(char *p, uint4 v)
{
    *reinterpret_cast<uint4 *>(p) = v;
#if SPLIT3
    split_chunk(p);
#endif
}

// The copies one producer thread p makes of a K-major tile of R rows (first row g0 of a
// matrix of `rows` rows, leading dimension K): 16-byte chunk c of row r, then every RSTEP
// rows below (COPIES of them), of which the first `valid` lie inside the matrix. RSTEP is a
// multiple of 8 rows, so every copy has the same swizzle and the shared address moves by a
// constant.
template <int R> struct KCopies {
    static constexpr int CPR = BK * ES / 16, RSTEP = 128 / CPR, COPIES = R * CPR / 128;
    const elem_t *src; // chunk c of row g0 + r
    int dst, c, valid;
    __device__ __forceinline__ KCopies(const elem_t *X, int g0, int rows, int K, int p)
    {
        const int r = p / CPR;
        c = p % CPR;
        src = X + (size_t)(g0 + r) * K + c * CE;
        dst = k_chunk<R>(r, c);
        const int left = rows - g0 - r; // rows of the matrix from this thread's first
        valid = left <= 0 ? 0 : min(COPIES, (left + RSTEP - 1) / RSTEP);
    }
    // the step [k0, k0 + BK) into the tile at shared address t
    __device__ __forceinline__ void issue(unsigned t, int K, int k0) const
    {
        static_assert(RSTEP % 8 == 0, "a thread's copies are a multiple of 8 rows apart");
        const bool kin = k0 + c * CE < K; // K % CE == 0: a chunk is all inside or all outside
#pragma unroll
        for (int i = 0; i < COPIES; i++)
            cp_async16(t + dst + i * RSTEP * RB, src + k0 + (size_t)i * RSTEP * K,
                       kin && i < valid ? 16 : 0);
    }
#if SPLIT3
    // 3xTF32: the chunks producer thread p copies into the tile at st (of any tile: they
    // depend on p alone), split in place into their hi parts and their lo parts LO_OFF on
    static __device__ __forceinline__ void split(char *st, int p)
    {
#pragma unroll
        for (int i = 0; i < COPIES; i++)
            split_chunk(st + k_chunk<R>(p / CPR, p % CPR) + i * RSTEP * RB);
    }
#endif
};

#if defined(CUTUNE_LAYOUT_NN) && !TRANSPOSE_B
// nn's B: chunk c (CE columns) of k-row r of the tile, then every RSTEP k-rows below. With
// RSTEP = 4 (16-bit BN = 256, float BN = 128) every other copy is 4 rows off the swizzle
// period: two shared addresses, by the parity of the copy; with RSTEP = 2 (float BN = 256),
// four, by the copy modulo 4 (PH: the phases, two where one would do).
struct MNCopies {
    static constexpr int CPR = BN / CE, RSTEP = 128 / CPR, COPIES = BK * CPR / 128,
                         PH = RSTEP >= 4 ? 2 : 8 / RSTEP;
    const elem_t *src; // chunk c of row r of B, from column col0
    int dst[PH], r, cin;
    __device__ __forceinline__ MNCopies(const elem_t *B, int col0, int N, int p)
    {
        r = p / CPR;
        const int c = p % CPR;
        src = B + (size_t)r * N + col0 + c * CE;
        dst[0] = mn_chunk(r, c);
        dst[1] = mn_chunk(r + RSTEP, c) - RSTEP * 128;
#pragma unroll
        for (int j = 2; j < PH; j++)
            dst[j] = mn_chunk(r + j * RSTEP, c) - j * RSTEP * 128;
        cin = col0 + c * CE < N; // N % CE == 0: all inside or all outside
    }
    __device__ __forceinline__ void issue(unsigned t, int N, int K, int k0) const
    {
#pragma unroll
        for (int i = 0; i < COPIES; i++)
            cp_async16(t + dst[i % PH] + i * RSTEP * 128, src + (size_t)(k0 + i * RSTEP) * N,
                       cin && k0 + r + i * RSTEP < K ? 16 : 0);
    }
};
#endif

#if TRANSPOSE_B
// A float of nn's B at shared address a of its K-major tile (3xTF32: split, as split_chunk
// does, the lo part LO_OFF on)
__device__ __forceinline__ void put_word(unsigned a, float x)
{
#if SPLIT3
    const float hi = to_tf32(x);
    sts32(a, hi);
    sts32(a + LO_OFF, to_tf32(x - hi));
#else
    sts32(a, x);
#endif
}

// nn's B in floats, which wgmma reads K-major only (B is K x N, N contiguous): copied as it
// is, then transposed in place by the threads that copied it. A unit is 4 k-rows by 32
// columns of a K step (32 chunks of 4 floats), one cp.async of a warp: lane l copies chunk
// l % 8 of k-row l / 8 (8 lanes read 128 contiguous bytes of a row of B). The unit's floats
// belong in 32 chunks of the K-major tile too: k-chunk kg (its 4 k) of the rows n = 32 ng ..
// 32 ng + 31 (its columns); lane l parks its copy in the one of row 32 ng + l. Once its copies
// have landed (the producer's LAG), each lane reads its parked chunk, the warp syncs (the
// unit's chunks are all read before any is overwritten), and each lane writes its floats (k,
// n0 + e), n0 = 32 ng + 4 (l % 8), e < 4, to element k % 4 of k-chunk kg of row n0 + e: the
// same bytes, so no staging area. Warp w copies the units (kg, ng) = (w + 4 m, ng), m < BK /
// 16, ng < BN / 32.
//
// Bank conflicts (32 banks of 4 bytes; 8 lanes' 16-byte accesses take one pass when their
// 16-byte groups of banks differ; the K-major swizzle is k_chunk's):
// - the copies, and the reads of the parked chunks (16 bytes): a quarter-warp parks in 8
//   consecutive rows, a swizzle period (RB 128) or two of 4 groups (RB 64): 8 groups.
// - the transposed stores (4 bytes): float (k, n) lands in bank 4 (kg % 8 ^ n % 8) + k % 4
//   (RB 128) or 16 (n % 2) + 4 (kg ^ n / 2 % 4) + k % 4 (RB 64). The 8 lanes of one k-row (k %
//   4 = l / 8) store to rows n0 + e, in different banks when the (n0 + e) % 8 differ, i.e.
//   when lanes of the same column parity (n0 % 8 = 4 (l % 2)) store different floats e: at
//   store j a lane stores its float e = (j + rot) % 4, rot = (l % 8) / 2 (its 4 registers
//   rotated by 8 selects), and a warp's 32 stores hit 32 banks.
// So each float of B is read and written once more (3xTF32: hi and lo, as the split does
// anyway) at shared memory's full bandwidth: 2 x BN x BK x 4 bytes a K step.
struct TCopies {
    static constexpr int MS = BK / 16, COPIES = (BK / 16) * (BN / 32); // m < MS, copy i: ng, m
    static_assert(MS == 1 || RB == 128,
                  "kg = w + 4 m: chunk w + 4 (m % 2) of 128-byte block m / 2");
    const float *src; // the thread's chunk of unit (w, 0): k-row 4 w + l / 8, column 4 (l % 8)
    int park, kr, cl; // where it parks in unit (w, 0); its k-row; columns left from its own
    __device__ __forceinline__ TCopies(const float *B, int col0, int N, int p)
    {
        const int w = p / 32, l = p % 32;
        kr = 4 * w + l / 8;
        src = B + (size_t)kr * N + col0 + 4 * (l % 8);
        cl = N - col0 - 4 * (l % 8);
        park = k_chunk<BN>(l, w);
    }
    // Copy i is of unit (w + 4 m, ng), m = i % MS, ng = i / MS: ng * 32 rows and m / 2 swizzle
    // blocks from unit (w, 0), and for odd m in chunk w + 4 of a 128-byte row, not w: each
    // byte's place in unit (w, 0) with bit 6 flipped (w < 4). The tiles and the units start
    // on 1024 bytes, so the flip may be applied to a shared address too.
    static __device__ constexpr int unit_off(int i)
    {
        return (i % MS / 2) * BN * RB + (i / MS) * 32 * RB;
    }
    static __device__ constexpr int unit_flip(int i)
    {
        return (i % MS % 2) * 64;
    }
    __device__ __forceinline__ void issue(unsigned t, int N, int K, int k0) const
    {
        const float *s = src + (size_t)k0 * N;
        const int krows = K - k0 - kr; // k-rows of B from the thread's first
#pragma unroll
        for (int m = 0; m < MS; m++, s += (size_t)16 * N)
#pragma unroll
            for (int ng = 0; ng < BN / 32; ng++)
                cp_async16(t + unit_off(ng * MS + m) + (park ^ unit_flip(ng * MS + m)), s + 32 * ng,
                           16 * m < krows && 32 * ng < cl ? 16 : 0); // N % 4 == 0
    }
    // the units producer thread p copied into the tile at t (of any tile), transposed
    static __device__ __forceinline__ void transpose(unsigned t, int p)
    {
        const int w = p % 128 / 32, l = p % 32, rot = l % 8 / 2;
        const int parked = k_chunk<BN>(l, w); // in unit (w, 0)
        int to[4];                            // float j's place after the rotation, unit (w, 0)
#pragma unroll
        for (int j = 0; j < 4; j++)
            to[j] = k_chunk<BN>(4 * (l % 8) + ((j + rot) & 3), w) + 4 * (l / 8);
#pragma unroll
        for (int i = 0; i < COPIES; i++) {
            const unsigned u = t + unit_off(i);
            unsigned v[4];
            lds128(v, (u + parked) ^ unit_flip(i));
            __syncwarp(); // the unit's chunks are all read before any is overwritten
            // x[j] = v[(j + rot) % 4]: rotated by 1, then by 2
            unsigned y[4], x[4];
#pragma unroll
            for (int j = 0; j < 4; j++)
                y[j] = rot & 1 ? v[(j + 1) & 3] : v[j];
#pragma unroll
            for (int j = 0; j < 4; j++)
                x[j] = rot & 2 ? y[(j + 2) & 3] : y[j];
#pragma unroll
            for (int j = 0; j < 4; j++)
                put_word((u + to[j]) ^ unit_flip(i), __uint_as_float(x[j]));
        }
    }
};
#endif

// CE elements of row r of X (leading dimension ld) from column c (the next every cs
// elements), zeros where r >= rows or a column >= cols, read one by one (the guarded path:
// rows not 16-byte aligned; TRANSPOSE_B reads B's columns as rows, with cs = N).
__device__ __forceinline__ uint4 chunk_guarded(const elem_t *__restrict__ X, int r, int c, int rows,
                                               int cols, int ld, int cs = 1)
{
    union {
        elem_t e[CE];
        uint4 v;
    } w;
    w.v = make_uint4(0u, 0u, 0u, 0u);
    if (r < rows) {
        const elem_t *q = X + (size_t)r * ld + (long long)c * cs;
#pragma unroll
        for (int j = 0; j < CE; j++)
            if (c + j < cols)
                w.e[j] = q[(long long)j * cs];
    }
    return w.v;
}

// The step [k0, k0 + BK) into stage st (at smem) on the guarded path: chunk e of a tile is
// chunk e % CPR of row e / CPR, chunks p, p + 128, ... are thread p's.
__device__ __forceinline__ void stage_guarded(char *st, const elem_t *__restrict__ A,
                                              const elem_t *__restrict__ B, int M, int N, int K,
                                              int row0, int col0, int k0, int p)
{
    for (int e = p; e < BM * BK / CE; e += 128) {
        const int r = e / (BK / CE), c = e % (BK / CE);
        put_chunk(st + k_chunk<BM>(r, c), chunk_guarded(A, row0 + r, k0 + c * CE, M, K, K));
    }
    for (int e = p; e < BN * BK / CE; e += 128) {
#ifdef CUTUNE_LAYOUT_NT
        const int r = e / (BK / CE), c = e % (BK / CE);
        put_chunk(st + A_BYTES + k_chunk<BN>(r, c),
                  chunk_guarded(B, col0 + r, k0 + c * CE, N, K, K));
#elif TRANSPOSE_B
        // column r of B as row r of the K-major tile: consecutive threads read consecutive
        // columns (coalesced), and a quarter-warp's 16-byte stores go to 8 consecutive rows
        const int r = e % BN, c = e / BN;
        put_chunk(st + A_BYTES + k_chunk<BN>(r, c),
                  chunk_guarded(B, col0 + r, k0 + c * CE, N, K, 1, N));
#else
        const int r = e / (BN / CE), c = e % (BN / CE); // SWAP: not split (B's are in registers)
        uint4 *dst = reinterpret_cast<uint4 *>(st + A_BYTES + mn_chunk(r, c));
        *dst = chunk_guarded(B, k0 + r, col0 + c * CE, K, N, N);
#endif
    }
}

// The full and empty mbarriers of stage s (after the data), and the ping-pong consumers' turns
#define FULL(s) (bars + 8 * (s))
#define EMPTY(s) (bars + 8 * (STAGES + (s)))
#define TURN(wg) (bars + 8 * (2 * STAGES + (wg)))

// ---- the tiles ------------------------------------------------------------------------------

// Tile i of this block: SCHEDULE 0 has one (i = 0), the persistent schedules every
// gridDim.x / CS-th cluster from the block's own. Clusters of CLUSTER_M x CLUSTER_N tiles are
// numbered GROUP_M cluster rows at a time, column by column; the block is rank b % CS of its
// cluster. Returns END past the last, SKIP for a tile of a partial cluster outside the matrix
// (both sides of the pipeline skip it alike), else TILE with the tile's first row and column.
enum { END, SKIP, TILE };
#define CS (CLUSTER_M * CLUSTER_N)
__device__ __forceinline__ int tile_of(int i, int M, int N, int &row0, int &col0)
{
    const int tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN;
    const int sup_m = (tiles_m + CLUSTER_M - 1) / CLUSTER_M;
    const int sup_n = (tiles_n + CLUSTER_N - 1) / CLUSTER_N;
    const int cl = (int)blockIdx.x / CS + i * (int)(gridDim.x / CS), rank = (int)blockIdx.x % CS;
    if ((SCHEDULE == 0 && i > 0) || cl >= sup_m * sup_n)
        return END;
    const int in_group = GROUP_M * sup_n;
    const int first_m = (cl / in_group) * GROUP_M, group_m = min(sup_m - first_m, GROUP_M);
    const int sm = first_m + (cl % in_group) % group_m, sn = (cl % in_group) / group_m;
    row0 = (sm * CLUSTER_M + rank % CLUSTER_M) * BM;
    col0 = (sn * CLUSTER_N + rank / CLUSTER_M) * BN;
    return row0 < M && col0 < N ? TILE : SKIP;
}

// ---- the producer ---------------------------------------------------------------------------

// The stages are one ring over all the block's tiles: K step t of the block's n-th tile is
// step n * nsteps + t of the ring, in stage (step % STAGES), its (step / STAGES)-th use.
struct Ring {
    int s, use;
    __device__ __forceinline__ explicit Ring(int step) : s(step % STAGES), use(step / STAGES)
    {
    }
    __device__ __forceinline__ void next()
    {
        if (++s == STAGES)
            s = 0, use++;
    }
};

// Warpgroup 0: every K step of every tile into the stages, waiting for a stage's release
// (empty) before it is filled again; each thread's copies of a step are one arrival on the
// stage's full barrier.
//
// 3xTF32 (SPLIT3) splits, and nn in floats (TRANSPOSE_B) transposes, each stage once its
// copies have landed, before it arrives on full (POST): each thread the chunks it copied
// itself (no barrier among the producer's threads; the transposition syncs each warp), LAG
// steps behind its copies (a cp.async group a step), so that the copies of LAG + 1 steps are
// in flight while the consumers have the stage before the one it works on.
#define LAG (STAGES - 2)
#if POST
// The stage of step `lag`, whose copies of this thread have landed: 3xTF32 splits A's chunks
// and B's, TRANSPOSE_B transposes B's units (split in 3xTF32), each thread what it copied
__device__ __forceinline__ void post_stage(char *smem, unsigned base, unsigned bars, Ring &lag,
                                           int p)
{
    (void)smem, (void)base; // the transposition takes shared addresses, the split pointers
#if SPLIT3
    KCopies<BM>::split(smem + lag.s * STAGE_BYTES, p);
#endif
#if TRANSPOSE_B
    TCopies::transpose(base + lag.s * STAGE_BYTES + A_BYTES, p);
#elif !SWAP // SWAP: B is split in the consumers' registers
    KCopies<BN>::split(smem + lag.s * STAGE_BYTES + A_BYTES, p);
#endif
    fence_proxy_async(); // the stores, before wgmma reads them
    mbar_arrive(FULL(lag.s));
    lag.next();
}
#endif
#if TMA
// Box h of the SPLIT boxes an operand's rows are in (SPLIT 2: the halves of the operand the
// cluster's blocks share) at (x, y) into dst, counted on full; with multicast (mc) only the
// block of rank h loads it, into both blocks of the cluster
template <int SPLIT>
__device__ __forceinline__ void tma_part(unsigned dst, const CUTUNE_TENSOR_MAP *m, unsigned full,
                                         int x, int y, int h, bool mc)
{
#if MCAST
    if (SPLIT == 2 && mc) {
        if (h == (int)blockIdx.x % 2)
            tma_load_mcast(dst, m, full, x, y, 0x3);
        return;
    }
#else
    (void)h, (void)mc;
#endif
    tma_load(dst, m, full, x, y);
}
// A's boxes of the step from k0 of the tile from row0 into the stage at st, counted on full
// (A_SPLIT 2: each of BM / 2 rows, one of them this block's to multicast where mc)
__device__ __forceinline__ void tma_a(unsigned st, const CUTUNE_TENSOR_MAP *ma, unsigned full,
                                      int k0, int row0, bool mc)
{
#pragma unroll
    for (int j = 0; j < BK * ES / RB; j++)
#pragma unroll
        for (int h = 0; h < A_SPLIT; h++)
            tma_part<A_SPLIT>(st + j * BM * RB + h * (BM / A_SPLIT) * RB, ma, full,
                              k0 + j * (RB / ES), row0 + h * (BM / A_SPLIT), h, mc);
}
#endif
// TRANSPOSE_B with TMA (tma: the maps are there): thread 0 moves A's boxes through the map
// ma, expecting their bytes on full[s] as one more arrival; B is the threads' as without.
__device__ __forceinline__ void produce(char *smem, unsigned base, unsigned bars,
                                        const elem_t *__restrict__ A, const elem_t *__restrict__ B,
                                        int M, int N, int K, int nsteps, bool aligned, bool tma,
                                        const CUTUNE_TENSOR_MAP *ma, int p)
{
    (void)tma, (void)ma;
    Ring ring(0);
#if POST
    Ring lag(0);              // the next step to post-process
    int issued = 0, done = 0; // steps copied, and post-processed (the aligned path's)
#endif
    int row0, col0;
    for (int i = 0, r; (r = tile_of(i, M, N, row0, col0)) != END; i++) {
        if (r == SKIP)
            continue;
        if (aligned) {
            const KCopies<BM> ca(A, row0, M, K, p);
#ifdef CUTUNE_LAYOUT_NT
            const KCopies<BN> cb(B, col0, N, K, p);
#elif TRANSPOSE_B
            const TCopies cb(B, col0, N, p);
#else
            const MNCopies cb(B, col0, N, p);
#endif
            for (int t = 0; t < nsteps; t++, ring.next()) {
                if (ring.use > 0) // the consumers' release of the step STAGES before
                    mbar_wait(EMPTY(ring.s), (ring.use - 1) & 1);
                const unsigned st = base + ring.s * STAGE_BYTES;
                if (!(TMA && TRANSPOSE_B) || !tma)
                    ca.issue(st, K, t * BK);
#if TMA && TRANSPOSE_B
                else if (p == 0) {
                    mbar_expect_tx(FULL(ring.s), A_BYTES);
                    tma_a(st, ma, FULL(ring.s), t * BK, row0, false);
                }
#endif
#ifdef CUTUNE_LAYOUT_NT
                cb.issue(st + A_BYTES, K, t * BK);
#else
                cb.issue(st + A_BYTES, N, K, t * BK);
#endif
#if POST
                cp_async_commit();
                if (++issued - done > LAG) {
                    cp_async_wait<LAG>(); // this thread's copies of the step LAG before
                    post_stage(smem, base, bars, lag, p);
                    done++;
                }
#else
                cp_async_arrive(FULL(ring.s));
#endif
            }
        } else {
            for (int t = 0; t < nsteps; t++, ring.next()) {
                if (ring.use > 0)
                    mbar_wait(EMPTY(ring.s), (ring.use - 1) & 1);
                stage_guarded(smem + ring.s * STAGE_BYTES, A, B, M, N, K, row0, col0, t * BK, p);
                fence_proxy_async(); // the stores, before wgmma reads them
                mbar_arrive(FULL(ring.s));
            }
        }
    }
    cp_async_wait_all(); // none in flight when the thread leaves
#if POST
    for (; done < issued; done++) // the last LAG steps
        post_stage(smem, base, bars, lag, p);
#endif
}

#if TMA && !TRANSPOSE_B
// The producer with TMA (one thread): each K step of each tile in boxes, waiting for a
// stage's release (empty) before it is filled again; full[s] expects the step's bytes (the
// boxes' whole size: TMA counts the zeros it fills outside the matrix too; with multicast, mc,
// the peer's half of the shared operand among them, and this block's half lands in both).
__device__ __forceinline__ void produce_tma(unsigned base, unsigned bars,
                                            const CUTUNE_TENSOR_MAP *ma,
                                            const CUTUNE_TENSOR_MAP *mb, int M, int N, int nsteps,
                                            bool mc)
{
    Ring ring(0);
    int row0, col0;
    for (int i = 0, r; (r = tile_of(i, M, N, row0, col0)) != END; i++) {
        if (r == SKIP)
            continue;
        for (int t = 0; t < nsteps; t++, ring.next()) {
            if (ring.use > 0)
                mbar_wait(EMPTY(ring.s), (ring.use - 1) & 1);
            const unsigned st = base + ring.s * STAGE_BYTES, full = FULL(ring.s);
            const int k0 = t * BK;
            mbar_expect_tx(full, A_BYTES + B_BYTES);
            tma_a(st, ma, full, k0, row0, mc);
            // B_SPLIT 2: BN / 2 rows (nt), BK / 2 k-rows (nn) a box
#ifdef CUTUNE_LAYOUT_NT
#pragma unroll
            for (int j = 0; j < BK * ES / RB; j++)
#pragma unroll
                for (int h = 0; h < B_SPLIT; h++)
                    tma_part<B_SPLIT>(st + A_BYTES + j * BN * RB + h * (BN / B_SPLIT) * RB, mb,
                                      full, k0 + j * (RB / ES), col0 + h * (BN / B_SPLIT), h, mc);
#else
#pragma unroll
            for (int j = 0; j < BN * ES / 128; j++) // boxes of 128 bytes of N
#pragma unroll
                for (int h = 0; h < B_SPLIT; h++)
                    tma_part<B_SPLIT>(st + A_BYTES + j * BK * 128 + h * (BK / B_SPLIT) * 128, mb,
                                      full, col0 + j * (128 / ES), k0 + h * (BK / B_SPLIT), h, mc);
#endif
        }
    }
}
#endif

// ---- the consumers --------------------------------------------------------------------------

// A consumer warp's release of stage s (its lane 0's): one arrival on empty[s], and with
// multicast (mc) one on the peer block's empty[s] too, whose producer writes half of this
// block's stage
__device__ __forceinline__ void release(unsigned bars, int s, bool mc)
{
    mbar_arrive(EMPTY(s));
#if MCAST
    if (mc)
        mbar_arrive_cluster(EMPTY(s), (unsigned)blockIdx.x % 2 ^ 1);
#else
    (void)mc;
#endif
}

#if SWAP
// SWAP: the consumers compute C^T = B^T A^T, B^T's 64 x 8 pieces in registers (wgmma's A, read
// from nn's MN-major B tile with plain loads) and A's K-major tile as wgmma's B (its
// descriptor as A's without SWAP). The rows of the register operand may be any 64 columns of
// the tile's 64-column slab, in any order: a row of C^T is a column of C, and the epilogue
// stores each accumulator where its row says. So fragment rows r and r + 8 of warp w (lane
// 4 r + c holds a0 = (r, k c), a1 = (r + 8, k c), a2 = (r, k c + 4), a3 = (r + 8, k c + 4))
// are the adjacent columns p and p + 1: {a0, a1} is one 8-byte load of k-row c, {a2, a3} one
// of k-row c + 4. p = 32 (w / 2) + 4 ch + 2 (r % 2), ch = 2 (w % 2) + r / 4 + 4 ((r / 2) % 2):
// warps 0, 1 take the slab's first 32 columns (a 128-byte block of the tile), 2, 3 the
// others, and a half-warp's 16 loads of k-row c (c = 0..3) hit 16 different 8-byte slots of
// the 128 bytes, as chunk ch sits at ch ^ c (ch ^ (c + 4) for k-row c + 4): no bank
// conflicts (kemu checks them).
__device__ __forceinline__ int swap_col(int t) // t: the thread in its warpgroup; column p
{
    const int w = t / 32, r = t % 32 / 4;
    return 32 * (w / 2) + 4 * (2 * (w % 2) + r / 4 + 4 * (r / 2 % 2)) + 2 * (r % 2);
}
// The thread's fragment of wgmma K step ks, slab i (columns 64 i..) of the B tile at sb; off:
// the byte of its load of k-row c of slab 0, k step 0 (the swizzle's XOR is the same for every
// k step: k % 8 is c or c + 4)
__device__ __forceinline__ int swap_off(int t)
{
    const int c = t % 4, p = swap_col(t);
    return mn_chunk(c, p / 4) + (p % 4) * 4;
}
__device__ __forceinline__ void swap_frag(unsigned (&a)[4], unsigned sb, int off, int i, int ks)
{
    const unsigned at = sb + i * 2 * BK * 128 + ks * 8 * 128 + off;
    lds64(a[0], a[1], at);
    lds64(a[2], a[3], (at + 4 * 128) ^ 64); // k-row c + 4: the 16-byte chunk's bit 2 flipped
}
#if SPLIT3
// B's fragment x split into TF32 hi and lo parts in registers, as split_chunk does in shared
// memory
__device__ __forceinline__ void swap_split(unsigned (&hi)[4], unsigned (&lo)[4])
{
#pragma unroll
    for (int j = 0; j < 4; j++) {
        const float x = __uint_as_float(hi[j]), h = to_tf32(x);
        hi[j] = __float_as_uint(h), lo[j] = __float_as_uint(to_tf32(x - h));
    }
}
#endif
__device__ __forceinline__ void consume_swap(unsigned base, unsigned bars, int r0, int lane,
                                             Ring &ring, int nsteps, unsigned turn,
                                             float (&acc)[NI][WN / 2])
{
    const int off = swap_off(threadIdx.x % 128);
#if SPLIT3
    // 3xTF32 as without SWAP (see consume): for every 16 of K, lo_b hi_a, hi_b lo_a and
    // hi_b hi_a (register operand first) summed from zero into d, then d added to acc by FADDs
    float d[NI][WN / 2];
    for (int t = 0; t < nsteps; t++, ring.next()) {
        mbar_wait(FULL(ring.s), ring.use & 1);
        fence_proxy_async(); // what the producer wrote, to wgmma's (async) proxy
        const unsigned sa = base + ring.s * STAGE_BYTES, sb = sa + A_BYTES;
#pragma unroll
        for (int kp = 0; kp < BK / 16; kp++) {
            unsigned hi[2][NI][4], lo[2][NI][4];
#pragma unroll
            for (int kk = 0; kk < 2; kk++)
#pragma unroll
                for (int i = 0; i < NI; i++) {
                    swap_frag(hi[kk][i], sb, off, i, 2 * kp + kk);
                    swap_split(hi[kk][i], lo[kk][i]);
                }
            wgmma_fence(); // the fragments written, before the wgmma read them
#pragma unroll
            for (int i = 0; i < NI; i++)
#pragma unroll
                for (int kk = 0; kk < 2; kk++) {
                    const int ks = 2 * kp + kk;
                    const unsigned long long da = desc_k<BM>(sa, r0, ks),
                                             da_lo = desc_k<BM>(sa + LO_OFF, r0, ks);
                    if (kk == 0)
                        wgmma_step_r<0>(d[i], lo[kk][i], da);
                    else
                        wgmma_step_r<1>(d[i], lo[kk][i], da);
                    wgmma_step_r<1>(d[i], hi[kk][i], da_lo);
                    wgmma_step_r<1>(d[i], hi[kk][i], da);
                }
            wgmma_commit();
            wgmma_wait<0>();
#pragma unroll
            for (int i = 0; i < NI; i++) {
                acc_fence(d[i]);
#pragma unroll
                for (int j = 0; j < WN / 2; j++)
                    acc[i][j] += d[i][j];
            }
        }
        if (lane == 0)
            mbar_arrive(EMPTY(ring.s));
    }
    if (SCHEDULE == 2 && lane == 0)
        mbar_arrive(turn);
#else
    // Each wgmma K step (8 of K) is a commit group. A wgmma reads its register operand until
    // it completes, so the fragments are double-buffered: step ks loads fr[ks % 2] once the
    // wait after step ks - 1 has left that step's group alone in flight (the one before, the
    // last reader of fr[ks % 2], done), and that wait at a stage's first step also means the
    // stage before is done with: its release.
    unsigned fr[2][NI][4];
    int prev = 0;
    for (int t = 0; t < nsteps; t++, ring.next()) {
        mbar_wait(FULL(ring.s), ring.use & 1);
        fence_proxy_async(); // what the producer's copies wrote, to wgmma's (async) proxy
        const unsigned sa = base + ring.s * STAGE_BYTES, sb = sa + A_BYTES;
#pragma unroll
        for (int ks = 0; ks < BK / WK; ks++) {
#pragma unroll
            for (int i = 0; i < NI; i++)
                swap_frag(fr[ks % 2][i], sb, off, i, ks);
            wgmma_fence(); // the fragments written, before the wgmma read them
            const unsigned long long da = desc_k<BM>(sa, r0, ks);
#pragma unroll
            for (int i = 0; i < NI; i++)
                wgmma_step_r<1>(acc[i], fr[ks % 2][i], da);
            wgmma_commit();
            wgmma_wait<1>();
            if (ks == 0 && t > 0 && lane == 0)
                mbar_arrive(EMPTY(prev));
        }
        prev = ring.s;
    }
    if (SCHEDULE == 2 && lane == 0)
        mbar_arrive(turn);
    wgmma_wait<0>();
#pragma unroll
    for (int i = 0; i < NI; i++)
        acc_fence(acc[i]);
    if (lane == 0)
        mbar_arrive(EMPTY(prev));
#endif
}
#endif

// Consumer warpgroup wg: acc = its WG_M rows (from row r0 of the tile) over the K steps of a
// tile, from ring step `step`. Each K step's wgmma are one commit group; waiting until one
// group is left in flight means the step before is done reading its stage, which each warp's
// lane 0 then releases (empty: 4 arrivals a warpgroup), while this step's wgmma still run.
// The last stage is released once all are done. turn (ping-pong): the other consumer's turn
// barrier, on which each warp arrives once it has waited for its last stage. mc: multicast
// (16-bit types only), the releases are the peer block's too.
__device__ __forceinline__ void consume(unsigned base, unsigned bars, int r0, int lane, int step,
                                        int nsteps, unsigned turn, bool mc,
                                        float (&acc)[NI][WN / 2])
{
#pragma unroll
    for (int i = 0; i < NI; i++) {
#pragma unroll
        for (int j = 0; j < WN / 2; j++)
            acc[i][j] = 0.0f;
        acc_fence(acc[i]);
    }
    Ring ring(step);
#if SWAP || SPLIT3
    (void)mc;
#endif
#if SWAP
    consume_swap(base, bars, r0, lane, ring, nsteps, turn, acc);
#elif SPLIT3
    // 3xTF32: each 16 of K (two wgmma K steps of 8) summed from zero into d, the corrections
    // lo_a hi_b and hi_a lo_b of each K step of 8 before its main term hi_a hi_b, then d added
    // to acc by FADDs (rounded to nearest); matmul_tf32.cu says why this order. It waits for
    // each sum's wgmma before adding it: two consumer warpgroups (or two blocks an SM) keep
    // the tensor cores busy meanwhile.
    float d[MI][BN / 2];
    for (int t = 0; t < nsteps; t++, ring.next()) {
        mbar_wait(FULL(ring.s), ring.use & 1);
        fence_proxy_async(); // what the producer wrote, to wgmma's (async) proxy
        const unsigned sa = base + ring.s * STAGE_BYTES, sb = sa + A_BYTES;
#pragma unroll
        for (int kp = 0; kp < BK / 16; kp++) {
            wgmma_fence();
#pragma unroll
            for (int i = 0; i < MI; i++)
#pragma unroll
                for (int kk = 0; kk < 2; kk++) {
                    const int ks = 2 * kp + kk;
                    const unsigned long long da = desc_k<BM>(sa, r0 + i * 64, ks),
                                             da_lo = desc_k<BM>(sa + LO_OFF, r0 + i * 64, ks),
                                             db = desc_b(sb, ks), db_lo = desc_b(sb + LO_OFF, ks);
                    if (kk == 0)
                        wgmma_step<0>(d[i], da_lo, db);
                    else
                        wgmma_step<1>(d[i], da_lo, db);
                    wgmma_step<1>(d[i], da, db_lo);
                    wgmma_step<1>(d[i], da, db);
                }
            wgmma_commit();
            wgmma_wait<0>();
#pragma unroll
            for (int i = 0; i < MI; i++) {
                acc_fence(d[i]);
#pragma unroll
                for (int j = 0; j < BN / 2; j++)
                    acc[i][j] += d[i][j];
            }
        }
        if (lane == 0)
            mbar_arrive(EMPTY(ring.s));
    }
    if (SCHEDULE == 2 && lane == 0)
        mbar_arrive(turn);
#else
    int prev = 0;
    for (int t = 0; t < nsteps; t++, ring.next()) {
        mbar_wait(FULL(ring.s), ring.use & 1);
        fence_proxy_async(); // what the producer's copies wrote, to wgmma's (async) proxy
        const unsigned sa = base + ring.s * STAGE_BYTES, sb = sa + A_BYTES;
        wgmma_fence();
#pragma unroll
        for (int ks = 0; ks < BK / WK; ks++) {
            const unsigned long long db = desc_b(sb, ks);
#pragma unroll
            for (int i = 0; i < MI; i++)
                wgmma_step<1>(acc[i], desc_k<BM>(sa, r0 + i * 64, ks), db);
        }
        wgmma_commit();
        wgmma_wait<1>();
        if (t > 0 && lane == 0)
            release(bars, prev, mc);
        prev = ring.s;
    }
    if (SCHEDULE == 2 && lane == 0)
        mbar_arrive(turn);
    wgmma_wait<0>();
#pragma unroll
    for (int i = 0; i < MI; i++)
        acc_fence(acc[i]);
    if (lane == 0)
        release(bars, prev, mc);
#endif
}

// Output elements as 32-bit words: two 16-bit ones packed a word (rounded, lo in the low
// half), or one float a word. out2: two accumulators as WPE words.
#define WPE (ES / 2)
__device__ __forceinline__ void out2(float a, float b, unsigned (&w)[WPE])
{
#if ES == 2
    w[0] = pack2(a, b);
#else
    w[0] = __float_as_uint(a), w[WPE - 1] = __float_as_uint(b);
#endif
}
// BIASED(x, c): the accumulator x of column c as it is stored, plus bias[c] with the bias
// epilogue (0 past the last column, whose sums are not stored); x itself otherwise
#ifdef CUTUNE_EPILOGUE_BIAS
__device__ __forceinline__ float bias_at(const elem_t *__restrict__ bias, int N, int c)
{
#if ES == 2
    return c < N ? from16(bias[c]) : 0.0f;
#else
    return c < N ? bias[c] : 0.0f;
#endif
}
#define BIASED(x, c) ((x) + bias_at(bias, N, (c)))
#else
#define BIASED(x, c) (x)
#endif
// element j of the words w
template <int NW> __device__ __forceinline__ elem_t elem_of(const unsigned (&w)[NW], int j)
{
#if ES == 2
    return (elem_t)(w[j / 2] >> (16 * (j % 2)));
#else
    return __uint_as_float(w[j]);
#endif
}

// W consecutive elements (in words w) to row r, column c of C: one W * ES-byte store (an
// aligned struct of the words, st.global.v4 / .v2 / .u32) where all W are inside and aligned
// (vec_ok), else one element at a time as far as the row goes.
template <int W>
__device__ __forceinline__ void store_c(elem_t *__restrict__ C, int M, int N, int r, int c,
                                        const unsigned (&w)[W * ES / 4], bool vec_ok)
{
    struct alignas(W * ES) Words {
        unsigned u[W * ES / 4];
    };
    if (r >= M || c >= N)
        return;
    elem_t *q = C + (size_t)r * N + c;
    if (vec_ok && c + W <= N) {
        Words v;
#pragma unroll
        for (int j = 0; j < W * ES / 4; j++)
            v.u[j] = w[j];
        *reinterpret_cast<Words *>(q) = v;
    } else { // unrolled, so that w stays in registers (a loop bounded by N indexed it in
             // local memory, through which every store of the tile went)
#pragma unroll
        for (int j = 0; j < W; j++)
            if (c + j < N)
                q[j] = elem_of(w, j);
    }
}

// The threads that store a tile: every consumer (SCHEDULE 0, 1: the tile is theirs together),
// or the one warpgroup whose tile it is (ping-pong); barrier 1 (2 for the second warpgroup
// in ping-pong) is theirs, as barrier 0 is __syncthreads, which the producer never reaches.
#define EPI_THREADS (SCHEDULE == 2 ? 128 : CONSUMERS * 128)
__device__ __forceinline__ void epilogue_sync(int wg)
{
#ifndef CUTUNE_KEMU
    asm volatile("bar.sync %0, %1;\n" ::"r"(SCHEDULE == 2 ? 1 + wg : 1), "n"(EPI_THREADS)
                 : "memory");
#else
    epilogue_barrier(SCHEDULE == 2 ? wg : 0, EPI_THREADS);
#endif
}

// The accumulators' places (PTX ISA, wgmma's D fragment for .m64nNk16): warp w of the
// warpgroup holds rows 16 w .. 16 w + 15; lane 4 g + q holds, of columns 8 j .. 8 j + 7,
// columns 2 q and 2 q + 1 of rows g (acc[4 j], acc[4 j + 1]) and g + 8 (acc[4 j + 2], + 3).
// r0: the tile's row of the warpgroup's first; et: the thread among the EPI_THREADS.
__device__ __forceinline__ void epilogue(char *stage_out, const float (&acc)[NI][WN / 2],
                                         elem_t *__restrict__ C, const elem_t *__restrict__ bias,
                                         int M, int N, int row0, int col0, int r0, int wg, int et)
{
    (void)bias; // (read by BIASED with the bias epilogue)
    const int w = (et % 128) / 32, g = (et % 32) / 4, q = et % 4;
    // VEC-wide stores need rows and the pointer aligned to VEC elements
    const bool vec_ok = (N % VEC) == 0 && ((unsigned long long)C % (ES * VEC)) == 0;
#if SWAP
    // C^T's accumulators: row r (r + 8) of warp w's 16 is column p (p + 1) of C (swap_col), a
    // column of C^T a row of C. For each 8 columns j of C^T: rows 8 j + 2 q and + 1 of C, each
    // the pair of columns p, p + 1 (one 8-byte store)
    (void)stage_out, (void)wg, (void)w, (void)g;
    const int p = col0 + swap_col(et % 128);
#pragma unroll
    for (int i = 0; i < NI; i++)
#pragma unroll
        for (int j = 0; j < WN / 8; j++)
#pragma unroll
            for (int e = 0; e < 2; e++) {
                unsigned pair[WPE];
                out2(BIASED(acc[i][4 * j + e], p + 64 * i),
                     BIASED(acc[i][4 * j + 2 + e], p + 64 * i + 1), pair);
                store_c<2>(C, M, N, row0 + r0 + 8 * j + 2 * q + e, p + 64 * i, pair, vec_ok);
            }
#elif VEC == 2
    (void)stage_out, (void)wg;
#pragma unroll
    for (int i = 0; i < MI; i++)
#pragma unroll
        for (int j = 0; j < BN / 8; j++)
#pragma unroll
            for (int h = 0; h < 2; h++) {
                unsigned pair[WPE];
                const int c = col0 + 8 * j + 2 * q;
                out2(BIASED(acc[i][4 * j + 2 * h], c), BIASED(acc[i][4 * j + 2 * h + 1], c + 1),
                     pair);
                store_c<2>(C, M, N, row0 + r0 + w * 16 + g + i * 64 + 8 * h, c, pair, vec_ok);
            }
#else
    // Through shared memory (stage_out: over the stages when the tile is the block's only one,
    // else a buffer of its own): rows of BN elements, 16-byte chunk c of row r at c ^ (r % 8),
    // so that a warp's 4-byte fragment stores (8 rows x 4 lanes; 8-byte ones of floats: two
    // wavefronts, the least 256 bytes take) hit 32 banks and 8 lanes
    // reading 8 chunks of a row hit 8 different 16-byte bank groups. Then each thread stores
    // VEC consecutive elements of a row: whole 32-byte sectors per warp. The first barrier:
    // everyone's wgmma are done with the stages (SCHEDULE 0; the producer's last copies landed
    // before the last full barrier completed), and done reading the buffer (the tile before).
    auto at = [&](int r, int c) {
        return stage_out + (r * (BN / CE) + ((c / CE) ^ (r % 8))) * 16 + (c % CE) * ES;
    };
    epilogue_sync(wg);
    fence_proxy_async(); // wgmma's reads of the stages, before these stores to them
#pragma unroll
    for (int i = 0; i < MI; i++)
#pragma unroll
        for (int j = 0; j < BN / 8; j++)
#pragma unroll
            for (int h = 0; h < 2; h++) {
                struct alignas(2 * ES) Pair {
                    unsigned u[WPE];
                } pair;
                out2(BIASED(acc[i][4 * j + 2 * h], col0 + 8 * j + 2 * q),
                     BIASED(acc[i][4 * j + 2 * h + 1], col0 + 8 * j + 2 * q + 1), pair.u);
                *reinterpret_cast<Pair *>(
                    at(r0 + w * 16 + g + i * 64 + 8 * h, 8 * j + 2 * q)) = pair;
            }
    epilogue_sync(wg);
    constexpr int VPR = BN / VEC;
#pragma unroll 4
    for (int e = et; e < BM * VPR; e += EPI_THREADS) {
        const int r = e / VPR, c = (e % VPR) * VEC;
        constexpr int NW = VEC * ES / 4; // words: 4 or 2
        unsigned v[NW];
        if constexpr (NW == 4) {
            const uint4 x = *reinterpret_cast<const uint4 *>(at(r, c));
            v[0] = x.x, v[1 % NW] = x.y, v[2 % NW] = x.z, v[3 % NW] = x.w;
        } else {
            const uint2 x = *reinterpret_cast<const uint2 *>(at(r, c));
            v[0] = x.x, v[1 % NW] = x.y;
        }
        store_c<VEC>(C, M, N, row0 + r, col0 + c, v, vec_ok);
    }
#endif
}

// Consumer warpgroup wg over the block's tiles: with SCHEDULE 0 and 1 the warpgroups share
// each tile (rows wg * WG_M ..), with 2 (ping-pong) they take turns, a whole tile each, so
// that one's epilogue overlaps the other's wgmma; every tile moves the ring by nsteps.
// Ping-pong's turns: a consumer waits for its stages only once the other has waited for all
// of its tile's (TURN(wg) completes a phase each time). Besides keeping the two out of step,
// this keeps the parity waits sound: a full barrier may be waited on for its next phase
// only, never for one two phases ahead, which a consumer starting its tile early would do.
__device__ __forceinline__ void consumer(char *smem, unsigned base, unsigned bars,
                                         elem_t *__restrict__ C, const elem_t *__restrict__ bias,
                                         int M, int N, int nsteps, int ct, bool mc)
{
    const int wg = ct / 128;
    float acc[NI][WN / 2];
    int row0, col0, n = 0, k = 0; // n: the block's tiles so far; k: this warpgroup's
    for (int i = 0, r; (r = tile_of(i, M, N, row0, col0)) != END; i++) {
        if (r == SKIP)
            continue;
        if (SCHEDULE == 2 && n++ % 2 != wg)
            continue;
        const int step = (SCHEDULE == 2 ? n - 1 : n++) * nsteps;
        const int r0 = SCHEDULE == 2 ? 0 : wg * WG_M;
        if (SCHEDULE == 2 && (wg == 1 || k > 0)) // the other's tile before this one
            mbar_wait(TURN(wg), (wg == 1 ? k : k - 1) & 1);
        k++;
        consume(base, bars, r0, ct % 32, step, nsteps, TURN(1 - wg), mc, acc);
        char *out = SCHEDULE == 0 ? smem : smem + PIPE_BYTES + (SCHEDULE == 2 ? wg * EPI_BYTES : 0);
        epilogue(out, acc, C, bias, M, N, row0, col0, r0, wg, SCHEDULE == 2 ? ct % 128 : ct);
    }
}

#if CS > 1
#define CLUSTER_DIMS __cluster_dims__(CS, 1, 1)
#else
#define CLUSTER_DIMS
#endif
extern "C" __global__ void CLUSTER_DIMS __launch_bounds__(NT, MINB)
    matmul_wgmma(const elem_t *__restrict__ A, const elem_t *__restrict__ B, elem_t *__restrict__ C,
                 int M, int N, int K, const elem_t *__restrict__ bias
#if TMA_ARGS
                 ,
                 const __grid_constant__ CUTUNE_TENSOR_MAP tmA,
                 const __grid_constant__ CUTUNE_TENSOR_MAP tmB
#endif
    )
{
    DYNAMIC_SHARED(char, smem_raw);
    // the stages start on 1024 bytes, where the 128-byte swizzle's 8-row pattern starts
    const unsigned raw = smem_addr(smem_raw), base = (raw + 1023u) & ~1023u;
    char *smem = smem_raw + (base - raw);
    const unsigned bars = base + DATA_BYTES;
    const int tid = threadIdx.x;

    int row0, col0;
    if (SCHEDULE == 0 && tile_of(0, M, N, row0, col0) != TILE) // a block of a partial cluster
        return;
    const int nsteps = (K + BK - 1) / BK;
    // 16-byte copies need every row of A and B to start on 16 bytes
    const bool aligned = K % CE == 0 && (((unsigned long long)A | (unsigned long long)B) & 15) == 0
#ifdef CUTUNE_LAYOUT_NN
                         && N % CE == 0
#endif
        ;
    // where the core encodes the tensor maps (the INI's `when`, and aligned pointers)
    const bool use_tma = TMA && aligned && (N & 7) == 0;
    // multicast where the maps are there and the tiles fill whole clusters (see "Multicast"):
    // the same in both blocks of a cluster
    const bool mc = MCAST && use_tma && ((M + BM - 1) / BM) % CLUSTER_M == 0 &&
                    ((N + BN - 1) / BN) % CLUSTER_N == 0;
    if (tid == 0) {
        for (int s = 0; s < STAGES; s++) {
            // one arrival a producer thread, or TMA's one with the bytes it expects
            // (TRANSPOSE_B: TMA's for A and one a producer thread for B)
            mbar_init(FULL(s), use_tma ? 1 + 128 * TRANSPOSE_B : 128);
            // one a consumer warp (of the tile's; multicast: of both blocks' tiles)
            mbar_init(EMPTY(s), EPI_THREADS / 32 * (mc ? 2 : 1));
        }
        mbar_init(TURN(0), 4); // one a warp of the other consumer (ping-pong)
        mbar_init(TURN(1), 4);
        mbar_init_fence();
    }
#if MCAST
    if (mc) // the peer's barriers too are made before its multicasts and arrivals reach them
        cluster_barrier();
    else
#endif
        __syncthreads(); // the barriers are made before anyone uses them

    if (tid < 128) {
#if REALLOC
        setmaxnreg_dec<PRODUCER_REGS>();
#endif
        const CUTUNE_TENSOR_MAP *ma = nullptr; // TRANSPOSE_B's map of A
#if TMA && !TRANSPOSE_B
        if (use_tma) {
            if (tid == 0)
                produce_tma(base, bars, &tmA, &tmB, M, N, nsteps, mc);
#if MCAST
            if (mc) // the consumers' barrier before exit (below)
                cluster_barrier();
#endif
            return;
        }
#elif TMA
        ma = &tmA;
        (void)tmB; // TRANSPOSE_B: zeros (nn has no map of B)
#elif TMA_ARGS
        (void)tmA, (void)tmB; // TMA = 0: the maps are zeros, and unused
#endif
        produce(smem, base, bars, A, B, M, N, K, nsteps, aligned, use_tma, ma, tid);
    } else {
#if REALLOC
        setmaxnreg_inc<CONSUMER_REGS>();
#endif
        consumer(smem, base, bars, C, bias, M, N, nsteps, tid - 128, mc);
#if MCAST
        // no block leaves while the peer's consumers may still arrive on its empty barriers
        // (its multicasts into this block have all landed: the last full[s] saw them)
        if (mc)
            cluster_barrier();
#endif
    }
}
