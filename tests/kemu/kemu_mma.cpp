// matmul_mma on the CPU (kemu.hpp): the tensor-core kernel's index work, which no CPU test
// could reach through the GPU: ldmatrix addressing (with and without .trans) over the XOR
// swizzle, the mma fragment layouts, the cp.async pipeline's stages, the zero fill of ragged
// tiles, the guarded path for rows not 16-byte aligned, the staged epilogue, the block
// rasterisation and the split-K reduction through a thread block cluster's shared memory.
//
// The warp-collective instructions are emulated from the PTX ISA's definitions (ldmatrix,
// cp.async and the cluster's shared memory in kemu_tc.hpp; mma.m16n8k16 here: lane l = 4 g +
// t holds A (rows g, g + 8; columns 2t, 2t + 1, + 8), B (rows 2t, 2t + 1, + 8; column g) and
// C (rows g, g + 8; columns 2t, 2t + 1)), independently of the kernel's code: a kernel that
// puts a fragment element in the wrong place gets wrong sums here. cp.async runs twice, its
// copies landing at once and at the wait that must cover them.
#include "kemu_tc.hpp"

#include <random>

namespace emu
{
// 16-bit values and their rounding (to nearest, ties to even), as cvt.rn does
inline double to_double(unsigned short h)
{
#ifdef CUTUNE_DTYPE_BF16
    const unsigned u = (unsigned)h << 16;
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
#else
    const int e = (h >> 10) & 31, m = h & 1023;
    const double v = e == 0    ? std::ldexp((double)m, -24)
                     : e == 31 ? (m ? NAN : INFINITY)
                               : std::ldexp(1024.0 + m, e - 25);
    return h & 0x8000 ? -v : v;
#endif
}
inline unsigned short round_half(float f)
{
#ifdef CUTUNE_DTYPE_BF16
    unsigned u;
    std::memcpy(&u, &f, sizeof u);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return 0x7fc0;
    return (unsigned short)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
#else
    const unsigned short sign = std::signbit(f) ? 0x8000 : 0;
    const double a = std::fabs((double)f);
    if (std::isnan(f))
        return 0x7e00;
    int e;
    std::frexp(a, &e); // a = m 2^e, m in [0.5, 1)
    const int ulp_exp = std::max(e - 1, -14) - 10;
    const double q = std::nearbyint(std::ldexp(a, -ulp_exp)); // to nearest, ties to even
    const double v = std::ldexp(q, ulp_exp);
    if (v >= 65536.0)
        return sign | 0x7c00;
    if (v < 0x1p-14)
        return sign | (unsigned short)q; // subnormal (q = 1024 is the smallest normal's bits)
    std::frexp(v, &e);
    return sign | (unsigned short)(((e - 1 + 15) << 10) | ((unsigned)std::ldexp(v, 11 - e) - 1024));
#endif
}
} // namespace emu

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

inline unsigned pack2(float lo, float hi)
{
    return emu::round_half(lo) | (unsigned)emu::round_half(hi) << 16;
}
inline void cluster_load(float *v, const float *local, unsigned rank, int n)
{
    cluster_copy(v, local, rank, 4 * (size_t)n);
}

#include KERNEL_SOURCE

// The buffers of one size: 16-byte aligned, then (shift 1) one element later.
struct Buffers {
    std::vector<unsigned short> a, b, c;
    unsigned short *A, *B, *C; // C has GUARD elements on either side
};
enum { GUARD = 16 };
static unsigned short *aligned(std::vector<unsigned short> &v, int shift)
{
    const uintptr_t p = reinterpret_cast<uintptr_t>(v.data());
    return v.data() + ((16 - p % 16) % 16) / 2 + shift;
}

