// kemu_tc.hpp: what the CPU tests of the tensor-core matmul kernels (kemu_mma.cpp,
// kemu_wgmma.cpp) share: the 16-bit types' values and rounding, shared-memory addresses,
// the bank conflicts of 16-byte copies, and the test itself: every element of C at ragged
// sizes against an FP64 reference, with aligned and misaligned buffers.
#ifndef CUTUNE_KEMU_TC_HPP
#define CUTUNE_KEMU_TC_HPP

#include "kemu.hpp"

#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#define CUTUNE_KEMU 1
#define __cluster_dims__(...)

// uint2, uint4, float2 and their make_ functions come with kemu.hpp

namespace emu
{
[[noreturn]] inline void fail(const char *what, unsigned long long v)
{
    fprintf(stderr, "kemu: %s (0x%llx)\n", what, v);
    std::abort();
}

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

// the dynamic shared memory the launch gives a block, when the test knows it
inline unsigned shared_limit = sizeof kemu::dynamic_shared;
inline char *smem_at(unsigned a)
{
    if (a >= shared_limit || a >= sizeof kemu::dynamic_shared)
        fail("a shared address past the launch's dynamic shared memory", a);
    return reinterpret_cast<char *>(kemu::dynamic_shared) + a;
}

// A 16-byte copy to shared memory, kept until it lands (the copies are asynchronous).
struct Copy {
    char *dst;
    unsigned char data[16];
};

// Shared memory bank conflicts, counted as the extra wavefronts they cost. Shared memory has
// 32 banks of 4 bytes: a 16-byte access falls in one of 8 groups of 4 banks ((addr / 16) %
// 8), and a quarter-warp (8 lanes) of 16-byte accesses, or the 8 rows of an ldmatrix
// matrix, take one wavefront when their groups differ, else as many as the most any group
// gets. cp.async destinations are recorded per thread (a warp's i-th copies are one
// instruction) and counted after the launch.
inline long copy_conflicts;
inline std::vector<unsigned> copy_dst[kemu::MAX_THREADS];
inline int extra_wavefronts(const unsigned *addr, int n) // n addresses of 16-byte accesses
{
    int per_group[8] = {0}, most = 0;
    for (int i = 0; i < n; i++) {
        bool again = false; // the same 16 bytes twice is one access
        for (int j = 0; j < i; j++)
            again |= addr[j] / 16 == addr[i] / 16;
        if (!again)
            most = std::max(most, ++per_group[addr[i] / 16 % 8]);
    }
    return most - 1;
}
inline void count_copy_conflicts(int nthreads)
{
    for (int w = 0; w < nthreads / 32; w++)
        for (size_t k = 0; k < copy_dst[32 * w + 31].size(); k++) // as many in each lane
            for (int q = 0; q < 4; q++) {
                unsigned a[8];
                for (int l = 0; l < 8; l++)
                    a[l] = copy_dst[32 * w + 8 * q + l][k];
                copy_conflicts += extra_wavefronts(a, 8);
            }
    for (int t = 0; t < kemu::MAX_THREADS; t++)
        copy_dst[t].clear();
}
// cp.async's copies of each thread not yet in a group (or tied to an mbarrier): they land at
// once, or (deferred) only when the kernel's wait must have them
inline bool deferred;
inline std::vector<Copy> open_group[kemu::MAX_THREADS];
// the global memory a copy may read (the test's A and B): a copy from anywhere else aborts
inline const char *readable[2][2];

inline void warp_sync()
{
    kemu::arrive_and_wait(kemu::warp_barrier[kemu::warp_id()]);
}

} // namespace emu

inline unsigned smem_addr(const void *p)
{
    return (unsigned)(static_cast<const char *>(p) -
                      reinterpret_cast<const char *>(kemu::dynamic_shared));
}
// 16 bytes to shared memory, of which the first `bytes` are read from src, the rest zeroed;
// both addresses 16-byte aligned, as on the GPU
inline void cp_async16(unsigned dst, const void *src, int bytes)
{
    if (dst % 16 || (bytes && reinterpret_cast<uintptr_t>(src) % 16) || bytes < 0 || bytes > 16)
        emu::fail("cp.async: a misaligned address or a bad size", dst);
    const char *from = static_cast<const char *>(src);
    if (bytes && !(from >= emu::readable[0][0] && from + bytes <= emu::readable[0][1]) &&
        !(from >= emu::readable[1][0] && from + bytes <= emu::readable[1][1]))
        emu::fail("cp.async: a read outside A and B", reinterpret_cast<uintptr_t>(src));
    emu::copy_dst[kemu::current].push_back(dst);
    emu::Copy c{emu::smem_at(dst), {}};
    std::memcpy(c.data, src, (size_t)bytes);
    if (emu::deferred)
        emu::open_group[kemu::current].push_back(c);
    else
        std::memcpy(c.dst, c.data, 16);
}

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
