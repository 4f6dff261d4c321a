// The transpose op's reference, on the device: the output must be bit-identical to it (a
// transpose moves values without arithmetic). Written for clarity, independent of every
// variant under test.

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
