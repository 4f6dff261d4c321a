// A matmul "variant" with planted bugs, for the GPU tests only. BUG selects one:
//   0  correct (one thread per element)
//   1  skips the last k term: off by one, and faster
//   2  leaves the last row of C unwritten, and faster
//   3  uses half of K: much faster and very wrong
//   4  asks for 2048 threads a block: must be recorded as skipped_resources
//   5  does not compile: must be recorded as compile_error
//   6  right but for C[0][0], 1e-3 (relative) too large: within the worst-case bound of the
//      matmul check at K >= 1000, past its statistical one
//   7  skips K's last partial tile of 64: right exactly when K % 64 == 0 (a config that may
//      win 1024^3 but must not answer 1020^3 through a lookup's nearest-size step)
// The tuner must record 1..3 and 6 as wrong_result and never pick them as best, though
// 1..3 time faster than 0.
#if BUG == 5
#error "planted compile error"
#endif
extern "C" __global__ void matmul_planted(const float *__restrict__ A, const float *__restrict__ B,
                                          float *__restrict__ C, int M, int N, int K,
                                          const float *__restrict__ bias)
{
    (void)bias; // NULL: matmul's bias epilogue is for fp16 and bf16
    int col = blockIdx.x * 16 + threadIdx.x, row = blockIdx.y * 16 + threadIdx.y;
    if (row >= M || col >= N)
        return;
#if BUG == 2
    if (row == M - 1)
        return;
#endif
#if BUG == 1
    int kend = K - 1;
#elif BUG == 3
    int kend = K / 2;
#elif BUG == 7
    int kend = K - K % 64;
#else
    int kend = K;
#endif
    float acc = 0.0f;
    for (int k = 0; k < kend; k++)
        acc += A[(size_t)row * K + k] * B[(size_t)k * N + col];
#if BUG == 6
    if (row == 0 && col == 0)
        acc *= 1.001f;
#endif
    C[(size_t)row * N + col] = acc;
}