int main()
{
    const int sizes[][3] = {{1, 1, 1},      {17, 33, 9},   {37, 45, 53},   {64, 128, 64},
                            {100, 96, 208}, {130, 72, 96}, {300, 136, 72}, {33, 200, 250}};
#ifdef CUTUNE_DTYPE_BF16
    const double uT = 0x1p-8;
#else
    const double uT = 0x1p-11;
#endif
    std::mt19937 gen(12345);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    int failures = 0;
    for (const auto &s : sizes) {
        const int M = s[0], N = s[1], K = s[2];
        std::vector<unsigned short> ha((size_t)M * K), hb((size_t)K * N);
        for (auto &x : ha)
            x = emu::round_half(dist(gen));
        for (auto &x : hb)
            x = emu::round_half(dist(gen));
        // the FP64 reference and sum |a||b| (B is K x N for nn, N x K for nt)
        std::vector<double> ref((size_t)M * N), mag((size_t)M * N);
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                double r = 0, m = 0;
                for (int k = 0; k < K; k++) {
#ifdef CUTUNE_LAYOUT_NT
                    const double p = emu::to_double(ha[(size_t)i * K + k]) *
                                     emu::to_double(hb[(size_t)j * K + k]);
#else
                    const double p = emu::to_double(ha[(size_t)i * K + k]) *
                                     emu::to_double(hb[(size_t)k * N + j]);
#endif
                    r += p, m += std::fabs(p);
                }
                ref[(size_t)i * N + j] = r, mag[(size_t)i * N + j] = m;
            }
        const double gamma = K * 0x1p-24 / (1 - K * 0x1p-24);
        const dim3 grid{(unsigned)(((M + BM - 1) / BM) * ((N + BN - 1) / BN)), 1, SPLITK};
        for (int run = 0; run < 4; run++) { // shift (run / 2) x cp.async landing (run % 2)
            const int shift = run / 2;
            emu::deferred = run % 2;
            Buffers bf;
            bf.a.resize(ha.size() + 16), bf.b.resize(hb.size() + 16),
                bf.c.resize((size_t)M * N + 2 * GUARD + 16);
            bf.A = aligned(bf.a, shift), bf.B = aligned(bf.b, shift),
            bf.C = aligned(bf.c, shift) + GUARD;
            std::copy(ha.begin(), ha.end(), bf.A);
            std::copy(hb.begin(), hb.end(), bf.B);
            std::fill(bf.C - GUARD, bf.C + (size_t)M * N + GUARD, (unsigned short)0xdead);
            std::fill(bf.C, bf.C + (size_t)M * N, (unsigned short)0xffff); // NaN in both types
            emu::ldmatrix_conflicts = emu::copies.conflicts = 0;
            kemu::launch_cluster(grid, dim3{NT, 1, 1}, SPLITK, matmul_mma, (const half_t *)bf.A,
                                 (const half_t *)bf.B, bf.C, M, N, K);
            emu::count_conflicts(emu::copies, NT * SPLITK);
            long wrong = 0, outside = 0, pending = 0;
            long first = -1;
            for (size_t e = 0; e < (size_t)M * N; e++) {
                const double c = emu::to_double(bf.C[e]);
                const double bound = (1 + uT) * gamma * mag[e] + uT * std::fabs(ref[e]) + 0x1p-25;
                if (!(std::fabs(c - ref[e]) <= bound) && wrong++ == 0)
                    first = (long)e;
            }
            for (int e = 0; e < GUARD; e++)
                outside += (bf.C[-1 - e] != 0xdead) + (bf.C[(size_t)M * N + e] != 0xdead);
            pending = emu::pending_copies();
            // the swizzle's promise: no bank conflict in any ldmatrix or cp.async
            const long conflicts = emu::ldmatrix_conflicts + emu::copies.conflicts;
            const bool bad = wrong || outside || pending || conflicts;
            failures += bad;
            printf("%dx%dx%d %s, copies %s: %ld wrong, %ld written outside C, %ld copies left, "
                   "%ld + %ld bank conflicts (ldmatrix + cp.async): %s",
                   M, N, K, shift ? "misaligned" : "aligned",
                   emu::deferred ? "at the wait" : "at once", wrong, outside, pending,
                   emu::ldmatrix_conflicts, emu::copies.conflicts, bad ? "FAIL" : "ok");
            if (first >= 0)
                printf(" (first [%ld][%ld]: %.9g, FP64 %.9g)", first / N, first % N,
                       emu::to_double(bf.C[first]), ref[(size_t)first]);
            printf("\n");
        }
    }
    return failures != 0;
}
