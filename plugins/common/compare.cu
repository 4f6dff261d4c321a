// Compare a float output with a double-precision reference, on the device.
//
// Element test: |out - ref| <= gamma * mag + 1e-30, where mag is the op's a-priori error
// scale for that element (for matmul, sum_k |a_ik| |b_kj|). NaN or infinity never passes:
// every comparison with NaN is false. Norm test (on the host): sqrt(sum d^2 / sum ref^2).
//
// acc[0] += sum of (out - ref)^2 over finite outputs, acc[1] += sum of ref^2
// bad[0] += elements failing the element test, bad[1] = min failing index (init ~0ull)
extern "C" __global__ void cutune_compare_f32(const float *__restrict__ out,
                                              const double *__restrict__ ref,
                                              const double *__restrict__ mag,
                                              unsigned long long n, double gamma, double *acc,
                                              unsigned long long *bad)
{
    double d2 = 0.0, r2 = 0.0;
    unsigned long long nbad = 0, first = ~0ull;
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x) {
        double o = (double)out[i], r = ref[i], d = o - r;
        bool ok = fabs(d) <= gamma * mag[i] + 1e-30;
        if (!ok) {
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
