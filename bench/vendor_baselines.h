/* The vendor baselines of bench_memory, in CUDA C++ (vendor_baselines.cu): cudaMemcpy and
 * CUB, timed with CUDA events on the default stream. Each function returns the median time
 * of one call in ms over its samples (batches of back-to-back calls lasting at least
 * 0.5 ms each), or a negative value after printing the failing CUDA call on stderr. Buffers
 * and temporary storage are allocated before timing and freed after. */
#ifndef CUTUNE_BENCH_VENDOR_BASELINES_H
#define CUTUNE_BENCH_VENDOR_BASELINES_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* cudaMemcpy device to device of `bytes` from src into a fresh buffer. */
double vb_memcpy_d2d(const void *src, size_t bytes);
/* cub::DeviceReduce::Sum over n floats; *sum receives the result of the last call. */
double vb_reduce_sum(const float *x, long long n, float *sum);
/* cub::DeviceHistogram::HistogramEven, 256 bins: bytes over [0, 256), or floats over
 * [-1, 1); bins (host, 256) receives the counts of the last call. */
double vb_histogram_u8(const unsigned char *x, long long n, unsigned *bins);
double vb_histogram_f32(const float *x, long long n, unsigned *bins);
/* cub::DeviceRadixSort, descending, of n float keys: with their int indices as values
 * (pairs != 0, what a top-k needs) or keys alone. */
double vb_radix_sort(const float *x, long long n, int pairs);

#ifdef __cplusplus
}
#endif
#endif
