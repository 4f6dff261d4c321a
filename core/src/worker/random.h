/* The seeded inputs of every op (host->random_uniform): uniform floats from splitmix64. */
#ifndef CUTUNE_WORKER_RANDOM_H
#define CUTUNE_WORKER_RANDOM_H

#include <stddef.h>
#include <stdint.h>

/* dst[0..n) uniform in [lo, hi) from seed and generator stream `stream`: element i is the
 * (i+1)-th splitmix64 output of the stream's state, whatever the number of threads. Large
 * fills are split over up to `threads` threads (0: the CPUs online, at most 16): one thread
 * drew a 32000 x 8192 operand in about 1.5-4.6 s, twice a size (its own and the ragged
 * check's inputs). */
void cutune_random_uniform_threads(uint64_t seed, uint64_t stream, float *dst, size_t n, float lo,
                                   float hi, int threads);
/* The same with the default threads. */
void cutune_random_uniform(uint64_t seed, uint64_t stream, float *dst, size_t n, float lo,
                           float hi);

/* The stream's state before its first element (element i is splitmix64 of this plus i + 1
 * steps). */
uint64_t cutune_random_first_state(uint64_t seed, uint64_t stream);
/* The same numbers made on the device (host->random_uniform_device): the CUDA source of
 * extern "C" __global__ void cutune_random_uniform(float *dst, unsigned long long n,
 * unsigned long long first_state, float lo, float hi), grid-stride over n. */
extern const char cutune_random_uniform_cu[];

#endif
