// matmul_mma on the CPU (kemu.hpp): the tensor-core kernel's index work, which no CPU test
// could reach through the GPU: ldmatrix addressing (with and without .trans) over the XOR
// swizzle, the mma fragment layouts, the cp.async pipeline's stages, the zero fill of ragged
// tiles, the guarded path for rows not 16-byte aligned, the staged epilogue, the block
// rasterisation and the split-K reduction through a thread block cluster's shared memory.
//
// The warp-collective instructions are emulated from the PTX ISA's definitions (an 8 x 8
// matrix of ldmatrix: lane l receives row l / 4, elements 2 (l % 4) and 2 (l % 4) + 1, or
// with .trans the same of the transposed matrix; mma.m16n8k16: lane l = 4 g + t holds A
// (rows g, g + 8; columns 2t, 2t + 1, + 8), B (rows 2t, 2t + 1, + 8; column g) and C (rows
// g, g + 8; columns 2t, 2t + 1)), independently of the kernel's code: a kernel that puts a
// fragment element in the wrong place gets wrong sums here. cp.async is emulated twice: its
// copies land at once (a stage overwritten while another warp still reads it shows), then
// only at the wait that must cover them (a wait too short shows). cp.async and ldmatrix
// addresses must be 16-byte aligned, as on the GPU, or the test aborts.
#include "kemu_tc.hpp"

namespace emu
{
// cp.async's commit groups of each thread (kemu_tc.hpp keeps the copies not yet in one)
inline std::vector<std::vector<Copy>> groups[kemu::MAX_THREADS];

// what a warp's lanes hand each other in a collective instruction
inline unsigned exchange[kemu::MAX_THREADS / 32][32][6];

// ldmatrix's bank conflicts (a matrix's 8 row addresses), as kemu_tc.hpp counts copies'
inline long ldmatrix_conflicts;
} // namespace emu

inline void cp_async_commit()
{
    if (emu::deferred) {
        emu::groups[kemu::current].push_back(std::move(emu::open_group[kemu::current]));
        emu::open_group[kemu::current].clear();
    }
}
template <int N_> void cp_async_wait()
{
    auto &g = emu::groups[kemu::current];
    while (g.size() > (size_t)N_) {
        for (const emu::Copy &c : g.front())
            std::memcpy(c.dst, c.data, 16);
        g.erase(g.begin());
    }
}

inline void ldmatrix(unsigned (&r)[4], unsigned addr, bool trans)
{
    const int w = kemu::warp_id(), l = kemu::linear_id() % 32;
    if (addr % 16)
        emu::fail("ldmatrix: a row address not 16-byte aligned", addr);
    emu::exchange[w][l][0] = addr;
    emu::warp_sync();
    if (l == 0)
        for (int m = 0; m < 4; m++) {
            unsigned rows[8];
            for (int i = 0; i < 8; i++)
                rows[i] = emu::exchange[w][8 * m + i][0];
            emu::ldmatrix_conflicts += emu::extra_wavefronts(rows, 8);
        }
    auto at = [&](int lane, int byte) {
        unsigned short h;
        std::memcpy(&h, emu::smem_at(emu::exchange[w][lane][0] + byte), 2);
        return (unsigned)h;
    };
    for (int m = 0; m < 4; m++) // matrix m's rows come from lanes 8m .. 8m + 7
        if (!trans)
            r[m] = at(8 * m + l / 4, 4 * (l % 4)) | at(8 * m + l / 4, 4 * (l % 4) + 2) << 16;
        else
            r[m] = at(8 * m + 2 * (l % 4), 2 * (l / 4)) | at(8 * m + 2 * (l % 4) + 1, 2 * (l / 4))
                                                              << 16;
    emu::warp_sync(); // everyone has read before the next collective
}
inline void ldmatrix_x4(unsigned (&r)[4], unsigned addr)
{
    ldmatrix(r, addr, false);
}
inline void ldmatrix_x4_trans(unsigned (&r)[4], unsigned addr)
{
    ldmatrix(r, addr, true);
}

inline void mma16816(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2])
{
    const int w = kemu::warp_id(), l = kemu::linear_id() % 32, g = l / 4, t = l % 4;
    for (int i = 0; i < 4; i++)
        emu::exchange[w][l][i] = a[i];
    emu::exchange[w][l][4] = b[0], emu::exchange[w][l][5] = b[1];
    emu::warp_sync();
    auto half = [](unsigned reg, int k) {
        return emu::to_double((unsigned short)(reg >> (16 * (k % 2))));
    };
    for (int q = 0; q < 4; q++) {
        const int row = g + 8 * (q / 2), col = 2 * t + q % 2;
        double s = 0; // the products of 16-bit values are exact
        for (int k = 0; k < 16; k++) {
            const double av =
                half(emu::exchange[w][(row % 8) * 4 + (k % 8) / 2][row / 8 + 2 * (k / 8)], k);
            const double bv = half(emu::exchange[w][col * 4 + (k % 8) / 2][4 + k / 8], k);
            s += av * bv;
        }
        d[q] = (float)(d[q] + s);
    }
    emu::warp_sync();
}

inline unsigned cluster_rank()
{
    return (unsigned)kemu::block_rank();
}
inline void cluster_sync()
{
    kemu::cluster_sync();
}
inline void cluster_load(float *v, const float *local, unsigned rank, int n)
{
    const char *mine = kemu::shared_of(kemu::block_rank());
    const size_t off = (size_t)(reinterpret_cast<const char *>(local) - mine);
    if (off % (4 * n))
        emu::fail("ld.shared::cluster: a misaligned address", off);
    std::memcpy(v, kemu::shared_of((int)rank) + off, 4 * (size_t)n);
}

#include KERNEL_SOURCE

int main()
{
    static const int sizes[][3] = {{1, 1, 1},      {17, 33, 9},   {37, 45, 53},   {64, 128, 64},
                                   {100, 96, 208}, {130, 72, 96}, {300, 136, 72}, {33, 200, 250}};
    // mode 1: the cp.async copies land only at the wait that must cover them
    auto launch = [](int mode, const unsigned short *A, const unsigned short *B, unsigned short *C,
                     int M, int N, int K) {
        emu::deferred = mode;
        emu::ldmatrix_conflicts = emu::copy_conflicts = 0;
        const dim3 grid{(unsigned)(((M + BM - 1) / BM) * ((N + BN - 1) / BN)), 1, SPLITK};
        kemu::launch_cluster(grid, dim3{NT, 1, 1}, SPLITK, matmul_mma, (const half_t *)A,
                             (const half_t *)B, C, M, N, K);
        emu::count_copy_conflicts(NT * SPLITK);
        long pending = 0;
        for (int t = 0; t < kemu::MAX_THREADS; t++)
            pending += (long)(emu::groups[t].size() + emu::open_group[t].size());
        // the swizzle's promise: no bank conflict in any ldmatrix or cp.async
        char note[160];
        snprintf(note, sizeof note,
                 "copies %s, %ld copies left, %ld + %ld bank conflicts (ldmatrix + cp.async)",
                 mode ? "at the wait" : "at once", pending, emu::ldmatrix_conflicts,
                 emu::copy_conflicts);
        return emu::Verdict{pending || emu::ldmatrix_conflicts || emu::copy_conflicts, note};
    };
    return emu::gemm_runs(sizes, sizeof sizes / sizeof sizes[0], 2, launch) != 0;
}
