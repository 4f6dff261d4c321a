/* Every shipped variant loads, with the version and the kernel source (hash) it had as a C
 * plugin, so that the trials in existing databases and the kernel cache stay its own; its
 * space has the expected number of valid configs (counted by hand, or for the large spaces
 * by an independent brute force over the same rules written here in C); and it passes what
 * `cutune check` checks: every valid config has a launch at every default size, the kernel
 * takes the op's arguments, and a seeded sample of its configs compiles with NVRTC for
 * sm_90. Needs no GPU. */
#include "check.h"
#include "compile.h"
#include "registry.h"
#include "space.h"
#include "tensor_maps.h"
#include "tmpdir.h"
#include "variant_check.h"

#include <dirent.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Valid configs under sm_90 limits, before problem-size constraints, counted by hand:
 * matmul_naive: BLOCK_X in {8..1024} (8), BLOCK_Y in {1..32} (6), 32 <= X*Y <= 1024:
 *   X=8: Y 4..32 (4); 16: 2..32 (5); 32: 1..32 (6); 64: 1..16 (5); 128: 1..8 (4);
 *   256: 1..4 (3); 512: 1..2 (2); 1024: 1 (1) -> 30 shapes. INDEXING 0 keeps all 30, INDEXING 1
 *   keeps Y == 1: X in {32..1024} -> 6. (30 + 6) * UNROLL{1,4} = 72.
 * matmul_tiled: TILE {8,16,32,64}, PAD {0,1}, WPT {1,2,4,8}, UNROLL {1..64} (7):
 *   TILE 8: threads 64/WPT >= 32 -> WPT {1,2}; UNROLL | 8 -> 4; 2*4*2 = 16
 *   TILE 16: WPT all 4 (256..32 threads); UNROLL 5; 4*5*2 = 40
 *   TILE 32: WPT all 4 (1024..128); UNROLL 6; 48
 *   TILE 64: threads 4096/WPT <= 1024 -> WPT {4,8}; UNROLL 7; 2*7*2 = 28  -> 132
 *   (shared 2*64*65*4 = 33280 bytes fits 48 KiB for every TILE)
 * axpy_template: BLOCK {64..1024} (5) x ITEMS (4) = 20. */
/* The memory-bound ops (issue 3):
 * matadd_2d: BLOCK_X = 2^a, BLOCK_Y = 2^b, a, b in 0..10, 4 <= 2^(a+b) <= 1024, i.e.
 *   2 <= a+b <= 10: pairs with a+b <= 10 are 11+10+...+1 = 66, less (0,0), (1,0), (0,1)
 *   -> 63 shapes, x VEC {1,4} = 126.
 * transpose_naive: BLOCK_X {8..128} (5), BLOCK_Y {1..32} (6), 32 <= X*Y <= 1024:
 *   X=8: Y 4..32 (4); 16: 2..32 (5); 32: 1..32 (6); 64: 1..16 (5); 128: 1..8 (4) -> 24,
 *   x ORDER {0,1} = 48.
 * transpose_tiled: block (TILE/VEC) x ROWS threads, 32..1024 of them, ROWS <= TILE:
 *   TILE 16: VEC 1 (x=16): ROWS 2..16 (4); VEC 2 (x=8): 4..16 (3); VEC 4 (x=4): 8..16 (2) -> 9
 *   TILE 32: VEC 1 (x=32): 1..32 (6); VEC 2 (x=16): 2..32 (5); VEC 4 (x=8): 4..32 (4) -> 15
 *   TILE 64: VEC 1 (x=64): 1..16 (5); VEC 2 (x=32): 1..32 (6); VEC 4 (x=16): 2..32 (5) -> 16
 *   40 x PAD {0,1} = 80 (the largest tile, 64*65*4 bytes, fits 48 KiB).
 * reduce_neighbored: BLOCK {64..1024} (5) x LESS_DIV (2) = 10.
 * reduce_interleaved: BLOCK (5) x UNROLL (5) x LAST_WARP (2) x COMPLETE (2) = 100, less
 *   COMPLETE=1 with LAST_WARP=0 (5*5 = 25) -> 75.
 * reduce_shuffle: BLOCK {128..1024} with BLOCK * BLOCKS_PER_SM <= 2048, BLOCKS_PER_SM {1..8}:
 *   128: 4; 256: 4; 512: {1,2,4} 3; 1024: {1,2} 2 -> 13, x ITEMS {1..8} (4) x VEC (2) = 104.
 * histogram_global: (BLOCK, BLOCKS_PER_SM) with BLOCK * BLOCKS_PER_SM <= 2048: 13, as above.
 * histogram_shared: the same 13 pairs; COPIES 32 needs BLOCKS_PER_SM * 33792 <= 233472, so
 *   BLOCKS_PER_SM <= 6: drops (128, 8) and (256, 8) -> 11; COPIES 1 and 8 keep all 13
 *   (8 * 9216 fits); (13 + 13 + 11) x ITEMS (2) x RLE (2) = 148.
 * topk_filter: BLOCK {128..1024}, ITEMS {1..8}, tile T = BLOCK * ITEMS <= 4096; BLOCKS_PER_SM
 *   {1,2,4} with BLOCK * BLOCKS_PER_SM <= 2048 and BLOCKS_PER_SM * (8 max(4096, 4T) + 1024)
 *   <= 233472, i.e. T <= 1024: 33792 a block, any of {1,2,4}; T = 2048: 66560, {1,2};
 *   T = 4096: 132096, {1}.
 *   BLOCK 128: T 128..1024, 4 x 3 = 12; 256: T 256..1024 3 x 3, T 2048 2 -> 11;
 *   512: T 512, 1024 2 x 3, T 2048 2, T 4096 1 -> 9; 1024 (at most 2 blocks): T 1024 2,
 *   T 2048 2, T 4096 1 -> 5. 12 + 11 + 9 + 5 = 37. */
