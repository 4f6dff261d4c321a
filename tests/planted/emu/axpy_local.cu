// An axpy "variant" for `cutune check`'s local-memory note. LOCAL = 1 adds zero times one of
// 32 values picked at run time from an array, which the compiler keeps on the stack (an
// array indexed by a value known only at run time); LOCAL = 0 is the plain axpy. Both are
// right (the inputs are finite): the note says slower, not wrong.
extern "C" __global__ void axpy_local(const float *x, const float *y, float *out, float a,
                                      long long n)
{
    long long i = blockIdx.x * 128LL + threadIdx.x;
    if (i >= n)
        return;
#if LOCAL
    float f[32];
    for (int k = 0; k < 32; k++)
        f[k] = x[(i + k) % n];
    out[i] = a * x[i] + y[i] + 0.0f * f[(int)(i * 7 % 32)];
#else
    out[i] = a * x[i] + y[i];
#endif
}
