// matadd_2d on the CPU (kemu.hpp): shapes whose width is and is not a multiple of 4 (the
// float4 path and its scalar fallback); the grid's y extent is capped at 3 so that the loop
// over rows is exercised. Every element must be the float sum. Built once per config.
#include "kemu.hpp"
#include KERNEL_SOURCE
#include <cstdio>

int main()
{
    int failures = 0;
    const int sizes[][2] = {{1, 1}, {97, 61}, {3, 1001}, {70, 8}, {5, 4}};
    for (const auto &mn : sizes) {
        const int M = mn[0], N = mn[1];
        std::vector<float> A((size_t)M * N), B(A.size()), C(A.size(), NAN);
        for (size_t i = 0; i < A.size(); i++) {
            A[i] = (float)i * 0.25f;
            B[i] = 1.0f / (float)(i + 1);
        }
        const dim3 grid{(unsigned)((N + BLOCK_X * VEC - 1) / (BLOCK_X * VEC)),
                        (unsigned)std::min(3, (M + BLOCK_Y - 1) / BLOCK_Y), 1};
        kemu::launch(grid, dim3{BLOCK_X, BLOCK_Y, 1}, matadd_2d, (const float *)A.data(), (const float *)B.data(),
                     C.data(), M, N);
        long wrong = 0;
        for (size_t i = 0; i < A.size(); i++)
            wrong += !(C[i] == A[i] + B[i]);
        failures += wrong != 0;
        printf("%dx%d: %ld elements wrong: %s\n", M, N, wrong, wrong ? "FAIL" : "ok");
    }
    return failures != 0;
}