/* matmul_reg1d: BM, BN in {32,64,128}, BK {4..32} (4), TM {4,8,16}, PAD {0,1}:
 *   BM=32: TM 4,8,16 all divide. threads 32*BN/TM >= 64: BN=32: TM 4,8 (256/TM: 8->128... )
 *   computed in brute_reg1d() below; the shared-memory rule never binds ((32*129+32*128)*4
 *   = 32896 bytes at most). By hand: pairs (BM,BN,TM) with BM%TM==0, 64 <= BM*BN/TM <= 1024:
 *   BM=32: BN=32: TM 4,8 (256,128; TM 16 gives 64: ok) -> 3; BN=64: 3; BN=128: TM 4 gives
 *   1024 ok, 8, 16 -> 3. BM=64: BN=32: 3; BN=64: TM 4 (1024) 8 16 -> 3; BN=128: TM 4 gives
 *   2048 (no), 8, 16 -> 2. BM=128: BN=32: 3; BN=64: TM 4 = 2048 no -> 2; BN=128: TM 16
 *   only (1024) -> 1. Total 23 triples x BK 4 x PAD 2 = 184. */
static size_t brute_reg1d(void);
static size_t brute_reg2d(void);
static size_t brute_warptile(void);
static size_t brute_async(void);
static size_t brute_mma(void);
static size_t brute_wgmma(void);
static size_t brute_wgmma_tf32(void);
static size_t brute_wgmma_3xtf32(void);
static size_t brute_wgmma_tf32_nn(void);
static size_t brute_wgmma_3xtf32_nn(void);
static size_t brute_tf32(void);
static size_t brute_3xtf32(void);

