// A matmul "variant" whose configs misbehave on purpose, for the GPU isolation test
// (tests/test_faulty_gpu.c). FAULT selects:
//   0  writes 2^40 floats past C: an illegal address, the CUDA context is lost  -> crashed
//   1  stores through a misaligned float pointer: the context is lost           -> crashed
//   2  never finishes (spins on a volatile load of A, whose values are < 1)     -> timeout
//   3  sums half of K: fast and wrong                                           -> wrong_result
//   4..6 correct, with blocks of 16x16, 32x8 and 8x8 threads                    -> ok
// The faulting configs come first in the space, so that the correct ones are measured by
// replacement workers: the run must go on after each failure.
extern "C" __global__ void matmul_faulty(const float *__restrict__ A, const float *__restrict__ B,
                                         float *__restrict__ C, int M, int N, int K,
                                         const float *__restrict__ bias)
{
    (void)bias; // NULL: matmul's bias epilogue is for fp16 and bf16
    int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N)
        return;
#if FAULT == 2
    volatile const float *a = A;
    while (a[0] < 2.0f) {
    }
#endif
#if FAULT == 3
    int kend = K / 2;
#else
    int kend = K;
#endif
    float acc = 0.0f;
    for (int k = 0; k < kend; k++)
        acc += A[(size_t)row * K + k] * B[(size_t)k * N + col];
#if FAULT == 0
    C[(size_t)row * N + col + ((size_t)1 << 40)] = acc;
#elif FAULT == 1
    *(float *)((char *)(C + (size_t)row * N + col) + 1) = acc;
#else
    C[(size_t)row * N + col] = acc;
#endif
}
