// The matadd op's reference, on the device: one IEEE addition has one correctly rounded
// result, so the output must be bit-identical to it. Written for clarity, independent of
// every variant under test.

// Cref = A + B over n elements.
extern "C" __global__ void cutune_ref_add(const float *__restrict__ A, const float *__restrict__ B,
                                          float *__restrict__ Cref, unsigned long long n)
{
    for (unsigned long long e = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; e < n;
         e += (unsigned long long)gridDim.x * blockDim.x)
        Cref[e] = A[e] + B[e];
}