static const struct {
    const char *variant, *version, *source_hash;
    size_t valid, product;
    size_t (*brute)(void); /* an independent count, or NULL when counted by hand above */
} expected[] = {
    /* The matmul kernels took a seventh parameter, the bias (NULL without the epilogue), at
     * the same versions: without the bias their machine code is what it was (matmul_mma's and
     * matmul_wgmma's .text compared byte for byte), so a database's configs of those versions
     * stay right, and answer. */
    {"matmul_naive", "1", "9637545d2e2d7a6f80b3855176ee6ad6", 72, 8 * 6 * 2 * 2, NULL},
    {"matmul_tiled", "1", "89466d1b7218e1b8819d04c3a5830483", 132, 4 * 2 * 4 * 7, NULL},
    {"matmul_reg1d", "1", "0d2e2bc9c1b02226ee8296cf85fa5f03", 184, 3 * 3 * 4 * 3 * 2, brute_reg1d},
    {"matmul_reg2d", "1", "90dbeea56a739e76412b198b781f7dd2", 0, 4 * 4 * 3 * 4 * 4 * 2 * 2,
     brute_reg2d},
    {"matmul_warptile", "1", "20cda9b1ba5d44fede75b22077184a5a", 0,
     3 * 3 * 3 * 3 * 3 * 3 * 2 * 2 * 2 * 2, brute_warptile},
    {"matmul_async", "9", "c67a2e663f46124972feee41c0d26081", 0,
     4 * 4 * 3 * 3 * 3 * 3 * 2 * 2 * 2 * 3 * 4 * 2 * 2, brute_async},
    {"matmul_mma", "1", "a72f5fc461497a7d2c7e38a2974213c9", 0,
     4 * 3 * 2 * 2 * 2 * 4 * 4 * 2 * 3 * 2, brute_mma},
    {"matmul_wgmma", "8", "e83ebdb01e1f225a29b739fb0ef6d051", 9372,
     3 * 3 * 3 * 2 * 3 * 5 * 2 * 2 * 2 * 2 * 2 * 2 * 2, brute_wgmma},
    {"matmul_wgmma_tf32", "7", "e83ebdb01e1f225a29b739fb0ef6d051", 0,
     3 * 3 * 3 * 2 * 3 * 5 * 2 * 2 * 2 * 2 * 2 * 2, brute_wgmma_tf32},
    {"matmul_wgmma_3xtf32", "7", "e83ebdb01e1f225a29b739fb0ef6d051", 0,
     3 * 3 * 3 * 2 * 3 * 5 * 2 * 2 * 2 * 2 * 2, brute_wgmma_3xtf32},
    /* SWAP = 1: VEC 2 alone (and SWAP's one value); 3xTF32 without TMA */
    {"matmul_wgmma_tf32_nn", "4", "e83ebdb01e1f225a29b739fb0ef6d051", 0,
     3 * 3 * 3 * 2 * 3 * 5 * 2 * 2 * 2 * 2 * 2, brute_wgmma_tf32_nn},
    {"matmul_wgmma_3xtf32_nn", "4", "e83ebdb01e1f225a29b739fb0ef6d051", 0,
     3 * 3 * 3 * 2 * 3 * 5 * 2 * 2 * 2 * 2, brute_wgmma_3xtf32_nn},
    {"matmul_tf32", "1", "a49f8f6d2411db48ebd9c4f703879fd7", 0,
     4 * 4 * 2 * 2 * 2 * 4 * 4 * 2 * 2 * 2, brute_tf32},
    {"matmul_3xtf32", "1", "a49f8f6d2411db48ebd9c4f703879fd7", 0,
     4 * 4 * 1 * 2 * 2 * 5 * 4 * 2 * 2 * 2, brute_3xtf32},
    {"axpy_template", "1", "122d2ae4010444bda5e11ce5dbe87156", 20, 5 * 4, NULL},
    {"matadd_2d", "1", "3e63451e5cbdf3a69f31a28e2e5ef9d3", 126, 11 * 11 * 2, NULL},
    {"transpose_naive", "1", "bcf6c0cdc8c0edc4e77991710ec67f6a", 48, 5 * 6 * 2, NULL},
    {"transpose_tiled", "1", "4eb0715550336e8829def51d0eacd726", 80, 3 * 6 * 2 * 3, NULL},
    {"reduce_neighbored", "1", "f88bc8404e9ef16eb1ddbf4235975687", 10, 5 * 2, NULL},
    {"reduce_interleaved", "1", "c1c887fefd46a52084e78b06e12a60ba", 75, 5 * 5 * 2 * 2, NULL},
    {"reduce_shuffle", "1", "cb0a20ee0f186a0398962f26fdaa4ba1", 104, 4 * 4 * 2 * 4, NULL},
    {"histogram_global", "2", "8eb3690d9cdbc0fbf310d6de83b82994", 13, 4 * 4, NULL},
    {"histogram_shared", "2", "79536d414eb2b8047b1493eddcc09ad4", 148, 4 * 4 * 2 * 3 * 2, NULL},
    {"topk_filter", "2", "6a14e59bd97372e39e588e00dc1508b6", 37, 4 * 4 * 3, NULL},
    /* a library variant (a C plugin, no kernel): its version is "1+" and the cuBLASLt found
     * ("1+cublaslt.13.1.0", "1+no-cublaslt"); ALGO 16 x WORKSPACE_MIB 2 x TILE_M 10 x TILE_N
     * 6 x CLUSTER_M 3 x CLUSTER_N 3 x OPTION 9, of which valid: the 15 other heuristic
     * entries at each workspace, and the first choice at each with 45 tiles (its own and 44
     * of cuBLASLt's), 5 clusters (its own, 1 or 2 by 1 or 2) and 9 options */
    {"matmul_cublaslt", "1+", "bc2962ec8ba1c0539e3ce837827617a7", 15 * 2 + 2 * 45 * 5 * 9,
     16 * 2 * 10 * 6 * 3 * 3 * 9, NULL},
};

/* Configs compiled a variant: the first, the last and a seeded sample (a warptile kernel
 * takes seconds to compile, and there are 1,200 configs in the small spaces alone). Through
 * the kernel cache, a run after the first compiles nothing. CUTUNE_TEST_SAMPLE=0 compiles
 * every config of every space (what `cutune check --sample 0`, a CI step, does). */
enum { SAMPLE = 8 };

/* The rules of tuning_spaces/matmul_*.ini, written again as plain loops. */
static size_t brute_reg1d(void)
{
    size_t n = 0;
    for (int bm = 32; bm <= 128; bm *= 2)
        for (int bn = 32; bn <= 128; bn *= 2)
            for (int bk = 4; bk <= 32; bk *= 2)
                for (int tm = 4; tm <= 16; tm *= 2)
                    for (int pad = 0; pad <= 1; pad++)
                        n += bm % tm == 0 && bm * bn / tm >= 64 && bm * bn / tm <= 1024 &&
                             (bk * (bm + pad) + bk * bn) * 4 <= 48 * 1024;
    return n;
}

static size_t brute_reg2d(void)
{
    size_t n = 0;
    for (int bm = 32; bm <= 256; bm *= 2)
        for (int bn = 32; bn <= 256; bn *= 2)
            for (int bk = 8; bk <= 32; bk *= 2)
                for (int tm = 2; tm <= 16; tm *= 2)
                    for (int tn = 2; tn <= 16; tn *= 2)
                        for (int pad = 0; pad <= 4; pad += 4)
                            for (int vec = 0; vec <= 1; vec++) {
                                int threads = (bm / tm) * (bn / tn);
                                n += threads >= 64 && threads <= 1024 && tm * tn <= 64 &&
                                     (!vec || (tm % 4 == 0 && tn % 4 == 0)) &&
                                     bk * (bm + pad + bn) * 4 <= 48 * 1024;
                            }
    return n;
}

