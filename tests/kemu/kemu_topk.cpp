// topk_filter on the CPU (kemu.hpp): k from 1 to 1024 (k = n included), and a data set
// with heavy ties (values rounded to 1/64); two launches in a row on the same scratch
// memory. The values must be the k largest in order, the indices distinct and pointing
// at their values, and the counter back at zero. Built once per config.
#include "kemu.hpp"
#include "../../tuning_spaces/last_block.cuh" // in front of the kernel, as the variants' headers = key puts it
#include KERNEL_SOURCE
#include <cstdio>
#include <functional>
#include <random>

int main()
{
    int failures = 0;
    const long long cases[][3] = {{1, 1, 0},        {97, 5, 0},       {1024, 1024, 0}, {5000, 1, 0},
                                  {60013, 1024, 0}, {30011, 300, 0}, {20011, 1000, 1}};
    for (const auto &c : cases) {
        const long long n = c[0];
        const int k = (int)c[1];
        std::vector<float> x((size_t)n);
        std::mt19937 gen((unsigned)n);
        std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
        for (auto &v : x)
            v = c[2] ? std::round(dist(gen) * 64) / 64 : dist(gen);
        std::vector<float> ref = x;
        std::sort(ref.begin(), ref.end(), std::greater<float>());
        const long long tiles = (n + BLOCK * ITEMS - 1) / (BLOCK * ITEMS);
        const long long grid = std::min<long long>(BLOCKS_PER_SM * 132LL, tiles);
        std::vector<float> part_val((size_t)(grid * k)), val((size_t)k);
        std::vector<int> part_idx((size_t)(grid * k)), idx((size_t)k);
        unsigned counter = 0;
        for (int launch = 1; launch <= 2; launch++) {
            std::fill(val.begin(), val.end(), NAN);
            std::fill(idx.begin(), idx.end(), -1);
            kemu::launch(dim3{(unsigned)grid, 1, 1}, dim3{BLOCK, 1, 1}, topk_filter, (const float *)x.data(), val.data(),
                         idx.data(), part_val.data(), part_idx.data(), &counter, n, k);
            long bad = counter != 0;
            for (int i = 0; i < k; i++)
                bad += !(val[i] == ref[i]) || idx[i] < 0 || idx[i] >= n || !(x[idx[i]] == val[i]);
            std::vector<int> sorted = idx;
            std::sort(sorted.begin(), sorted.end());
            for (int i = 1; i < k; i++)
                bad += sorted[i] == sorted[i - 1];
            failures += bad != 0;
            printf("n=%lld k=%d%s grid=%lld launch %d: %ld faults: %s\n", n, k, c[2] ? " (ties)" : "", grid, launch,
                   bad, bad ? "FAIL" : "ok");
        }
    }
    return failures != 0;
}
