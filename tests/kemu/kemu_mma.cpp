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

inline void cluster_load(float *v, const float *local, unsigned rank, int n)
{
    cluster_copy(v, local, rank, 4 * (size_t)n);
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
        emu::ldmatrix_conflicts = emu::copies.conflicts = 0;
        const dim3 grid{(unsigned)(((M + BM - 1) / BM) * ((N + BN - 1) / BN)), 1, SPLITK};
        kemu::launch_cluster(grid, dim3{NT, 1, 1}, SPLITK, matmul_mma, (const half_t *)A,
                             (const half_t *)B, C, M, N, K, (const half_t *)emu::gemm_bias);
        emu::count_conflicts(emu::copies, NT * SPLITK);
        long pending = 0;
        for (int t = 0; t < kemu::MAX_THREADS; t++)
            pending += (long)(emu::groups[t].size() + emu::open_group[t].size());
        // the swizzle's promise: no bank conflict in any ldmatrix or cp.async
        char note[160];
        snprintf(note, sizeof note,
                 "copies %s, %ld copies left, %ld + %ld bank conflicts (ldmatrix + cp.async)",
                 mode ? "at the wait" : "at once", pending, emu::ldmatrix_conflicts,
                 emu::copies.conflicts);
        return emu::Verdict{pending || emu::ldmatrix_conflicts || emu::copies.conflicts, note};
    };
    return emu::gemm_runs(sizes, sizeof sizes / sizeof sizes[0], 2, launch) != 0;
}