/* The warp-tile shape rules of matmul_warptile.ini and matmul_async.ini: the thread count
 * (returned, or 0 when the shape is invalid) of BM x BN tiles of WM x WN warps (wk of them a
 * piece) in WNITER steps of TM x TN lanes; a_div: A's pieces a K step (floats / 4 for
 * warptile's float4 loads, floats for async's 4-byte copies); async (a_div 1) also allows
 * fewer pieces than threads, one each for the first threads. */
static int whole_or_one_each(int pieces, int nt, int a_div)
{
    return pieces % nt == 0 || (a_div == 1 && nt % pieces == 0);
}

static int warp_shape(int bm, int bn, int bk, int wm, int wn, int wni, int tm, int tn, int wk,
                      int a_div)
{
    if (bm % wm || bn % wn || bk / wk < 2)
        return 0;
    int nt = (bm / wm) * (bn / wn) * 32 * wk;
    if (nt < 64 || nt > 512)
        return 0;
    int per_lane = 32 * tm * tn * wni;
    if ((wm * wn) % per_lane)
        return 0;
    int wmi = wm * wn / per_lane;
    if (wm % wmi || (wm / wmi) % tm || wn % wni || (wn / wni) % tn)
        return 0;
    if ((wm / wmi / tm) * (wn / wni / tn) != 32)
        return 0;
    if (!whole_or_one_each(bm * bk / a_div, nt, a_div) ||
        !whole_or_one_each(bk * bn / 4, nt, a_div))
        return 0;
    return wmi * tm * wni * tn <= 128 ? nt : 0;
}

/* The sum of visit(nt, bm, bn, bk, wk) over the valid warp-tile shapes, wk up to max_wk. */
static size_t count_warp_shapes(int min_tile, int a_div, int max_wk,
                                size_t (*visit)(int, int, int, int, int))
{
    size_t n = 0;
    for (int bm = min_tile; bm <= 256; bm *= 2)
        for (int bn = min_tile; bn <= 256; bn *= 2)
            for (int bk = 8; bk <= 32; bk *= 2)
                for (int wm = 32; wm <= 128; wm *= 2)
                    for (int wn = 32; wn <= 128; wn *= 2)
                        for (int wni = 1; wni <= 4; wni *= 2)
                            for (int tm = 4; tm <= 8; tm *= 2)
                                for (int tn = 4; tn <= 8; tn *= 2)
                                    for (int wk = 1; wk <= max_wk; wk *= 2) {
                                        int nt = warp_shape(bm, bn, bk, wm, wn, wni, tm, tn, wk,
                                                            a_div);
                                        if (nt)
                                            n += visit(nt, bm, bn, bk, wk);
                                    }
    return n;
}

static size_t warptile_rest(int nt, int bm, int bn, int bk, int wk)
{
    (void)nt, (void)wk;
    size_t n = 0;
    for (int dbuf = 0; dbuf <= 1; dbuf++)
        for (int pad = 0; pad <= 4; pad += 4)
            n += (dbuf + 1) * bk * (bm + pad + bn) * 4 <= 232448;
    return n;
}

static size_t brute_warptile(void)
{
    return count_warp_shapes(64, 4, 1, warptile_rest);
}

/* SPLITK (4 values) is cut only by rules that name the problem, so it multiplies. */
static size_t async_rest(int nt, int bm, int bn, int bk, int wk)
{
    size_t n = 0;
    int sums = (wk - 1) * bm * bn * 4; /* warp groups' sums at the end */
    for (int pad = 0; pad <= 4; pad += 4)
        for (int stages = 2; stages <= 4; stages++)
            for (int minb = 1; minb <= 2; minb++) {
                int bytes = stages * bk * (bm + pad + bn) * 4;
                n += 4 * (bytes <= 232448 && sums <= 232448 &&
                          (minb == 1 || (nt * 2 <= 1024 && 2 * (bytes + 1024) <= 233472 &&
                                         2 * (sums + 1024) <= 233472)));
            }
    return n;
}

static size_t brute_async(void)
{
    return count_warp_shapes(32, 1, 2, async_rest);
}

/* The rules of matmul_wgmma.ini that do not name the problem: ping-pong with two consumers;
 * a consumer's rows (the tile's in ping-pong) 64 or 128; its accumulators and 40 registers
 * within what setmaxnreg gives it; m64n256 only with 168 registers a thread at launch; the
 * stages and the staged output tile (over them, or beside them when persistent, one a
 * consumer in ping-pong) in shared memory; two blocks an SM only for a block a tile, and
 * then by shared memory too; clusters of two at most. matmul_wgmma_tf32.ini and
 * matmul_wgmma_3xtf32.ini are the same rules for 4-byte elements (BK from 16, VEC 2 or 4),
 * 3xTF32 (split) with twice the data a stage and twice the accumulators. The first two have
 * TMA {0, 1} besides, which no rule names (a TMA config falls back to cp.async where the maps
 * cannot be made): twice the configs. matmul_wgmma has MCAST {0, 1} too: 1 with TMA 1, a
 * cluster of two ((1, 2) or (2, 1)) and a block a tile (mcast). */
