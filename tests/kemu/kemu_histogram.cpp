// histogram kernels on the CPU (kemu.hpp): the four data sets of plugins/histogram/
// histogram.h (bytes or floats, uniform or skewed) at awkward sizes, two launches in a
// row; the bins must equal the counts made here, and scratch and counter must be back at
// zero after each launch. Built once per config (-D macros).
#include "kemu.hpp"
#include "../../tuning_spaces/last_block.cuh" // in front of the kernel, as the variants' headers = key puts it
#include "../../tuning_spaces/histogram_finish.cuh"
#include KERNEL_SOURCE
#include <cstdio>
#include <random>
#ifndef ITEMS
#define ITEMS 1 // histogram_global has no ITEMS
#endif

int main()
{
    int failures = 0;
    for (int set = 0; set < 4; set++)
        for (long long n : {1LL, 7LL, 4099LL, 100003LL}) {
            const int is_float = set & 1, skewed = set >> 1;
            std::vector<unsigned char> u8((size_t)n);
            std::vector<float> f32((size_t)n);
            std::mt19937 gen((unsigned)(n + set));
            std::uniform_real_distribution<float> unit(0.0f, 1.0f);
            unsigned ref[256] = {0};
            for (long long i = 0; i < n; i++) {
                const bool hot = skewed && unit(gen) < 0.875f;
                const float v = unit(gen);
                if (is_float) {
                    const float x = hot ? 0.5f + v * 0.0078125f : -1.0625f + v * 2.125f;
                    f32[i] = x;
                    if (x >= -1.0f && x < 1.0f) {
                        const int b = (int)((x + 1.0f) * 128.0f);
                        ref[b < 255 ? b : 255]++;
                    }
                } else {
                    const int b = hot ? 200 : std::min(255, (int)(v * 256));
                    u8[i] = (unsigned char)b;
                    ref[b]++;
                }
            }
            unsigned bins[256], scratch[256] = {0}, counter = 0;
            const long long need = (n * (is_float ? 4 : 1) + 16LL * BLOCK * ITEMS - 1) / (16LL * BLOCK * ITEMS);
            const long long grid = std::min<long long>(BLOCKS_PER_SM * 132LL, need);
            for (int launch = 1; launch <= 2; launch++) {
                std::memset(bins, 0xFF, sizeof bins);
                kemu::launch(dim3{(unsigned)grid, 1, 1}, dim3{BLOCK, 1, 1}, KERNEL,
                             (const unsigned char *)(is_float ? nullptr : u8.data()),
                             (const float *)(is_float ? f32.data() : nullptr), bins, scratch, &counter, n, is_float);
                bool ok = std::memcmp(bins, ref, sizeof ref) == 0 && counter == 0;
                for (unsigned s : scratch)
                    ok = ok && s == 0;
                failures += !ok;
                printf("set %d (%s, %s) n=%lld grid=%lld launch %d: %s\n", set, is_float ? "floats" : "bytes",
                       skewed ? "skewed" : "uniform", n, grid, launch, ok ? "ok" : "FAIL");
            }
        }
    return failures != 0;
}
