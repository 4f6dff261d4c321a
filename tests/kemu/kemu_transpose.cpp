// transpose kernels on the CPU (kemu.hpp): square, thin and wide matrices that are no
// multiple of any tile; the grid's y extent is capped at 2 so that the loop over the rows
// of the grid is exercised too. Every element must arrive. Built once per config.
#include "kemu.hpp"
#include KERNEL_SOURCE
#include <cstdio>

int main()
{
    int failures = 0;
    const int sizes[][2] = {{1, 1}, {97, 61}, {131, 257}, {3, 300}, {300, 3}, {64, 128}};
    for (const auto &rc : sizes) {
        const int R = rc[0], C = rc[1];
        std::vector<float> A((size_t)R * C), B(A.size());
        for (size_t i = 0; i < A.size(); i++)
            A[i] = (float)i + 0.5f;
        std::fill(B.begin(), B.end(), NAN);
#ifdef TILE // transpose_tiled
        const dim3 block{TILE / VEC, ROWS, 1};
        const dim3 grid{(unsigned)((C + TILE - 1) / TILE), (unsigned)std::min(2, (R + TILE - 1) / TILE), 1};
#else // transpose_naive
        const int along = ORDER == 0 ? C : R, across = ORDER == 0 ? R : C;
        const dim3 block{BLOCK_X, BLOCK_Y, 1};
        const dim3 grid{(unsigned)((along + BLOCK_X - 1) / BLOCK_X), (unsigned)std::min(2, (across + BLOCK_Y - 1) / BLOCK_Y), 1};
#endif
        kemu::launch(grid, block, KERNEL, (const float *)A.data(), B.data(), R, C);
        long wrong = 0;
        for (int i = 0; i < R; i++)
            for (int j = 0; j < C; j++)
                wrong += !(B[(size_t)j * R + i] == A[(size_t)i * C + j]);
        failures += wrong != 0;
        printf("%dx%d: %ld elements wrong: %s\n", R, C, wrong, wrong ? "FAIL" : "ok");
    }
    return failures != 0;
}
