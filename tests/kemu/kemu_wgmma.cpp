// matmul_wgmma on the CPU (kemu.hpp, kemu_tc.hpp): the Hopper kernel's logic, which no CPU
// test could reach through the GPU: the producer's copies into the swizzled shared-memory
// layouts, the descriptors wgmma reads them through, the mbarrier pipeline between the
// producer and the consumer warpgroups, the accumulators' fragment layout, the zero fill of
// ragged tiles, the guarded path for rows not 16-byte aligned, both epilogues, the
// rasterisation over clusters, the TMA producer (TMA = 1) through the tensor maps the core
// would encode, and in floats the producer's split (3xTF32) and its transposition of nn's B,
// with the bank conflicts of its shared-memory accesses, or nn with the operands swapped
// (SWAP: B's fragments loaded into registers, split there in 3xTF32, and C^T's accumulators
// stored as columns of C), and TMA multicast in a cluster of two (MCAST = 1).
//
// The instructions are emulated from the PTX ISA's definitions, independently of the kernel's
// code:
// - wgmma.mma_async.m64nNk16 with both operands in shared memory: each is read through its
//   descriptor (start address, leading and stride byte offsets, swizzle mode) by the ISA's
//   canonical layouts, which CUTLASS's make_gmma_desc states in CuTe's terms: K-major
//   ((8,m),(T,2)):((W T,SBO),(1,T)) and MN-major ((T,W,m),(8,k)):((1,T,LBO),(W T,SBO)) for a
//   swizzle W 16-byte units wide, Swizzle<log2 W,4,3> on the byte address (the interleaved
//   layouts use LBO and SBO the other way round). A is K-major; B is K-major, or MN-major
//   when the kernel says imm-trans-b (nn in 16-bit types; .tf32 has no transpose: a .tf32
//   operand read MN-major aborts). Thread t of the warpgroup holds D's rows
//   16 (t / 32) + (t % 32) / 4 and + 8, columns 8 j + 2 (t % 4) and + 1.
// - wgmma.mma_async.m64nNk8 .tf32 with A in registers: the PTX ISA's fragment (lane 4 g + c of
//   warp w holds A's (16 w + g, c), (16 w + g + 8, c), (16 w + g, c + 4), (16 w + g + 8, c + 4)),
//   gathered from the warp's lanes when the wgmma is issued; a thread that writes those
//   registers before the wait that covers the wgmma aborts the run.
// - wgmma is asynchronous: mode 0 computes a wgmma when it is issued, modes 1 and 2 at the
//   wgmma.wait_group that must cover it, reading shared memory and writing the accumulators
//   then (a stage released or refilled too early, or an accumulator read before the wait,
//   gives wrong sums). A wgmma not preceded by wgmma.fence since the last wait aborts.
// - mbarriers (init, arrive, try_wait.parity) with their phases, kept in their 8 bytes of
//   shared memory (a barrier used before mbarrier.init, or overwritten, aborts: a block's
//   shared memory starts as 0xff bytes). cp.async.mbarrier.arrive.noinc: modes 0 and 2 land
//   the copies at once and arrive; mode 1 lands them, and arrives, only when a thread waits on
//   that barrier or the issuing thread runs cp.async.wait_all (a consumer that reads a stage
//   without waiting for it gives wrong sums). Every copy must read inside A or B. A thread
//   that arrives lets the others run before it goes on.
// - bar.sync 1 and 2, the consumers' barriers.
// - the bank conflicts of cp.async's destinations and of 16-byte shared loads (per quarter
//   warp), of 8-byte shared loads (per half-warp) and of 4-byte shared stores (per warp): any
//   fails the run.
// - multicast (MCAST = 1): the cluster's two blocks run together (kemu's launch_cluster, each
//   with its own slice of shared memory, which is 0xff bytes again once the block ends): a
//   multicast box lands at the same offset of both slices and completes the transaction bytes
//   of the mbarrier at the same offset of both (they may land before that block's expect_tx),
//   mapa moves an address to the other slice, barrier.cluster is kemu's cluster barrier.
// The persistent schedules run on 3 blocks (whole clusters), so that each block walks several
// tiles and the ring of stages wraps across them. Not modelled: the memory proxies
// (fence.proxy.async does nothing here), setmaxnreg (the kernel checks at compile time that
// the registers add up), timing.
#include "kemu_tc.hpp"

