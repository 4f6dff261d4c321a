// matmul_reg1d: 1-D register blocking. The block computes a BM x BN tile of C; each of its
// BM*BN/TM threads computes TM consecutive elements of one column, so every value of B read
// from shared memory feeds TM multiply-adds from registers.
//
// Parameters: BM, BN, BK (block tile and K step), TM (outputs a thread), PAD (extra columns
// of the transposed A tile, against bank conflicts when it is written).
#define NT (BM * BN / TM)
#define LDA (BM + PAD)
#define LDB BN

extern "C" __global__ void __launch_bounds__(NT)
matmul_reg1d(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C,
             int M, int N, int K,
             const float *__restrict__ bias)
{
    (void)bias; // NULL: the bias epilogue is for fp16 and bf16 (plugins/matmul/matmul.h)
    __shared__ float As[BK * LDA];
    __shared__ __align__(16) float Bs[BK * LDB];
    const int tid = threadIdx.x;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const int tcol = tid % BN, trow = (tid / BN) * TM;
    float acc[TM][1];
#pragma unroll
    for (int i = 0; i < TM; i++)
        acc[i][0] = 0.0f;

    for (int k0 = 0; k0 < K; k0 += BK) {
        load_a_transposed<BM, BK, NT, LDA>(A, As, M, K, row0, k0, tid);
        load_b<BK, BN, NT, LDB>(B, Bs, K, N, k0, col0, tid);
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; k++) {
            float b = Bs[k * LDB + tcol];
#pragma unroll
            for (int i = 0; i < TM; i++)
                acc[i][0] += As[k * LDA + trow + i] * b;
        }
        __syncthreads();
    }
    store_c<TM, 1>(C, acc, M, N, row0 + trow, col0 + tcol);
}
