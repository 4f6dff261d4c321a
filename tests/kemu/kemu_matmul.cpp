// matmul_async on the CPU (kemu.hpp): the cp.async pipeline's stage rotation, the zero fill
// of edge tiles and of the K range past a slice, the 16-byte and 4-byte copy paths for B
// (N % 4 == 0 or not), and the split-K finish with its per-tile counters, which every
// launch must leave at 0. cp.async is emulated by an immediate copy (zeros when the source
// is out of range), so a missing barrier shows as a wrong result. Built once per config.
#include "kemu.hpp"
#include <cstdio>
#include <random>

#define CUTUNE_KEMU 1
inline void cp_async4(float *dst, const float *src, bool valid) { *dst = valid ? *src : 0.0f; }
inline void cp_async16(float *dst, const float *src, bool valid)
{
    for (int j = 0; j < 4; j++)
        dst[j] = valid ? src[j] : 0.0f;
}
inline void cp_async_commit() {}
template <int N_> void cp_async_wait() {}
inline void red_add4(float *p, const float *v)
{
    for (int j = 0; j < 4; j++)
        atomicAdd(p + j, v[j]);
}

#include "../../tuning_spaces/matmul_tiles.cuh"
#include "../../tuning_spaces/matmul_warp.cuh"
#include KERNEL_SOURCE

int main()
{
    int failures = 0;
    const int sizes[][3] = {{1, 1, 1}, {37, 45, 53}, {64, 128, 40}, {100, 96, 203}, {70, 33, 130}, {300, 130, 70}};
    std::mt19937 gen(12345);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (const auto &s : sizes) {
        const int M = s[0], N = s[1], K = s[2];
        std::vector<float> A((size_t)M * K), B((size_t)K * N), C((size_t)M * N);
        for (auto &x : A)
            x = dist(gen);
        for (auto &x : B)
            x = dist(gen);
        const dim3 grid{(unsigned)((N + BN - 1) / BN), (unsigned)((M + BM - 1) / BM), SPLITK};
        for (int rep = 0; rep < 2; rep++) { /* the second launch finds the counters reset */
            std::fill(C.begin(), C.end(), NAN);
            kemu::launch(grid, dim3{NT, 1, 1}, matmul_async, (const float *)A.data(), (const float *)B.data(),
                         C.data(), M, N, K, (const float *)nullptr);
            long wrong = 0;
            for (int i = 0; i < M; i++)
                for (int j = 0; j < N; j++) {
                    double ref = 0, mag = 0;
                    for (int k = 0; k < K; k++) {
                        ref += (double)A[(size_t)i * K + k] * B[(size_t)k * N + j];
                        mag += std::fabs((double)A[(size_t)i * K + k] * B[(size_t)k * N + j]);
                    }
                    double c = C[(size_t)i * N + j];
                    wrong += !(std::fabs(c - ref) <= 2.0 * K * 0x1p-24 * mag + 1e-30);
                }
            long dirty = 0;
#if SPLITK > 1
            for (unsigned t = 0; t < grid.x * grid.y; t++)
                dirty += matmul_async_slices_done[t] != 0;
#endif
            failures += wrong != 0 || dirty != 0;
            printf("%dx%dx%d launch %d: %ld elements wrong, %ld counters left set: %s\n", M, N, K, rep + 1,
                   wrong, dirty, wrong || dirty ? "FAIL" : "ok");
        }
    }
    return failures != 0;
}