#include <map>

// the element's bytes and the K of one wgmma, from the precision the build defines (the
// kernel's ES and WK, worked out here on their own)
#if defined(CUTUNE_DTYPE_TF32) || defined(CUTUNE_DTYPE_FP32)
#define EMU_ES 4
#else
#define EMU_ES 2
#endif
#define EMU_WK (32 / EMU_ES)

namespace emu
{
// An mbarrier in its 8 bytes: a mark that init wrote it, the count, the arrivals still due in
// this phase, the phases completed.
struct Mbar {
    unsigned short mark, expected, pending, phase;
};
enum : unsigned short { MBAR_MARK = 0x3b17 };
// per mbarrier: the bytes of TMA copies it expects (mbarrier.arrive.expect_tx) that have not
// landed (complete_tx); a phase completes when its arrivals and these bytes are all in
inline std::map<unsigned, long> tx_due;
inline Mbar &mbar(unsigned addr)
{
    if (addr % 8)
        fail("mbarrier: an address not 8-byte aligned", addr);
    Mbar *b = reinterpret_cast<Mbar *>(smem_at(addr));
    if (b->mark != MBAR_MARK)
        fail("mbarrier: used before mbarrier.init (or overwritten)", addr);
    return *b;
}
inline void arrive(unsigned addr)
{
    Mbar &b = mbar(addr);
    if (b.pending == 0)
        fail("mbarrier: an arrival past the count", addr);
    kemu::events++; // progress, for kemu's deadlock check
    if (--b.pending == 0 && tx_due[addr] == 0)
        b.pending = b.expected, b.phase++;
}
// TMA's bytes landing on the mbarrier (complete_tx)
inline void complete_tx(unsigned addr, long bytes)
{
    Mbar &b = mbar(addr);
#if defined(MCAST) && MCAST
    // the peer's multicast may land before this block's expect_tx: the PTX ISA's tx-count goes
    // below zero, and the arrival still due keeps the phase open
    const bool early_ok = true;
#else
    const bool early_ok = false;
#endif
    if ((tx_due[addr] -= bytes) < 0 && !early_ok)
        fail("mbarrier: more bytes landed than expect_tx announced", addr);
    kemu::events++;
    if (b.pending == 0 && tx_due[addr] == 0)
        b.pending = b.expected, b.phase++;
}

// TMA (cp.async.bulk.tensor.2d): a tensor map as the core encodes one from the INI's
// [tensor_map.*] section (base NULL: the core gives the kernel a map of zeros, which it must
// not use), and the copies of a box that have not landed (mode 1: at a wait on their barrier)
struct TensorMap {
    const unsigned char *base;
    long long dims[2]; // elements, innermost first; rows are dense
    unsigned box[2];
    unsigned swizzle; // bytes: 0, 32, 64 or 128
};
struct Bulk {
    unsigned bar;
    long bytes;
    std::vector<Copy> units;
};
inline std::vector<Bulk> bulks;
inline long tma_boxes; // boxes copied in a launch
inline void land(const Bulk &b)
{
    for (const Copy &c : b.units)
        std::memcpy(c.dst, c.data, 16);
    complete_tx(b.bar, b.bytes);
}
inline void land_bulks(unsigned bar)
{
    for (size_t i = 0; i < bulks.size();)
        if (bulks[i].bar == bar) {
            Bulk b = std::move(bulks[i]);
            bulks.erase(bulks.begin() + (long)i);
            land(b);
        } else
            i++;
}

// cp.async.mbarrier.arrive.noinc in mode 1: a thread's copies and the barrier they arrive on,
// in the order they were made
struct Arrival {
    unsigned bar;
    int thread;
    std::vector<Copy> copies;
};
inline std::vector<Arrival> arrivals;
// land and arrive those for which keep(a) is false
template <class F> void land_arrivals(F keep)
{
    for (size_t i = 0; i < arrivals.size();) {
        if (keep(arrivals[i])) {
            i++;
            continue;
        }
        Arrival a = std::move(arrivals[i]);
        arrivals.erase(arrivals.begin() + (long)i);
        for (const Copy &c : a.copies)
            std::memcpy(c.dst, c.data, 16);
        arrive(a.bar);
    }
}

// wgmma: each thread's issued operations, open or in commit groups, in mode 1
struct Wgmma {
    float *d;
    unsigned n; // N: the columns of D (d holds n / 2 floats)
    unsigned long long da, db;
    int t;      // the thread in its warpgroup
    bool scale; // scale-d: D = A * B + D (else A * B)
    // A in registers (.tf32): the thread's rows of A (g, g + 8) as the warp's fragments held
    // them at the issue, and the thread's own 4 registers, which must still hold `held` when
    // the wgmma completes (the PTX ISA: not written until then)
    bool reg_a;
    double a_rows[2][EMU_WK];
    const unsigned *regs;
    unsigned held[4];
};
inline std::vector<Wgmma> wg_open[kemu::MAX_THREADS];
inline std::vector<std::vector<Wgmma>> wg_groups[kemu::MAX_THREADS];
inline bool wg_deferred; // wgmma computed at the wait rather than when issued
inline bool wg_fenced[kemu::MAX_THREADS];
inline long wgmma_count;

// Element (mn, k) of a 64 x EMU_WK (A) or N x EMU_WK (B) operand in shared memory, through its
// descriptor; mn_major: the MN-major layout (imm-trans = 1, 16-bit types only). A 32-bit
// element is read as TF32: its low 13 bits ignored.
inline double operand(unsigned long long desc, bool mn_major, unsigned mn, unsigned k)
{
    const unsigned ce = 16 / EMU_ES; // elements of a 16-byte unit
    if (mn_major && EMU_ES == 4)
        fail("wgmma: a .tf32 operand MN-major (the PTX ISA has K-major only)", desc);
    if ((desc >> 49) & 7)
        fail("wgmma: a descriptor with a matrix base offset (not modelled)", desc);
    const unsigned start = (unsigned)(desc & 0x3fff) << 4,
                   lbo = (unsigned)((desc >> 16) & 0x3fff) << 4,
                   sbo = (unsigned)((desc >> 32) & 0x3fff) << 4;
    const unsigned mode = (unsigned)(desc >> 62);
    const unsigned w = mode == 1 ? 8 : mode == 2 ? 4 : mode == 3 ? 2 : 1; // 16-byte units a row
    unsigned a;
    if (!mn_major)
        a = mode == 0
                ? start + (mn % 8) * 16 + (mn / 8) * sbo + (k / ce) * lbo + (k % ce) * EMU_ES
                : start + (mn % 8) * w * 16 + (mn / 8) * sbo + (k / ce) * 16 + (k % ce) * EMU_ES;
    else {
        const unsigned u = mn / 8; // the 16-byte unit along MN
        a = mode == 0 ? start + (mn % 8) * 2 + u * sbo + (k % 8) * 16 + (k / 8) * lbo
                      : start + (mn % 8) * 2 + (u % w) * 16 + (u / w) * lbo + (k % 8) * w * 16 +
                            (k / 8) * sbo;
    }
    a ^= ((a >> 7) & (w - 1)) << 4; // the 16-byte unit XOR the row of the swizzle pattern
#if EMU_ES == 4
    unsigned bits;
    std::memcpy(&bits, smem_at(a), 4);
    bits &= 0xffffe000u;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
#else
    unsigned short h;
    std::memcpy(&h, smem_at(a), 2);
    return to_double(h);
#endif
}

inline void wgmma_run(const Wgmma &op)
{
    // imm-trans-b: the 16-bit types' nn (32-bit types have no transpose: B is K-major)
#if defined(CUTUNE_LAYOUT_NN) && EMU_ES == 2
    const bool b_mn = true;
#else
    const bool b_mn = false;
#endif
    const unsigned warp = op.t / 32, g = (op.t % 32) / 4, q = op.t % 4;
    double a[2][EMU_WK], b[2][EMU_WK]; // this thread's rows of A (g, g + 8); a pair of columns of B
    if (op.reg_a && std::memcmp(op.regs, op.held, sizeof op.held))
        fail("wgmma: a register operand written before the wgmma completed (wgmma.wait_group)",
             (unsigned long long)op.t);
    for (unsigned h = 0; h < 2; h++)
        for (unsigned k = 0; k < EMU_WK; k++)
            a[h][k] = op.reg_a ? op.a_rows[h][k] : operand(op.da, false, 16 * warp + g + 8 * h, k);
    for (unsigned j = 0; j < op.n / 8; j++) { // columns 8 j + 2 q and + 1
        for (unsigned e = 0; e < 2; e++)
            for (unsigned k = 0; k < EMU_WK; k++)
                b[e][k] = operand(op.db, b_mn, 8 * j + 2 * q + e, k);
        for (unsigned i = 0; i < 4; i++) { // d[4 j + i]: row g + 8 (i / 2), column 2 q + i % 2
            double s = op.scale ? op.d[4 * j + i] : 0.0; // products of 16-bit or TF32 values: exact
            for (unsigned k = 0; k < EMU_WK; k++)
                s += a[i / 2][k] * b[i % 2][k];
            float f = (float)s; // to nearest
#if EMU_ES == 4
            // TF32: the sum rounded toward zero, as kemu_tf32.cpp models the tensor cores (Fasi
            // et al., 2021), which 3xTF32's order of sums must withstand
            if (std::fabs((double)f) > std::fabs(s))
                f = std::nextafter(f, 0.0f);
#endif
            op.d[4 * j + i] = f;
        }
    }
    wgmma_count++;
}

inline kemu::Barrier named_barriers[kemu::MAX_CLUSTER][2]; // a block's own (MCAST: two run at once)
} // namespace emu

