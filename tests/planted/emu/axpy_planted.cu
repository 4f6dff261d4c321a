// An axpy "variant" with planted bugs, for `cutune check --run`. BUG selects one:
//   0  correct
//   1  out[0] 1e-3 (relative) too large: the op's check must fail it
//   2  writes far past its output: the run must end in a crash, said as such
//   3  half the block waits at a barrier the other half never reaches: the emulation
//      must say so rather than hang
extern "C" __global__ void axpy_planted(const float *x, const float *y, float *out, float a,
                                        long long n)
{
    long long i = blockIdx.x * 128LL + threadIdx.x;
#if BUG == 2
    out[i + (1LL << 34)] = 1.0f;
#endif
#if BUG == 3
    if (threadIdx.x < 64)
        __syncthreads();
#endif
    if (i < n)
        out[i] = (a * x[i] + y[i]) * (BUG == 1 && i == 0 ? 1.001f : 1.0f);
}