static size_t brute_wgmma_of(int bytes, int split, int mcast)
{
    size_t n = 0;
    const int bk0 = 64 / bytes, vec_wide = 16 / bytes; /* BK {16, 32, 64} or {32, 64, 128} */
    for (int bm = 64; bm <= 256; bm *= 2)
        for (int bn = 64; bn <= 256; bn *= 2)
            for (int bk = bk0; bk <= 4 * bk0; bk *= 2)
                for (int cons = 1; cons <= 2; cons++)
                    for (int sched = 0; sched <= (mcast ? 0 : 2); sched++)
                        for (int minb = 1; minb <= 2; minb++)
                            for (int vec = 2; vec <= vec_wide; vec += vec_wide - 2) {
                                int rows = sched == 2 ? bm : bm / cons, threads = (cons + 1) * 128;
                                int launch = 65536 / (threads * minb) / 8 * 8;
                                int regs = threads * minb == 256
                                               ? 255
                                               : (launch * (cons + 1) - 40) / cons / 8 * 8;
                                if ((sched == 2 && cons != 2) || (rows != 64 && rows != 128) ||
                                    rows / 64 * bn / 2 * (split ? 2 : 1) + 40 > regs ||
                                    (bn == 256 && (cons + 1) * minb > 3) ||
                                    (minb == 2 && sched != 0))
                                    continue;
                                for (int stages = 2; stages <= 6; stages++) {
                                    int pipe = stages * (bm + bn) * bk * bytes * (split ? 2 : 1);
                                    int out = (vec > 2) * bm * bn * bytes;
                                    int one = pipe > out ? pipe : out;
                                    int data = sched == 0 ? one : pipe + (sched == 2 ? 2 : 1) * out;
                                    int extra = 16 * stages + 16; /* the mbarriers */
                                    /* clusters (1,1), (1,2), (2,1) (mcast: the last
                                     * two) x GROUP_M {1, 8} */
                                    n += (mcast ? 2 : 3) * 2 *
                                         (1024 + data + extra <= 232448 &&
                                          (minb == 1 || 2 * (2048 + one + extra) <= 233472));
                                }
                            }
    return n;
}
static size_t brute_wgmma(void)
{
    return 2 * brute_wgmma_of(2, 0, 0) + brute_wgmma_of(2, 0, 1);
}
static size_t brute_wgmma_tf32(void)
{
    return 2 * brute_wgmma_of(4, 0, 0);
}
static size_t brute_wgmma_3xtf32(void)
{
    return brute_wgmma_of(4, 1, 0);
}
/* matmul_wgmma_tf32_nn.ini and matmul_wgmma_3xtf32_nn.ini (SWAP = 1, C^T = B^T A^T): the same
 * rules with VEC 2 alone (no staged output tile), B's fragments of two K steps in a
 * consumer's registers besides (8 a 64 columns, 16 with 3xTF32's hi and lo), no rule for
 * m64n256 (a consumer's wgmma are m64n64 or m64n128), and 3xTF32's stage holding A twice and
 * B once. TF32 has TMA {0, 1} besides: twice the configs. */
static size_t brute_wgmma_swap(int split)
{
    size_t n = 0;
    for (int bm = 64; bm <= 256; bm *= 2)
        for (int bn = 64; bn <= 256; bn *= 2)
            for (int bk = 16; bk <= 64; bk *= 2)
                for (int cons = 1; cons <= 2; cons++)
                    for (int sched = 0; sched <= 2; sched++)
                        for (int minb = 1; minb <= 2; minb++) {
                            int rows = sched == 2 ? bm : bm / cons, threads = (cons + 1) * 128;
                            int launch = 65536 / (threads * minb) / 8 * 8;
                            int regs = threads * minb == 256
                                           ? 255
                                           : (launch * (cons + 1) - 40) / cons / 8 * 8;
                            int need = rows / 64 * bn / 2 * (split ? 2 : 1) +
                                       (split ? 16 : 8) * bn / 64 + 40;
                            if ((sched == 2 && cons != 2) || (rows != 64 && rows != 128) ||
                                need > regs || (minb == 2 && sched != 0))
                                continue;
                            for (int stages = 2; stages <= 6; stages++) {
                                int data = stages * ((split ? 2 : 1) * bm + bn) * bk * 4;
                                int extra = 16 * stages + 16;
                                /* clusters (1,1), (1,2), (2,1) x GROUP_M {1, 8} */
                                n += 3 * 2 *
                                     (1024 + data + extra <= 232448 &&
                                      (minb == 1 || 2 * (2048 + data + extra) <= 233472));
                            }
                        }
    return n;
}
static size_t brute_wgmma_tf32_nn(void)
{
    return 2 * brute_wgmma_swap(0);
}
static size_t brute_wgmma_3xtf32_nn(void)
{
    return brute_wgmma_swap(1);
}