// The box at (x, y) of tensor map m to shared memory at dst, by the PTX ISA's definition: box
// row r (box[0] elements, dense) at dst + r * its bytes, each 16-byte unit of it at the
// address XOR the swizzle's row ((a >> 7) % (swizzle / 16), in bits 4..6), which needs dst
// aligned to the swizzle's pattern (8 rows of it); elements outside the tensor read as zeros.
#define __grid_constant__
#define CUTUNE_TENSOR_MAP emu::TensorMap
inline void tma_load(unsigned dst, const emu::TensorMap *m, unsigned bar, int x, int y)
{
    if (!m->base)
        emu::fail("cp.async.bulk.tensor through a map the core left empty", dst);
    const unsigned row = m->box[0] * EMU_ES, w = m->swizzle ? m->swizzle / 16 : 1;
    if (row % 16 || (m->swizzle && row > m->swizzle) || m->box[1] < 1 || m->box[1] > 256)
        emu::fail("cp.async.bulk.tensor: a box the driver would refuse", row);
    if (dst % (m->swizzle ? 8 * m->swizzle : 128))
        emu::fail("cp.async.bulk.tensor: a destination off the swizzle pattern's alignment", dst);
    emu::tma_boxes++;
    emu::Bulk b{bar, (long)row * m->box[1], {}};
    for (unsigned r = 0; r < m->box[1]; r++)
        for (unsigned u = 0; u < row / 16; u++) {
            unsigned a = dst + r * row + u * 16;
            a ^= ((a >> 7) & (w - 1)) << 4;
            emu::Copy c{emu::smem_at(a), {}};
            for (unsigned e = 0; e < 16 / EMU_ES; e++) {
                const long long gx = x + (long long)(u * 16 / EMU_ES + e), gy = y + (long long)r;
                if (gx >= 0 && gx < m->dims[0] && gy >= 0 && gy < m->dims[1])
                    std::memcpy(c.data + e * EMU_ES, m->base + (gy * m->dims[0] + gx) * EMU_ES,
                                EMU_ES);
            }
            b.units.push_back(c);
        }
    if (emu::deferred)
        emu::bulks.push_back(std::move(b));
    else
        emu::land(b);
}
inline void mbar_expect_tx(unsigned bar, unsigned bytes)
{
    emu::tx_due[bar] += bytes;
    emu::arrive(bar);
    kemu::switch_out(false);
}

