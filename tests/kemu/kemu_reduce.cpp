// reduce_sum kernels on the CPU (kemu.hpp): awkward sizes, three launches in a row on the
// same scratch memory; the sum must be within the op's tolerance (plugins/reduce_sum/
// reduce_sum.h) and the counter back at zero after every launch. Built once per config;
// KERNEL (the kernel's name) and the config's parameters come as -D macros.
#include "kemu.hpp"
#include "../../tuning_spaces/reduce_finish.cuh" // in front of the kernel, as the variants' headers = key puts it
#include KERNEL_SOURCE
#include <cstdio>
#include <random>

// The launch geometry, as the variants' [launch] sections say.
static long long grid_for(long long n)
{
#if defined(UNROLL)
    return (n + BLOCK * UNROLL - 1) / (BLOCK * UNROLL); // reduce_interleaved
#elif defined(BLOCKS_PER_SM)
    return std::min<long long>(BLOCKS_PER_SM * 132LL, (n + BLOCK * VEC - 1) / (BLOCK * VEC)); // reduce_shuffle
#else
    return (n + BLOCK - 1) / BLOCK; // reduce_neighbored
#endif
}

int main()
{
    int failures = 0;
    for (long long n : {1LL, 97LL, 5003LL, 30011LL}) {
        std::vector<float> x((size_t)n);
        std::mt19937 gen((unsigned)n);
        std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
        double ref = 0, max_abs = 0;
        for (auto &v : x) {
            v = dist(gen);
            ref += v;
            max_abs = std::max(max_abs, (double)std::fabs(v));
        }
        std::vector<float> partials((size_t)std::max((n + 31) / 32, 4096LL));
        unsigned counter = 0;
        const long long grid = grid_for(n);
        const double tol = 8 * 0x1p-24 * std::pow((double)n, 0.75) * max_abs;
        for (int launch = 1; launch <= 3; launch++) {
            float out = NAN;
            kemu::launch(dim3{(unsigned)grid, 1, 1}, dim3{BLOCK, 1, 1}, KERNEL, (const float *)x.data(), &out,
                         partials.data(), &counter, n);
            const bool ok = std::fabs(out - ref) <= tol && counter == 0;
            failures += !ok;
            printf("n=%lld grid=%lld launch %d: %.9g, reference %.9g, counter %u: %s\n", n, grid, launch,
                   (double)out, ref, counter, ok ? "ok" : "FAIL");
        }
    }
    return failures != 0;
}
