// The vendor baselines of bench_memory (vendor_baselines.h): cudaMemcpy and CUB.
#include "vendor_baselines.h"

#include <cub/device/device_histogram.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#define VB_CHECK(call)                                                                      \
    do {                                                                                    \
        cudaError_t e_ = (call);                                                            \
        if (e_ != cudaSuccess) {                                                            \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,             \
                         cudaGetErrorString(e_));                                           \
            return -1.0;                                                                    \
        }                                                                                   \
    } while (0)

// Median ms of one call of f (which returns a cudaError_t), as vendor_baselines.h says.
template <class F> static double time_median(F f)
{
    cudaEvent_t e0, e1;
    VB_CHECK(cudaEventCreate(&e0));
    VB_CHECK(cudaEventCreate(&e1));
    for (int i = 0; i < 3; i++)
        VB_CHECK(f());
    VB_CHECK(cudaEventRecord(e0, 0));
    VB_CHECK(f());
    VB_CHECK(cudaEventRecord(e1, 0));
    VB_CHECK(cudaEventSynchronize(e1));
    float once = 0;
    VB_CHECK(cudaEventElapsedTime(&once, e0, e1));
    int reps = once > 0 ? (int)(0.5f / once) + 1 : 1;
    reps = std::min(reps, 1000);
    std::vector<double> v;
    for (int s = 0; s < 21; s++) {
        VB_CHECK(cudaEventRecord(e0, 0));
        for (int r = 0; r < reps; r++)
            VB_CHECK(f());
        VB_CHECK(cudaEventRecord(e1, 0));
        VB_CHECK(cudaEventSynchronize(e1));
        float ms = 0;
        VB_CHECK(cudaEventElapsedTime(&ms, e0, e1));
        v.push_back((double)ms / reps);
    }
    VB_CHECK(cudaEventDestroy(e0));
    VB_CHECK(cudaEventDestroy(e1));
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

extern "C" double vb_memcpy_d2d(const void *src, size_t bytes)
{
    void *dst = nullptr;
    VB_CHECK(cudaMalloc(&dst, bytes));
    double ms = time_median([&] { return cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice); });
    VB_CHECK(cudaFree(dst));
    return ms;
}

extern "C" double vb_reduce_sum(const float *x, long long n, float *sum)
{
    float *out = nullptr;
    void *tmp = nullptr;
    size_t tmp_bytes = 0;
    VB_CHECK(cudaMalloc(&out, sizeof(float)));
    VB_CHECK(cub::DeviceReduce::Sum(nullptr, tmp_bytes, x, out, (int)n));
    VB_CHECK(cudaMalloc(&tmp, tmp_bytes));
    double ms = time_median([&] { return cub::DeviceReduce::Sum(tmp, tmp_bytes, x, out, (int)n); });
    VB_CHECK(cudaMemcpy(sum, out, sizeof(float), cudaMemcpyDeviceToHost));
    VB_CHECK(cudaFree(tmp));
    VB_CHECK(cudaFree(out));
    return ms;
}

template <class Sample, class Level>
static double histogram(const Sample *x, long long n, Level lo, Level hi, unsigned *bins_out)
{
    unsigned *bins = nullptr;
    void *tmp = nullptr;
    size_t tmp_bytes = 0;
    VB_CHECK(cudaMalloc(&bins, 256 * sizeof(unsigned)));
    VB_CHECK(cub::DeviceHistogram::HistogramEven(nullptr, tmp_bytes, x, bins, 257, lo, hi, (int)n));
    VB_CHECK(cudaMalloc(&tmp, tmp_bytes));
    double ms = time_median(
        [&] { return cub::DeviceHistogram::HistogramEven(tmp, tmp_bytes, x, bins, 257, lo, hi, (int)n); });
    VB_CHECK(cudaMemcpy(bins_out, bins, 256 * sizeof(unsigned), cudaMemcpyDeviceToHost));
    VB_CHECK(cudaFree(tmp));
    VB_CHECK(cudaFree(bins));
    return ms;
}

extern "C" double vb_histogram_u8(const unsigned char *x, long long n, unsigned *bins)
{
    return histogram<unsigned char, int>(x, n, 0, 256, bins);
}

extern "C" double vb_histogram_f32(const float *x, long long n, unsigned *bins)
{
    return histogram<float, float>(x, n, -1.0f, 1.0f, bins);
}

__global__ static void iota(int *v, long long n)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        v[i] = (int)i;
}

extern "C" double vb_radix_sort(const float *x, long long n, int pairs)
{
    float *keys_out = nullptr;
    int *idx_in = nullptr, *idx_out = nullptr;
    void *tmp = nullptr;
    size_t tmp_bytes = 0;
    VB_CHECK(cudaMalloc(&keys_out, n * sizeof(float)));
    if (pairs) {
        VB_CHECK(cudaMalloc(&idx_in, n * sizeof(int)));
        VB_CHECK(cudaMalloc(&idx_out, n * sizeof(int)));
        iota<<<1024, 256>>>(idx_in, n);
        VB_CHECK(cudaGetLastError());
        VB_CHECK(cub::DeviceRadixSort::SortPairsDescending(nullptr, tmp_bytes, x, keys_out, idx_in,
                                                           idx_out, (int)n));
    } else {
        VB_CHECK(cub::DeviceRadixSort::SortKeysDescending(nullptr, tmp_bytes, x, keys_out, (int)n));
    }
    VB_CHECK(cudaMalloc(&tmp, tmp_bytes));
    double ms = time_median([&] {
        return pairs ? cub::DeviceRadixSort::SortPairsDescending(tmp, tmp_bytes, x, keys_out, idx_in,
                                                                 idx_out, (int)n)
                     : cub::DeviceRadixSort::SortKeysDescending(tmp, tmp_bytes, x, keys_out, (int)n);
    });
    VB_CHECK(cudaFree(tmp));
    VB_CHECK(cudaFree(keys_out));
    VB_CHECK(cudaFree(idx_in));
    VB_CHECK(cudaFree(idx_out));
    return ms;
}