inline void cp_async_arrive(unsigned bar)
{
    auto &open = emu::open_group[kemu::current];
    if (emu::deferred)
        emu::arrivals.push_back({bar, kemu::current, std::move(open)});
    else
        emu::arrive(bar); // the copies have landed
    open.clear();
}
// cp.async groups (3xTF32's producer): kemu_smem.hpp's cp_async_commit and cp_async_wait
inline float to_tf32(float x) // cvt.rna.tf32.f32: to nearest at bit 13, ties away from zero
{
    unsigned u;
    std::memcpy(&u, &x, 4);
    if ((u & 0x7f800000u) != 0x7f800000u)
        u = (u + 0x1000u) & 0xffffe000u;
    std::memcpy(&x, &u, 4);
    return x;
}
inline void cp_async_wait_all()
{
    emu::wait_groups(emu::groups[kemu::current], 0,
                     [](const emu::Copy &c) { std::memcpy(c.dst, c.data, 16); });
    emu::land_arrivals([](const emu::Arrival &a) { return a.thread != kemu::current; });
    for (const emu::Copy &c : emu::open_group[kemu::current])
        std::memcpy(c.dst, c.data, 16);
    emu::open_group[kemu::current].clear();
}
inline void mbar_init(unsigned bar, unsigned count)
{
    if (count < 1 || count > 0xffff)
        emu::fail("mbarrier.init: a bad count", count);
    *reinterpret_cast<emu::Mbar *>(emu::smem_at(bar)) = {emu::MBAR_MARK, (unsigned short)count,
                                                         (unsigned short)count, 0};
    emu::tx_due[bar] = 0;
}
// An arrival lets the others run before this thread goes on, as a warp may be held up on the
// GPU: a consumer that releases a stage before its wgmma are done reading it then finds the
// stage refilled (with the copies landing at once) when its wgmma run, at the wait.
inline void mbar_init_fence()
{
}
inline void mbar_arrive(unsigned bar)
{
    emu::arrive(bar);
    kemu::switch_out(false);
}
inline void mbar_wait(unsigned bar, unsigned parity)
{
    for (;;) {
        if ((emu::mbar(bar).phase & 1u) != parity) // the phase of this parity has completed
            return;
        emu::land_arrivals([bar](const emu::Arrival &a) { return a.bar != bar; });
        emu::land_bulks(bar);
        if ((emu::mbar(bar).phase & 1u) != parity)
            return;
        kemu::switch_out(false); // the others run; kemu reports a wait that never ends
    }
}
inline void fence_proxy_async()
{
}
// bar.sync 1 + id, count: the consumers' own barriers
inline void epilogue_barrier(int id, int count)
{
    kemu::Barrier &b = emu::named_barriers[kemu::block_rank()][id];
    if (b.arrived == 0)
        b.expected = count;
    else if (b.expected != count)
        emu::fail("bar.sync: another thread count than the others'", (unsigned long long)count);
    kemu::arrive_and_wait(b);
}
template <int R> void setmaxnreg_dec()
{
    static_assert(R >= 24 && R <= 256 && R % 8 == 0, "setmaxnreg takes 24..256 in steps of 8");
}
template <int R> void setmaxnreg_inc()
{
    static_assert(R >= 24 && R <= 256 && R % 8 == 0, "setmaxnreg takes 24..256 in steps of 8");
}
inline void wgmma_fence()
{
    emu::wg_fenced[kemu::current] = true;
}
inline void wgmma_commit()
{
    emu::commit_group(emu::wg_open[kemu::current], emu::wg_groups[kemu::current]);
}
template <int N_> void wgmma_wait()
{
    emu::wait_groups(emu::wg_groups[kemu::current], N_, emu::wgmma_run);
    emu::wg_fenced[kemu::current] = false;
}
template <int N2> void acc_fence(float (&)[N2])
{
}
inline void wgmma_issue(const emu::Wgmma &op)
{
    if (!emu::wg_fenced[kemu::current])
        emu::fail("wgmma.mma_async without wgmma.fence since the last wait",
                  (unsigned long long)kemu::current);
    if (emu::wg_deferred)
        emu::wg_open[kemu::current].push_back(op);
    else
        emu::wgmma_run(op);
}
template <int SCALE_D, int N2>
void wgmma_step(float (&d)[N2], unsigned long long da, unsigned long long db)
{
    emu::Wgmma op{d, 2 * N2, da, db, kemu::linear_id() % 128, SCALE_D != 0, false, {}, nullptr, {}};
    wgmma_issue(op);
}
// A in registers (.tf32, m64nNk8): lane 4 g + c of warp w holds A's (16 w + g, c), (16 w + g +
// 8, c), (16 w + g, c + 4), (16 w + g + 8, c + 4) in a[0..3] (the PTX ISA's fragment, as
// mma.m16n8k8's .tf32 A), read as TF32 (the low 13 bits ignored). The warp's lanes hand each
// other their registers, as the tensor core gathers them.
#if EMU_ES == 4 // (.f16 and .bf16 fragments hold two elements a register: not modelled)
template <int SCALE_D, int N2>
void wgmma_step_r(float (&d)[N2], const unsigned (&a)[4], unsigned long long db)
{
    const int w = kemu::warp_id(), l = kemu::linear_id() % 32;
    emu::Wgmma op{d, 2 * N2, 0, db, kemu::linear_id() % 128, SCALE_D != 0, true, {}, a, {}};
    for (int j = 0; j < 4; j++)
        emu::exchange[w][l][j] = op.held[j] = a[j];
    emu::warp_sync();
    const int g = l / 4;
    for (int h = 0; h < 2; h++)
        for (int k = 0; k < EMU_WK; k++) {
            unsigned bits = emu::exchange[w][4 * g + k % 4][h + 2 * (k / 4)] & 0xffffe000u;
            float f;
            std::memcpy(&f, &bits, 4);
            op.a_rows[h][k] = f;
        }
    emu::warp_sync(); // everyone has read before the next collective
    wgmma_issue(op);
}
#endif