/* The tensor-core spaces (matmul_mma.ini, matmul_tf32.ini, matmul_3xtf32.ini), problem-free:
 * (BM / WM) x (BN / WN) warps of 64 to 512 threads, whole 16-byte copies of both tiles for
 * every thread, the registers estimated per thread (ra + rb * (WM + WN) + acc * WM * WN / 32)
 * within 255 and within the SM's 65536 for MINB blocks, the stages (or the split-K partial
 * tile, or matmul_mma's rounded tile) within 227 KiB, and 228 KiB for two blocks when MINB is
 * 2. `bytes` is the element size, `acc` 1 (2 for 3xTF32's step sums), `rb` in quarters,
 * `wide_warps` the warps a block needs with 64 x 64 warp tiles. The remaining parameters
 * (GROUP_M, VEC's values) multiply. */
static size_t brute_tc(int bytes, int bm_lo, int bn_lo, int bk_lo, int bk_hi, int stages_hi,
                       int acc, int rb4, int ra, int vec_staged, int nvec, int wide_warps)
{
    size_t n = 0;
    for (int bm = bm_lo; bm <= 256; bm *= 2)
        for (int bn = bn_lo; bn <= 256; bn *= 2)
            for (int bk = bk_lo; bk <= bk_hi; bk *= 2)
                for (int wm = 32; wm <= 64; wm *= 2)
                    for (int wn = 32; wn <= 64; wn *= 2)
                        for (int st = 2; st <= stages_hi; st++)
                            for (int sk = 1; sk <= 8; sk *= 2)
                                for (int v = 0; v < nvec; v++)
                                    for (int minb = 1; minb <= 2; minb++) {
                                        const int nt = (bm / wm) * (bn / wn) * 32;
                                        const int chunk = 16 / bytes, regs = acc * wm * wn / 32 +
                                                                             rb4 * (wm + wn) / 4 +
                                                                             ra;
                                        const int vec = vec_staged && v > 0; /* VEC > 2 */
                                        int shared = st * (bm + bn) * bk * bytes;
                                        if (sk > 1 && bm * bn * 4 > shared)
                                            shared = bm * bn * 4;
                                        if (vec && bm * bn * 2 > shared)
                                            shared = bm * bn * 2;
                                        n += bm % wm == 0 && bn % wn == 0 && nt >= 64 &&
                                             nt <= 512 && (bm * bk / chunk) % nt == 0 &&
                                             (bn * bk / chunk) % nt == 0 && regs <= 255 &&
                                             regs * nt * minb <= 65536 && shared <= 232448 &&
                                             (minb == 1 || 2 * (shared + 1024) <= 233472) &&
                                             (wm * wn < 4096 || nt / 32 >= wide_warps);
                                    }
    return 2 * n; /* GROUP_M */
}

static size_t brute_mma(void) /* WM / 2 + WN / 2 + 40: rb4 = 2, ra = 40; VEC {2, 4, 8} */
{
    return brute_tc(2, 32, 64, 32, 64, 5, 1, 2, 40, 1, 3, 0);
}

static size_t brute_tf32(void) /* 3 (WM + WN) / 4 + 16; VEC {2, 4}; 64 x 64 in 4 warps */
{
    return brute_tc(4, 32, 32, 16, 32, 5, 1, 3, 16, 0, 2, 4);
}

static size_t brute_3xtf32(void) /* twice the accumulators, BK 16 only, STAGES up to 6 */
{
    return brute_tc(4, 32, 32, 16, 16, 6, 2, 3, 16, 0, 2, 0);
}

static void check_variant(const CutuneVariantDef *p, const CutuneCheckOptions *o)
{
    CutuneError err = {0};
    CutuneSpace *sp = NULL;
    CHECK_MSG(cutune_variant_load_space(p, &sp, &err) == 0, "%s", err.msg);
    if (!sp)
        return;
    CutuneLimits lim;
    cutune_limits_sm90(&lim);
    CutuneConfigList cl = {0};
    CHECK_MSG(cutune_space_enumerate(sp, &lim, NULL, &cl, &err) == 0, "%s", err.msg);
    int known = 0;
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++)
        if (!strcmp(expected[i].variant, p->name)) {
            known = 1;
            size_t vl = strlen(expected[i].version);
            int prefix = expected[i].version[vl - 1] == '+'; /* the rest names a library */
            CHECK_MSG(prefix ? !strncmp(p->version, expected[i].version, vl)
                             : !strcmp(p->version, expected[i].version),
                      "%s: version %s, was %s", p->name, p->version, expected[i].version);
            CHECK_MSG(!strcmp(p->source_hash, expected[i].source_hash),
                      "%s: kernel source hash %s, was %s: the kernel text changed (bump the "
                      "version and update this table)",
                      p->name, p->source_hash, expected[i].source_hash);
            size_t want = expected[i].brute ? expected[i].brute() : expected[i].valid;
            if (expected[i].brute && expected[i].valid)
                CHECK_MSG(want == expected[i].valid, "%s: brute force %zu, by hand %zu", p->name,
                          want, expected[i].valid);
            CHECK_MSG(cl.nconfigs == want, "%s: %zu valid configs, expected %zu", p->name,
                      cl.nconfigs, want);
            CHECK_EQ_INT(cutune_space_cardinality(sp), expected[i].product);
        }
    CHECK_MSG(known, "shipped variant %s has no hand count in this test: add one", p->name);
    CHECK_MSG(sp->nproblems > 0, "%s has no default problem sizes", p->name);

    /* what `cutune check` checks: the launches of every valid config at every default
     * size, the kernel's parameters, and the compiles of a sample */
    CutuneCheckReport r;
    CHECK_MSG(cutune_variant_check(p, o, &r, &err) == 0, "%s", err.msg);
    CHECK_MSG(r.failures == 0, "%s: %zu failures (above)", p->name, r.failures);
    CHECK_MSG(r.library == (cutune_variant_library(p) != NULL), "%s: library %d", p->name,
              r.library);
    if (r.library) /* nothing to compile: every config at every size is a call */
        CHECK(r.kernel_params == -1 && r.compiled == 0 &&
              r.launches == cl.nconfigs * sp->nproblems);
    else
        CHECK_MSG(r.kernel_params == p->op->op->nargs + cutune_tensor_maps_count(sp),
                  "%s: the kernel takes %d parameters", p->name, r.kernel_params);
    CHECK(r.library || (r.compiled > 0 && r.compile_failed == 0));
    /* ptxas' report of local memory was read (the check notes what it finds, not a failure) */
    CHECK_MSG(r.library || r.local_checked > 0, "%s: no local-memory report", p->name);
    CHECK_MSG(r.launches > 0, "%s: no config launches at its default sizes", p->name);
    cutune_config_list_free(&cl);
    cutune_space_free(sp);
}

