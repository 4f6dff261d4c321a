// kemu_tc.hpp: what the CPU tests of the 16-bit tensor-core matmul kernels (kemu_mma.cpp,
// kemu_wgmma.cpp) share beyond kemu_smem.hpp: the 16-bit types' values and rounding, and the
// test itself: every element of C at ragged sizes against an FP64 reference, with aligned
// and misaligned buffers.
#ifndef CUTUNE_KEMU_TC_HPP
#define CUTUNE_KEMU_TC_HPP

#include "kemu_buffers.hpp"
#include "kemu_smem.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
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
// a 16-bit value as a float (exact), as the kernels' bias epilogue reads it
inline float from16(unsigned short h)
{
    return (float)emu::to_double(h);
}

namespace emu
{
// What a launch adds to the check of C: failures of its own (bank conflicts, copies never
// waited for) and a note on them.
struct Verdict {
    bool bad;
    std::string note;
};

// The element type of A, B and C: 16-bit bits (fp16, bf16), or float (tf32, and fp32 through
// 3xTF32: matmul_wgmma's 32-bit types)
#if defined(CUTUNE_DTYPE_TF32) || defined(CUTUNE_DTYPE_FP32)
typedef float gemm_t;
inline gemm_t gemm_input(float x)
{
    return x;
}
inline double gemm_value(float x)
{
    return x;
}
inline const float GEMM_POISON = NAN, GEMM_GUARD = -1234.5f;
#else
typedef unsigned short gemm_t;
inline gemm_t gemm_input(float x)
{
    return round_half(x);
}
inline double gemm_value(unsigned short h)
{
    return to_double(h);
}
inline const unsigned short GEMM_POISON = 0xffff, GEMM_GUARD = 0xdead; // NaN in both types
#endif
inline bool gemm_guard_intact(gemm_t x)
{
    return std::memcmp(&x, &GEMM_GUARD, sizeof x) == 0;
}

// The kernels' last argument: the bias row (CUTUNE_EPILOGUE_BIAS: N values that gemm_runs
// draws for each size), else NULL; a launch passes it as it is.
inline const gemm_t *gemm_bias = nullptr;

// The bound on |C - ref| of one element, from ref, S = sum |p_k|, Q = sum p_k^2 (u = 2^-24,
// W = sqrt(Q) + |ref|, gamma_n = n u / (1 - n u)), the op's (plugins/matmul/matmul.h):
//   16-bit: FP32 accumulation, then one rounding to the type: (1 + u_T) gamma_K S + u_T |ref|
//           (bench/bench_mma.cu derives it), plus the type's smallest subnormal's half;
//   tf32:   min((2^-9 + 2^-20 + gamma_2K) S, 4 2^-10 W + 8 u sqrt(K) W);
//   fp32:   min(gamma_K S, 8 u sqrt(K) W), which 3xTF32 is held to unchanged.
inline double gemm_bound(double ref, double mag, double sq, int K)
{
    const double u = 0x1p-24, w = std::sqrt(sq) + std::fabs(ref);
#if defined(CUTUNE_DTYPE_TF32)
    return std::min((0x1p-9 + 0x1p-20 + 2.0 * K * u / (1 - 2.0 * K * u)) * mag,
                    4 * 0x1p-10 * w + 8.0 * u * std::sqrt((double)K) * w);
#elif defined(CUTUNE_DTYPE_FP32)
    return std::min(K * u / (1 - K * u) * mag, 8.0 * u * std::sqrt((double)K) * w);
#else
    (void)w;
#ifdef CUTUNE_DTYPE_BF16
    const double uT = 0x1p-8;
#else
    const double uT = 0x1p-11;
#endif
    const double gamma = K * u / (1 - K * u);
#ifdef CUTUNE_EPILOGUE_BIAS // ref holds ref + bias; the float32 add of the bias errs by u |.|
    return (1 + uT) * ((1 + u) * gamma * mag + u * std::fabs(ref)) + uT * std::fabs(ref) +
           0x1p-25;
#else
    return (1 + uT) * gamma * mag + uT * std::fabs(ref) + 0x1p-25;
#endif
#endif
}

// The test: at each size M x N x K, A and B random in [-1, 1) (rounded to the 16-bit type),
// C from launch(mode, A, B, C, M, N, K) 2 x nmodes times: with A, B and C 16-byte aligned or
// one element later (shift = run / nmodes), in each of the modes of the launch's emulation
// (mode = run % nmodes: asynchronous work done at once, or as late as the kernel allows).
// Every element of C must be within gemm_bound of the FP64 product of the (rounded) inputs
// (plus the bias row, with CUTUNE_EPILOGUE_BIAS),
// nothing around C may change, and the launch's own verdict must be good. In fp32 (3xTF32),
// at K >= 64, the largest error must also be no larger than that of a sequential FFMA sum of
// the same inputs (cuBLAS SGEMM's arithmetic). Returns the number of failed runs.
template <class Launch>
int gemm_runs(const int (*sizes)[3], size_t nsizes, int nmodes, Launch launch)
{
    std::mt19937 gen(12345);
    int failures = 0;
    for (size_t si = 0; si < nsizes; si++) {
        const int M = sizes[si][0], N = sizes[si][1], K = sizes[si][2];
        const std::vector<gemm_t> ha = random_inputs<gemm_t>(gen, (size_t)M * K, gemm_input);
        const std::vector<gemm_t> hb = random_inputs<gemm_t>(gen, (size_t)K * N, gemm_input);
#ifdef CUTUNE_EPILOGUE_BIAS // a row of N added to every row of C, before the rounding
        const std::vector<gemm_t> hbias = random_inputs<gemm_t>(gen, (size_t)N, gemm_input);
        gemm_bias = hbias.data();
#endif
        // the FP64 reference, sum |p|, sum p^2 and the sequential FFMA sum (B is K x N for
        // nn, N x K for nt)
        std::vector<double> ref((size_t)M * N), mag((size_t)M * N), sq((size_t)M * N);
        double seq_max = 0;
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                double r = 0, m = 0, q = 0;
                float f = 0.0f;
                for (int k = 0; k < K; k++) {
                    const double a = gemm_value(ha[(size_t)i * K + k]);
#ifdef CUTUNE_LAYOUT_NT
                    const double b = gemm_value(hb[(size_t)j * K + k]);
#else
                    const double b = gemm_value(hb[(size_t)k * N + j]);
#endif
                    const double p = a * b;
                    r += p, m += std::fabs(p), q += p * p;
                    f = std::fmaf((float)a, (float)b, f);
                }
#ifdef CUTUNE_EPILOGUE_BIAS
                r += gemm_value(hbias[(size_t)j]);
#endif
                ref[(size_t)i * N + j] = r, mag[(size_t)i * N + j] = m, sq[(size_t)i * N + j] = q;
                seq_max = std::max(seq_max, std::fabs(f - r));
            }
        for (int run = 0; run < 2 * nmodes; run++) {
            const int shift = run / nmodes, mode = run % nmodes;
            Buffers<gemm_t> bf;
            buffers_make(&bf, ha, hb, (size_t)M * N, shift, GEMM_GUARD, GEMM_POISON);
            readable[0][0] = reinterpret_cast<const char *>(bf.A),
            readable[0][1] = readable[0][0] + ha.size() * sizeof(gemm_t);
            readable[1][0] = reinterpret_cast<const char *>(bf.B),
            readable[1][1] = readable[1][0] + hb.size() * sizeof(gemm_t);
            const Verdict v = launch(mode, bf.A, bf.B, bf.C, M, N, K);
            long wrong = 0, outside = 0, first = -1;
            double max_err = 0;
            for (size_t e = 0; e < (size_t)M * N; e++) {
                const double err = std::fabs(gemm_value(bf.C[e]) - ref[e]);
                if (!(err <= gemm_bound(ref[e], mag[e], sq[e], K)) && wrong++ == 0)
                    first = (long)e;
                if (err == err)
                    max_err = std::max(max_err, err);
            }
            for (int e = 0; e < GUARD; e++)
                outside += !gemm_guard_intact(bf.C[-1 - e]) +
                           !gemm_guard_intact(bf.C[(size_t)M * N + e]);
#ifdef CUTUNE_DTYPE_FP32
            const bool worse = K >= 64 && max_err > seq_max; // 3xTF32's promise
#else
            const bool worse = false;
#endif
            const bool bad = wrong || outside || v.bad || worse;
            failures += bad;
            printf("%dx%dx%d %s, mode %d: %ld wrong, %ld written outside C, %s, max err %.3g "
                   "(sequential FFMA %.3g)%s: %s",
                   M, N, K, shift ? "misaligned" : "aligned", mode, wrong, outside, v.note.c_str(),
                   max_err, seq_max, worse ? " WORSE" : "", bad ? "FAIL" : "ok");
            if (first >= 0)
                printf(" (first [%ld][%ld]: %.9g, FP64 %.9g)", first / N, first % N,
                       gemm_value(bf.C[first]), ref[(size_t)first]);
            printf("\n");
        }
    }
    return failures;
}
} // namespace emu

#endif