#if defined(MCAST) && MCAST
// A cluster runs as kemu's (its blocks along z): the kernel's blockIdx.x and gridDim.x are
// kemu's z. Block r's shared addresses are offsets from the start of dynamic_shared into its
// slice, shared_of(r): the same offset in block r (mapa) is the address moved by the slices'
// distance.
inline dim3 emu_cluster_block()
{
    return dim3{blockIdx.z, 1, 1};
}
inline dim3 emu_cluster_grid()
{
    return dim3{gridDim.z, 1, 1};
}
inline unsigned emu_mapa(unsigned a, int r)
{
    return a - smem_addr(kemu::shared_of(kemu::block_rank())) + smem_addr(kemu::shared_of(r));
}
inline void tma_load_mcast(unsigned dst, const emu::TensorMap *m, unsigned bar, int x, int y,
                           unsigned short mask)
{
    for (int r = 0; r < kemu::cluster_size; r++)
        if (mask >> r & 1)
            tma_load(emu_mapa(dst, r), m, emu_mapa(bar, r), x, y);
}
inline void mbar_arrive_cluster(unsigned bar, unsigned rank)
{
    emu::arrive(emu_mapa(bar, (int)rank));
    kemu::switch_out(false);
}
inline void cluster_barrier()
{
    kemu::cluster_sync();
}
#define blockIdx emu_cluster_block()
#define gridDim emu_cluster_grid()
#endif