/* No local memory in the wgmma kernel's common configs (ptxas -v: "0 bytes stack frame"):
 * an array that a loop indexes by a runtime bound is kept on the stack, and store_c's
 * ragged-column loop did that to every 16-byte store of the epilogue, 2.5-10% of the
 * kernel's time on an H200 (bench/RESULTS.md, "The wgmma epilogue's local memory"). The
 * element types, layouts and epilogues of the tuned variants, with the stores through shared
 * memory (VEC 8 and 4, a tile per block, ping-pong, persistent) and from the accumulators
 * (VEC 2). (3xTF32 in nn, SWAP, spills 8 bytes at 168 registers: a spill of its own, left.) */
static void check_no_stack(const CutuneRegistry *reg)
{
    static const char *const cases[][3] = {
        {"matmul_wgmma",
         "BM=128,BN=256,BK=64,CONSUMERS=2,SCHEDULE=0,STAGES=4,CLUSTER_M=2,"
         "CLUSTER_N=1,GROUP_M=1,VEC=8,MINB=1,TMA=1,MCAST=1",
         "CUTUNE_DTYPE_BF16=1,CUTUNE_LAYOUT_NT=1,CUTUNE_EPILOGUE_NONE=1"},
        {"matmul_wgmma",
         "BM=128,BN=128,BK=64,CONSUMERS=2,SCHEDULE=2,STAGES=5,CLUSTER_M=1,"
         "CLUSTER_N=2,GROUP_M=8,VEC=8,MINB=1,TMA=1,MCAST=0",
         "CUTUNE_DTYPE_BF16=1,CUTUNE_LAYOUT_NT=1,CUTUNE_EPILOGUE_BIAS=1"},
        {"matmul_wgmma",
         "BM=128,BN=128,BK=64,CONSUMERS=1,SCHEDULE=0,STAGES=3,CLUSTER_M=1,"
         "CLUSTER_N=1,GROUP_M=8,VEC=2,MINB=2,TMA=1,MCAST=0",
         "CUTUNE_DTYPE_FP16=1,CUTUNE_LAYOUT_NN=1,CUTUNE_EPILOGUE_NONE=1"},
        {"matmul_wgmma_tf32",
         "BM=128,BN=256,BK=16,CONSUMERS=2,SCHEDULE=1,STAGES=4,CLUSTER_M=1,"
         "CLUSTER_N=1,GROUP_M=8,VEC=4,MINB=1",
         "CUTUNE_DTYPE_TF32=1,CUTUNE_LAYOUT_NT=1,CUTUNE_EPILOGUE_NONE=1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const CutuneVariantDef *p = cutune_registry_find(reg, cases[i][0]);
        CHECK_MSG(p && p->source, "variant %s not found", cases[i][0]);
        if (!p || !p->source)
            continue;
        char defs[512];
        const char *d[32];
        size_t n = 0;
        snprintf(defs, sizeof defs, "%s,%s", cases[i][1], cases[i][2]);
        for (char *t = strtok(defs, ","); t && n < 32; t = strtok(NULL, ","))
            d[n++] = t;
        int stack = -1, spill = -1;
        CutuneError err = {0};
        CHECK_MSG(cutune_nvrtc_local_memory(p->source, p->kernel_name, d, n,
                                            90 | CUTUNE_ARCH_SPECIFIC, &stack, &spill, &err) == 0,
                  "%s %s: %s", cases[i][0], cases[i][1], err.msg);
        CHECK_MSG(stack == 0 && spill == 0,
                  "%s %s %s: a stack frame of %d bytes, %d bytes of spill stores (ptxas)",
                  cases[i][0], cases[i][1], cases[i][2], stack, spill);
    }
}

/* The sources compiled through host->run_kernel: the SDK's comparisons, the ops' references. */
static void check_common_sources(void)
{
    const char *root = getenv("CUTUNE_SOURCE_ROOT");
    CHECK(root != NULL);
    /* file(s) joined in order, as the build embeds them; the kernel */
    const char *files[][3] = {{"core/src/sdk/compare_rule.h", "core/src/sdk/compare.cu",
                               "cutune_compare_f32"},
                              {"core/src/sdk/compare_rule.h", "core/src/sdk/compare.cu",
                               "cutune_compare_exact"},
                              {"", "plugins/matmul/matmul_ref.cu", "cutune_matmul_ref"},
                              {"", "plugins/transpose/transpose_ref.cu", "cutune_ref_transpose"},
                              {"", "plugins/matadd/matadd_ref.cu", "cutune_ref_add"}};
    for (size_t i = 0; root && i < sizeof files / sizeof files[0]; i++) {
        static char src[1 << 16];
        size_t n = 0;
        for (int part = 0; part < 2; part++) {
            if (!*files[i][part])
                continue;
            char path[PATH_MAX];
            snprintf(path, sizeof path, "%s/%s", root, files[i][part]);
            FILE *f = fopen(path, "rb");
            CHECK_MSG(f != NULL, "cannot open %s", path);
            if (!f)
                continue;
            n += fread(src + n, 1, sizeof src - 1 - n, f);
            fclose(f);
        }
        src[n] = '\0';
        CutuneKernelBinary b;
        CutuneError err = {0};
        CHECK_MSG(cutune_nvrtc_compile(src, files[i][2], NULL, 0, 90, NULL, &b, &err) == 0,
                  "%s: %s", files[i][1], err.msg);
        cutune_kernel_binary_free(&b);
    }
}

static size_t count_files(const char *dir)
{
    size_t n = 0;
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));)
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

