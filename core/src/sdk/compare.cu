// The op SDK's comparisons on the device (cutune/op.h: host->compare_f32, compare_exact).
// compare_rule.h comes in front of this file.
//
// cutune_compare_f32: a float output against a double-precision reference, element by
// element as cutune_compare_element says (mag is the op's worst-case error scale for that
// element, for matmul sum_k |a_ik| |b_kj|; scale, when given, its statistical one). Norm
// test (on the host): sqrt(sum d^2 / sum ref^2).
//
// acc[0] += sum of (out - ref)^2 over finite outputs, acc[1] += sum of ref^2
// bad[0] += elements failing the element test, bad[1] = min failing index (init ~0ull)
extern "C" __global__ void cutune_compare_f32(const float *__restrict__ out,
                                              const double *__restrict__ ref,
                                              const double *__restrict__ mag,
                                              const double *__restrict__ scale,
                                              unsigned long long n, double gamma, double tau,
                                              double floor_abs, double *acc,
                                              unsigned long long *bad)
{
    double d2 = 0.0, r2 = 0.0;
    unsigned long long nbad = 0, first = ~0ull;
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x) {
        double o = (double)out[i], r = ref[i], d = o - r;
        if (cutune_compare_element(o, r, mag[i], gamma, scale != nullptr, scale ? scale[i] : 0,
                                   tau, floor_abs) != 0) {
            nbad++;
            first = i < first ? i : first;
        }
        if (isfinite(d))
            d2 += d * d;
        r2 += r * r;
    }
    for (int off = 16; off > 0; off >>= 1) {
        d2 += __shfl_down_sync(0xffffffffu, d2, off);
        r2 += __shfl_down_sync(0xffffffffu, r2, off);
        nbad += __shfl_down_sync(0xffffffffu, nbad, off);
        unsigned long long f = __shfl_down_sync(0xffffffffu, first, off);
        first = f < first ? f : first;
    }
    if ((threadIdx.x & 31) == 0) {
        atomicAdd(&acc[0], d2);
        atomicAdd(&acc[1], r2);
        if (nbad) {
            atomicAdd(&bad[0], nbad);
            atomicMin(&bad[1], first);
        }
    }
}

// cutune_compare_exact: bad[0] += 32-bit words of out that differ from ref; bad[1] = the
// lowest differing index (init ~0ull).
extern "C" __global__ void cutune_compare_exact(const unsigned *__restrict__ out,
                                                const unsigned *__restrict__ ref,
                                                unsigned long long n, unsigned long long *bad)
{
    unsigned long long nbad = 0, first = ~0ull;
    for (unsigned long long e = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; e < n;
         e += (unsigned long long)gridDim.x * blockDim.x)
        if (out[e] != ref[e]) {
            nbad++;
            first = e < first ? e : first;
        }
    for (int off = 16; off > 0; off >>= 1) {
        nbad += __shfl_down_sync(0xffffffffu, nbad, off);
        unsigned long long f = __shfl_down_sync(0xffffffffu, first, off);
        first = f < first ? f : first;
    }
    if ((threadIdx.x & 31) == 0 && nbad) {
        atomicAdd(&bad[0], nbad);
        atomicMin(&bad[1], first);
    }
}