#include KERNEL_SOURCE

int main()
{
    // edges of every kind: one element; K odd, N not a multiple of 8 (the guarded path); K
    // short of a step; several tiles with partial ones at M, N and K; more tiles than a group
#if SPLIT3
    // 3xTF32 is in its space from K = 64 on (matmul_wgmma_3xtf32.ini): the same edges there,
    // K not a multiple of 4 (the guarded path), and a K long enough for the comparison with a
    // sequential FFMA sum
    static const int sizes[][3] = {{64, 64, 64},   {130, 72, 96}, {45, 37, 75},   {200, 136, 200},
                                   {65, 520, 136}, {330, 66, 72}, {33, 200, 250}, {64, 128, 1024}};
#elif MCAST
    // multicast: the same, and tiles in whole clusters of both shapes with the maps, with a
    // ring of stages that wraps
    static const int sizes[][3] = {{1, 1, 1},      {17, 33, 9},     {64, 64, 64},
                                   {130, 72, 96},  {200, 136, 200}, {257, 260, 40},
                                   {65, 520, 136}, {330, 66, 72},   {192, 256, 320}};
#else
    static const int sizes[][3] = {{1, 1, 1},       {17, 33, 9},    {64, 64, 64},   {130, 72, 96},
                                   {200, 136, 200}, {257, 260, 40}, {65, 520, 136}, {330, 66, 72}};
#endif
    auto launch = [](int mode, const emu::gemm_t *A, const emu::gemm_t *B, emu::gemm_t *C, int M,
                     int N, int K) {
        emu::deferred = mode == 1;
        emu::wg_deferred = mode >= 1;
        emu::copies.conflicts = emu::loads.conflicts = emu::words.conflicts = emu::dwords
                                                                                  .conflicts = 0;
        emu::wgmma_count = emu::tma_boxes = 0;
        emu::shared_limit = SHARED_BYTES;
        const unsigned tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN;
        const unsigned clusters = (tiles_m + CLUSTER_M - 1) / CLUSTER_M *
                                  ((tiles_n + CLUSTER_N - 1) / CLUSTER_N);
        // persistent: a few blocks, so that each walks several tiles (the INI: the SMs' worth)
        const unsigned grid = (SCHEDULE == 0 ? clusters : std::min(clusters, 3u)) * CLUSTER_M *
                              CLUSTER_N;
#if TMA_ARGS
        // the maps as the INI's [tensor_map.*] sections have the core encode them: empty
        // where their `when` is false or a pointer is not 16-byte aligned
        const bool when = TMA && K % (16 / EMU_ES) == 0 && N % 8 == 0 &&
                          ((reinterpret_cast<uintptr_t>(A) | reinterpret_cast<uintptr_t>(B)) &
                           15) == 0;
        const unsigned kbox = BK < 128 / EMU_ES ? BK : 128 / EMU_ES; // a box row: <= 128 bytes
        const auto *a8 = when ? reinterpret_cast<const unsigned char *>(A) : nullptr;
        const auto *b8 = when ? reinterpret_cast<const unsigned char *>(B) : nullptr;
        // multicast: the operand the cluster shares (A along N, B along M) in boxes of half
        // its rows (nn's B: half its k-rows)
        const unsigned a_half = MCAST && CLUSTER_N == 2 ? 2 : 1,
                       b_half = MCAST && CLUSTER_M == 2 ? 2 : 1;
        const emu::TensorMap ma{a8, {K, M}, {kbox, BM / a_half}, EMU_ES * kbox};
#ifdef CUTUNE_LAYOUT_NT
        const emu::TensorMap mb{b8, {K, N}, {kbox, BN / b_half}, EMU_ES * kbox};
#elif EMU_ES == 4 && SWAP
        // nn in floats with SWAP: B MN-major, boxes of 32 floats (128 bytes) by BK k-rows
        const emu::TensorMap mb{b8, {N, K}, {32, BK}, 128};
#elif EMU_ES == 4
        // nn in floats: the INIs have no map of B (the producer's threads copy and transpose it)
        const emu::TensorMap mb{nullptr, {N, K}, {64, BK}, 128};
        (void)b8;
#else
        const emu::TensorMap mb{b8, {N, K}, {64, BK / b_half}, 128};
#endif
        (void)b_half; // (nn in floats: no map of B, or its own boxes)
#if MCAST
        // the cluster's blocks together: block 1's slice of shared memory starts halfway
        static_assert(SHARED_BYTES <= sizeof kemu::dynamic_shared / 2, "a block's slice holds it");
        emu::shared_limit = sizeof kemu::dynamic_shared / 2 + SHARED_BYTES;
        kemu::launch_cluster(dim3{1, 1, grid}, dim3{NT, 1, 1}, CS, matmul_wgmma, (const elem_t *)A,
                             (const elem_t *)B, C, M, N, K, (const elem_t *)emu::gemm_bias, ma,
                             mb);
#else
        kemu::launch(dim3{grid, 1, 1}, dim3{NT, 1, 1}, matmul_wgmma, (const elem_t *)A,
                     (const elem_t *)B, C, M, N, K, (const elem_t *)emu::gemm_bias, ma, mb);
#endif
        const bool tma_wrong = when != (emu::tma_boxes > 0); // TMA wherever the maps are given
#else
        const bool tma_wrong = false;
        kemu::launch(dim3{grid, 1, 1}, dim3{NT, 1, 1}, matmul_wgmma, (const elem_t *)A,
                     (const elem_t *)B, C, M, N, K, (const elem_t *)emu::gemm_bias);
#endif
        emu::count_conflicts(emu::copies, NT);
        emu::count_conflicts(emu::loads, NT);
        emu::count_word_conflicts(emu::words, NT);
        emu::count_dword_conflicts(emu::dwords, NT);
        const long conflicts = emu::copies.conflicts + emu::loads.conflicts + emu::words.conflicts +
                               emu::dwords.conflicts;
        long left = (long)(emu::arrivals.size() + emu::bulks.size());
        emu::bulks.clear();
        for (int t = 0; t < kemu::MAX_THREADS; t++)
            left += (long)(emu::open_group[t].size() + emu::wg_open[t].size() +
                           emu::wg_groups[t].size() + emu::groups[t].size());
        emu::arrivals.clear();
        // every tile's wgmma: K steps x BK / WK x m64 pieces (3xTF32: three products), by 128
        // threads each; the pieces are the tile's 64-row ones, or with SWAP (C^T) its 64-column
        // ones for each warpgroup that shares the tile
        const long pieces = SWAP ? BN / 64 * (SCHEDULE == 2 ? 1 : CONSUMERS) : BM / 64;
        const long want = (long)tiles_m * tiles_n * ((K + BK - 1) / BK) * (BK / WK) * pieces *
                          (SPLIT3 ? 3 : 1) * 128;
        char note[240];
        snprintf(note, sizeof note,
                 "%s, %ld wgmma (want %ld), %ld left in flight, %ld bank conflicts (cp.async, "
                 "16-, 8- and 4-byte shared accesses), %ld TMA boxes",
                 mode == 0   ? "copies and wgmma at once"
                 : mode == 1 ? "copies and wgmma at the wait"
                             : "copies at once, wgmma at the wait",
                 emu::wgmma_count, want, left, conflicts, emu::tma_boxes);
        return emu::Verdict{left || conflicts || emu::wgmma_count != want || tma_wrong, note};
    };
    return emu::gemm_runs(sizes, sizeof sizes / sizeof sizes[0], 3, launch) != 0;
}
