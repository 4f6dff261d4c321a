// matmul_tf32 on the CPU (kemu.hpp, kemu_smem.hpp): the float32 tensor-core kernel's index work
// and its arithmetic, in both element types (tf32, and fp32 through 3xTF32): ldmatrix of
// 32-bit elements over the XOR swizzles, the 16-byte shared loads of nn's B, the permuted
// column order of the mma n tiles and the epilogue's stores straight from the accumulators,
// the cp.async pipeline (copies landing at once, and at the wait), the zero fill of ragged
// tiles, the guarded path for rows not 16-byte aligned, the block rasterisation, the split-K
// reduction in a thread block cluster, fp32's small-K path on the CUDA cores, and the
// hi/lo split with its sums of 16 of K. Each size but the last runs 8 times: 16-byte
// aligned and not (the guarded path), with the warps of a block in step and running ahead
// (kemu.hpp: a barrier missing or too early shows), and with cp.async's copies landing at
// once and only at the wait that must cover them (a wait too short shows).
//
// mma.m16n8k8 with TF32 operands is emulated from the PTX ISA's fragment layout (lane l = 4 g
// + t holds A (g, t), (g + 8, t), (g, t + 4), (g + 8, t + 4); B (k t, n g), (k t + 4, n g); C
// (g, 2t), (g, 2t + 1), (g + 8, 2t), (g + 8, 2t + 1)) and with a model of the tensor cores'
// arithmetic: the operands' low 13 bits are ignored (TF32), the products are exact, and the
// sum of the 8 products and the accumulator is rounded toward zero to float32 (Fasi et al.,
// 2021; the hardware truncates in its alignment too, which this model leaves out). cvt.rna
// .tf32.f32 rounds to nearest, ties away from zero, at bit 13.
//
// Each size checks every element against an FP64 reference with the op's bounds (matmul.h:
// fp32 the worst-case gamma_K sum|a||b| and the statistical 8 u sqrt(K) (sqrt(sum p^2) +
// |ref|); tf32 its own), the guards around C, the copies left pending and the bank conflicts
// (there must be none). In fp32 (3xTF32) it also compares the largest error with that of a
// sequential FFMA sum of the same inputs (cuBLAS SGEMM's arithmetic): at K >= 64 (the
// tensor-core path) the kernel's must be no larger, unless the build is ACC_DIRECT (the
// experiment the kernel documents), which prints the comparison only.
#include "kemu_buffers.hpp"
#include "kemu_smem.hpp"

#include <random>

// cvt.rna.tf32.f32: to nearest at bit 13, ties away from zero (the magnitude's bits round up
// at half); infinities and NaN pass through
inline unsigned to_tf32(float x)
{
    const unsigned u = __float_as_uint(x);
    if ((u & 0x7f800000u) == 0x7f800000u)
        return u;
    return (u + 0x1000u) & 0xffffe000u;
}

// mma.sync.m16n8k8.row.col.f32.tf32.tf32.f32 (the model above)
inline void mma1688(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2],
                    const float (&c)[4])
{
    const int w = kemu::warp_id(), l = kemu::linear_id() % 32, g = l / 4, t = l % 4;
    for (int i = 0; i < 4; i++)
        emu::exchange[w][l][i] = a[i];
    emu::exchange[w][l][4] = b[0], emu::exchange[w][l][5] = b[1];
    emu::warp_sync();
    auto tf32 = [](unsigned reg) { return (double)__uint_as_float(reg & 0xffffe000u); };
    float out[4];
    for (int q = 0; q < 4; q++) {
        const int row = g + 8 * (q / 2), col = 2 * t + q % 2;
        double s = c[q]; // the products of TF32 values (11 significant bits) are exact
        for (int k = 0; k < 8; k++)
            s += tf32(emu::exchange[w][(row % 8) * 4 + k % 4][row / 8 + 2 * (k / 4)]) *
                 tf32(emu::exchange[w][col * 4 + k % 4][4 + k / 4]);
        float f = (float)s; // to nearest; then toward zero
        if (std::fabs((double)f) > std::fabs(s))
            f = std::nextafter(f, 0.0f);
        out[q] = f;
    }
    emu::warp_sync(); // everyone has read before the next collective
    for (int q = 0; q < 4; q++)
        d[q] = out[q];
}

inline void cluster_load4(float (&v)[4], const float *local, unsigned rank)
{
    cluster_copy(v, local, rank, 16);
}

#include KERNEL_SOURCE

