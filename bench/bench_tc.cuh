// What bench_mma.cu and bench_tf32.cu share: problem sizes ("MxNxK" lists), the random
// inputs' hash, the grid of the elementwise kernels, and the median time of a launch.
// Include after cuda_check.h.
#ifndef CUTUNE_BENCH_TC_CUH
#define CUTUNE_BENCH_TC_CUH

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

struct Size {
    int M, N, K;
};

static bool parse_sizes(const char *list, std::vector<Size> *out)
{
    out->clear();
    std::stringstream ss(list);
    std::string item;
    while (std::getline(ss, item, ',')) {
        Size s;
        if (sscanf(item.c_str(), "%dx%dx%d", &s.M, &s.N, &s.K) != 3 || s.M < 1 || s.N < 1 ||
            s.K < 1)
            return false;
        out->push_back(s);
    }
    return !out->empty();
}

static std::string size_text(const Size &s)
{
    return std::to_string(s.M) + "x" + std::to_string(s.N) + "x" + std::to_string(s.K);
}

__device__ uint64_t mix(uint64_t x) // splitmix64's finaliser
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static int grid_for(size_t n)
{
    return (int)std::min<size_t>((n + 255) / 256, 65535 * 4);
}

// Median milliseconds of `reps` launches (each timed alone, after 3 warm-up launches).
template <class F> static double time_ms(F launch, int reps)
{
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    for (int i = 0; i < 3; i++)
        CK(launch());
    std::vector<float> t(reps);
    for (int i = 0; i < reps; i++) {
        CK(cudaEventRecord(a));
        CK(launch());
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        CK(cudaEventElapsedTime(&t[i], a, b));
    }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    std::sort(t.begin(), t.end());
    return t[reps / 2];
}

#endif
