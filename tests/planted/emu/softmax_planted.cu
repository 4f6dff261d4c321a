// A softmax "variant" with planted bugs, one thread a row (as softmax_naive). BUG selects one:
//   0  correct
//   1  no subtraction of the row's maximum: exp overflows or underflows for large inputs
//   2  right but for y[0][0], 1e-3 (relative) too large
// The op's check (examples/softmax/softmax.c) must pass 0 and fail 1 and 2, at 32768
// columns as at fewer.
extern "C" __global__ void softmax_planted(const float *x, float *y, int R, int C)
{
    int row = blockIdx.x * 32 + threadIdx.x;
    if (row >= R)
        return;
    const float *in = x + (size_t)row * C;
    float *out = y + (size_t)row * C;
    float mx = in[0];
    for (int j = 1; j < C; j++)
        mx = fmaxf(mx, in[j]);
#if BUG == 1
    mx = 0.0f;
#endif
    float sum = 0.0f;
    for (int j = 0; j < C; j++)
        sum += expf(in[j] - mx);
    float inv = 1.0f / sum;
    for (int j = 0; j < C; j++)
        out[j] = expf(in[j] - mx) * inv;
#if BUG == 2
    if (row == 0)
        out[0] *= 1.001f;
#endif
}