int main()
{
    // ragged sizes on both sides of fp32's small-K path (K < 64), K not a multiple of 4 (the
    // guarded path), more tiles than a group of GROUP_M, and (last, run once: the emulated mma
    // are slow) a K long enough for the error comparison
    const int sizes[][3] = {{1, 1, 1},      {17, 33, 9},   {37, 45, 53},   {64, 128, 64},
                            {100, 96, 208}, {130, 72, 96}, {300, 136, 72}, {33, 200, 250},
                            {3, 5, 33},     {45, 37, 75},  {64, 64, 1024}};
    const int nsizes = sizeof sizes / sizeof sizes[0];
#ifdef CUTUNE_DTYPE_TF32
    const bool tf32 = true;
#else
    const bool tf32 = false;
#endif
    std::mt19937 gen(12345);
    int failures = 0;
    for (int si = 0; si < nsizes; si++) {
        const int M = sizes[si][0], N = sizes[si][1], K = sizes[si][2];
        auto same = [](float x) { return x; };
        const std::vector<float> ha = emu::random_inputs<float>(gen, (size_t)M * K, same);
        const std::vector<float> hb = emu::random_inputs<float>(gen, (size_t)K * N, same);
        // the FP64 reference, sum |p|, sum p^2, and a sequential FFMA sum (SGEMM's arithmetic)
        // per element (B is K x N for nn, N x K for nt)
        const size_t mn = (size_t)M * N;
        std::vector<double> ref(mn), mag(mn), sq(mn);
        std::vector<float> seq(mn);
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                double r = 0, m = 0, q = 0;
                float f = 0.0f;
                for (int k = 0; k < K; k++) {
#ifdef CUTUNE_LAYOUT_NT
                    const float bv = hb[(size_t)j * K + k];
#else
                    const float bv = hb[(size_t)k * N + j];
#endif
                    const double p = (double)ha[(size_t)i * K + k] * bv;
                    r += p, m += std::fabs(p), q += p * p;
                    f = std::fmaf(ha[(size_t)i * K + k], bv, f);
                }
                ref[(size_t)i * N + j] = r, mag[(size_t)i * N + j] = m, sq[(size_t)i * N + j] = q;
                seq[(size_t)i * N + j] = f;
            }
        // the op's bounds (matmul.h, matmul_ref.cu's cutune_matmul_bounds)
        const double u = 0x1p-24, g1 = K * u / (1 - K * u), g2 = 2.0 * K * u / (1 - 2.0 * K * u);
        double seq_max = 0;
        for (size_t e = 0; e < mn; e++)
            seq_max = std::max(seq_max, std::fabs(seq[e] - ref[e]));
        const dim3 grid{(unsigned)(((M + BM - 1) / BM) * ((N + BN - 1) / BN)), 1, SPLITK};
        // shift (run / 4) x warps in step or running ahead (run / 2 % 2) x cp.async landing at
        // once or at the wait (run % 2)
        for (int run = 0; run < (si + 1 < nsizes ? 8 : 1); run++) {
            const int shift = run / 4;
            kemu::warps_run_ahead = run / 2 % 2;
            emu::deferred = run % 2;
            emu::Buffers<float> bf;
            emu::buffers_make(&bf, ha, hb, mn, shift, -1234.5f, (float)NAN);
            emu::ldmatrix_conflicts = emu::copies.conflicts = emu::loads.conflicts = 0;
            kemu::launch_cluster(grid, dim3{NT, 1, 1}, SPLITK, matmul_tf32, (const float *)bf.A,
                                 (const float *)bf.B, bf.C, M, N, K, (const float *)nullptr);
            emu::count_conflicts(emu::copies, NT * SPLITK);
            emu::count_conflicts(emu::loads, NT * SPLITK);
            long wrong = 0, outside = 0, first = -1;
            double max_err = 0;
            for (size_t e = 0; e < mn; e++) {
                const double c = bf.C[e], w = std::sqrt(sq[e]) + std::fabs(ref[e]);
                const double stat = 8.0 * u * std::sqrt((double)K) * w +
                                    (tf32 ? 4 * 0x1p-10 * w : 0);
                const double worst = tf32 ? (0x1p-9 + 0x1p-20 + g2) * mag[e] : g1 * mag[e];
                const double err = std::fabs(c - ref[e]);
                if (!(err <= std::min(stat, worst)) && wrong++ == 0)
                    first = (long)e;
                if (err == err)
                    max_err = std::max(max_err, err);
            }
            for (int e = 0; e < emu::GUARD; e++)
                outside += (bf.C[-1 - e] != -1234.5f) + (bf.C[mn + e] != -1234.5f);
            const long pending = emu::pending_copies();
            const long conflicts = emu::ldmatrix_conflicts + emu::copies.conflicts +
                                   emu::loads.conflicts;
            // 3xTF32's promise, on the tensor-core path: no more error than SGEMM's arithmetic
            const bool judged = !tf32 && K >= 64 && !ACC_DIRECT;
            const bool worse = !tf32 && max_err > seq_max;
            const bool bad = wrong || outside || pending || conflicts || (judged && worse);
            failures += bad;
            printf("%dx%dx%d %s, warps %s, copies %s: %ld wrong, %ld written outside C, %ld "
                   "copies left, %ld + %ld + %ld bank conflicts (ldmatrix + cp.async + "
                   "ld.shared.v4)",
                   M, N, K, shift ? "misaligned" : "aligned",
                   kemu::warps_run_ahead ? "running ahead" : "in step",
                   emu::deferred ? "at the wait" : "at once", wrong, outside, pending,
                   emu::ldmatrix_conflicts, emu::copies.conflicts, emu::loads.conflicts);
            if (!tf32)
                printf(", max err %.3g (sequential FFMA %.3g: %.2fx)%s", max_err, seq_max,
                       seq_max > 0 ? max_err / seq_max : 0.0,
                       worse ? (judged ? " WORSE" : " (worse, not judged)") : "");
            else
                printf(", max err %.3g", max_err);
            printf(": %s", bad ? "FAIL" : "ok");
            if (first >= 0)
                printf(" (first [%ld][%ld]: %.9g, FP64 %.9g)", first / N, first % N,
                       (double)bf.C[first], ref[(size_t)first]);
            printf("\n");
        }
    }
    return failures != 0;
}
