// Device-side references and an exact comparison for the ops whose result involves at most
// one rounding (transpose moves values, matadd adds two): the output must be bit-identical.
// Written for clarity, independent of every variant under test.

// Bref[j][i] = A[i][j]; A is R x C. One thread per element, a grid-stride loop.
extern "C" __global__ void cutune_ref_transpose(const float *__restrict__ A, float *__restrict__ Bref,
                                                int R, int C)
{
    unsigned long long n = (unsigned long long)R * C;
    for (unsigned long long e = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; e < n;
         e += (unsigned long long)gridDim.x * blockDim.x) {
        unsigned long long i = e / C, j = e % C;
        Bref[j * R + i] = A[e];
    }
}

// Cref = A + B over n elements.
extern "C" __global__ void cutune_ref_add(const float *__restrict__ A, const float *__restrict__ B,
                                          float *__restrict__ Cref, unsigned long long n)
{
    for (unsigned long long e = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; e < n;
         e += (unsigned long long)gridDim.x * blockDim.x)
        Cref[e] = A[e] + B[e];
}

// bad[0] += words of out that differ from ref; bad[1] = min differing index (init ~0ull).
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