/* NVRTC's own cache (12.9+) is off for cutune's compiles ("-no-cache") unless
 * CUTUNE_NVRTC_CACHE=1: both ways compile, and the option is part of the kernel cache's key,
 * so the two compiles of one kernel are two entries where NVRTC knows the option. */
static void check_nvrtc_cache_setting(void)
{
    static const char src[] = "extern \"C\" __global__ void k(float *a) { a[0] = 1; }\n";
    if (make_tmpdir(tmpdir, sizeof tmpdir, "cutune-nvrtc-cache") != 0) {
        CHECK(0);
        return;
    }
    const char *saved = getenv("CUTUNE_NVRTC_CACHE");
    char *keep = saved ? strdup(saved) : NULL;
    const char *settings[] = {"1", NULL};
    for (int i = 0; i < 2; i++) {
        if (settings[i])
            setenv("CUTUNE_NVRTC_CACHE", settings[i], 1);
        else
            unsetenv("CUTUNE_NVRTC_CACHE");
        CutuneKernelBinary b;
        CutuneError err = {0};
        CHECK_MSG(cutune_nvrtc_compile(src, "k", NULL, 0, 90, tmpdir, &b, &err) == 0,
                  "CUTUNE_NVRTC_CACHE=%s: %s", settings[i] ? settings[i] : "(unset)", err.msg);
        CHECK(!b.from_cache && b.size > 0);
        cutune_kernel_binary_free(&b);
    }
    char version[16];
    int major = 0, minor = 0;
    cutune_nvrtc_version(version, sizeof version);
    CHECK(sscanf(version, "%d.%d", &major, &minor) == 2);
    CHECK_MSG(count_files(in_tmp("kernels")) == (major * 100 + minor >= 1209 ? 2u : 1u),
              "NVRTC %d.%d: %zu kernel cache entries", major, minor,
              count_files(in_tmp("kernels")));
    if (keep)
        setenv("CUTUNE_NVRTC_CACHE", keep, 1);
    else
        unsetenv("CUTUNE_NVRTC_CACHE");
    free(keep);
    rm_tree(tmpdir);
}

int main(void)
{
    CutuneRegistry reg;
    CutuneError err = {0};
    CHECK_MSG(cutune_registry_load(&reg, &err) == 0, "%s", err.msg);
    CHECK_MSG(reg.nrejected == 0, "a shipped file was refused: %s",
              reg.nrejected ? reg.rejected[0].text : "");
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++)
        CHECK_MSG(cutune_registry_find(&reg, expected[i].variant) != NULL, "variant %s not found",
                  expected[i].variant);
    CutuneCheckOptions o;
    cutune_check_defaults(&o);
    const char *sample = getenv("CUTUNE_TEST_SAMPLE");
    o.sample = sample ? (size_t)strtoull(sample, NULL, 10) : SAMPLE;
    o.cache_dir = getenv("CUTUNE_CACHE_DIR");
    o.out = stdout;
    for (size_t i = 0; i < reg.nvariants; i++)
        check_variant(reg.variants[i], &o);
    check_no_stack(&reg);
    check_common_sources();
    check_nvrtc_cache_setting();
    cutune_registry_free(&reg);
    return check_result("shipped_spaces");
}
