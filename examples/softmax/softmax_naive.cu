// softmax_naive: one thread a row (the variant of the out-of-tree softmax op). Three passes
// over the row: its maximum, the sum of exp(x - max), then each exp(x - max) / sum.
// Parameters (softmax_naive.ini) arrive as macros: BLOCK threads a block, UNROLL the unroll
// factor of the two exp loops (a pragma takes a macro only through _Pragma).
#define SOFTMAX_STR_(x) #x
#define SOFTMAX_STR(x) SOFTMAX_STR_(x)
#define SOFTMAX_UNROLL(n) _Pragma(SOFTMAX_STR(unroll n))
extern "C" __global__ void __launch_bounds__(BLOCK)
softmax_naive(const float *__restrict__ x, float *__restrict__ y, int R, int C)
{
    int row = blockIdx.x * BLOCK + threadIdx.x;
    if (row >= R)
        return;
    const float *in = x + (size_t)row * C;
    float *out = y + (size_t)row * C;
    float mx = in[0];
    for (int j = 1; j < C; j++)
        mx = fmaxf(mx, in[j]);
    float sum = 0.0f;
    SOFTMAX_UNROLL(UNROLL)
    for (int j = 0; j < C; j++)
        sum += expf(in[j] - mx);
    float inv = 1.0f / sum;
    SOFTMAX_UNROLL(UNROLL)
    for (int j = 0; j < C; j++)
        out[j] = expf(in[j] - mx) * inv;
}
