// kemu_tc.hpp: what the CPU tests of the 16-bit tensor-core matmul kernels (kemu_mma.cpp,
// kemu_wgmma.cpp) share beyond kemu_smem.hpp: the 16-bit types' values and rounding, and the
// test itself: every element of C at ragged sizes against an FP64 reference, with aligned
// and misaligned buffers.
#ifndef CUTUNE_KEMU_TC_HPP
#define CUTUNE_KEMU_TC_HPP

#include "kemu_smem.hpp"

#include <cmath>
#include <cstdio>
#include <random>
#include <string>

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

// lo and hi rounded to the 16-bit type, lo in the low half (cvt.rn.bf16x2.f32 / .f16x2)
inline unsigned pack2(float lo, float hi)
{
    return emu::round_half(lo) | (unsigned)emu::round_half(hi) << 16;
}

namespace emu
{
// What a launch adds to the check of C: failures of its own (bank conflicts, copies never
// waited for) and a note on them.
struct Verdict {
    bool bad;
    std::string note;
};

// The buffers of one size: 16-byte aligned, then (shift 1) one element later.
struct Buffers {
    std::vector<unsigned short> a, b, c;
    unsigned short *A, *B, *C; // C has GUARD elements on either side
};
enum { GUARD = 16 };
inline unsigned short *aligned(std::vector<unsigned short> &v, int shift)
{
    const uintptr_t p = reinterpret_cast<uintptr_t>(v.data());
    return v.data() + ((16 - p % 16) % 16) / 2 + shift;
}

// The test: at each size M x N x K, A and B random in [-1, 1) rounded to the 16-bit type, C
// from launch(mode, A, B, C, M, N, K) 2 x nmodes times: with A, B and C 16-byte aligned or one
// element later (shift = run / nmodes), in each of the modes of the launch's emulation (mode =
// run % nmodes: asynchronous work done at once, or as late as the kernel allows). Every element of
// C must be within the FP32-accumulation bound of the FP64 product of the rounded inputs
// (bench/bench_mma.cu derives it), nothing around C may change, and the launch's own verdict
// must be good. Returns the number of failed runs.
template <class Launch>
int gemm_runs(const int (*sizes)[3], size_t nsizes, int nmodes, Launch launch)
{
#ifdef CUTUNE_DTYPE_BF16
    const double uT = 0x1p-8;
#else
    const double uT = 0x1p-11;
#endif
    std::mt19937 gen(12345);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    int failures = 0;
    for (size_t si = 0; si < nsizes; si++) {
        const int M = sizes[si][0], N = sizes[si][1], K = sizes[si][2];
        std::vector<unsigned short> ha((size_t)M * K), hb((size_t)K * N);
        for (auto &x : ha)
            x = round_half(dist(gen));
        for (auto &x : hb)
            x = round_half(dist(gen));
        // the FP64 reference and sum |a||b| (B is K x N for nn, N x K for nt)
        std::vector<double> ref((size_t)M * N), mag((size_t)M * N);
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                double r = 0, m = 0;
                for (int k = 0; k < K; k++) {
#ifdef CUTUNE_LAYOUT_NT
                    const double p = to_double(ha[(size_t)i * K + k]) *
                                     to_double(hb[(size_t)j * K + k]);
#else
                    const double p = to_double(ha[(size_t)i * K + k]) *
                                     to_double(hb[(size_t)k * N + j]);
#endif
                    r += p, m += std::fabs(p);
                }
                ref[(size_t)i * N + j] = r, mag[(size_t)i * N + j] = m;
            }
        const double gamma = K * 0x1p-24 / (1 - K * 0x1p-24);
        for (int run = 0; run < 2 * nmodes; run++) {
            const int shift = run / nmodes, mode = run % nmodes;
            Buffers bf;
            bf.a.resize(ha.size() + 16), bf.b.resize(hb.size() + 16),
                bf.c.resize((size_t)M * N + 2 * GUARD + 16);
            bf.A = aligned(bf.a, shift), bf.B = aligned(bf.b, shift),
            bf.C = aligned(bf.c, shift) + GUARD;
            std::copy(ha.begin(), ha.end(), bf.A);
            std::copy(hb.begin(), hb.end(), bf.B);
            std::fill(bf.C - GUARD, bf.C + (size_t)M * N + GUARD, (unsigned short)0xdead);
            std::fill(bf.C, bf.C + (size_t)M * N, (unsigned short)0xffff); // NaN in both types
            readable[0][0] = reinterpret_cast<const char *>(bf.A),
            readable[0][1] = readable[0][0] + ha.size() * 2;
            readable[1][0] = reinterpret_cast<const char *>(bf.B),
            readable[1][1] = readable[1][0] + hb.size() * 2;
            const Verdict v = launch(mode, bf.A, bf.B, bf.C, M, N, K);
            long wrong = 0, outside = 0, first = -1;
            for (size_t e = 0; e < (size_t)M * N; e++) {
                const double c = to_double(bf.C[e]);
                const double bound = (1 + uT) * gamma * mag[e] + uT * std::fabs(ref[e]) + 0x1p-25;
                if (!(std::fabs(c - ref[e]) <= bound) && wrong++ == 0)
                    first = (long)e;
            }
            for (int e = 0; e < GUARD; e++)
                outside += (bf.C[-1 - e] != 0xdead) + (bf.C[(size_t)M * N + e] != 0xdead);
            const bool bad = wrong || outside || v.bad;
            failures += bad;
            printf("%dx%dx%d %s, mode %d: %ld wrong, %ld written outside C, %s: %s", M, N, K,
                   shift ? "misaligned" : "aligned", mode, wrong, outside, v.note.c_str(),
                   bad ? "FAIL" : "ok");
            if (first >= 0)
                printf(" (first [%ld][%ld]: %.9g, FP64 %.9g)", first / N, first % N,
                       to_double(bf.C[first]), ref[(size_t)first]);
            printf("\n");
        }
    }
    return failures;
}
} // namespace emu

#endif
