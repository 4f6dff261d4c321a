// matmul_reg2d: 2-D register blocking. The block computes a BM x BN tile of C with
// (BM/TM) x (BN/TN) threads; each thread computes a TM x TN block as outer products of a
// column of the A tile and a row of the B tile held in registers. A is stored transposed in
// shared memory so that both operands are read as contiguous runs (16-byte reads when VEC).
//
// Parameters: BM, BN, BK, TM, TN, PAD (extra columns of the transposed A tile: 0 or 4 keep
// 16-byte alignment), VEC (1: read shared memory 4 floats at a time; 0: one at a time).
#define NT ((BM / TM) * (BN / TN))
#define LDA (BM + PAD)
#define LDB BN

extern "C" __global__ void __launch_bounds__(NT)
matmul_reg2d(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C,
             int M, int N, int K,
             const float *__restrict__ bias)
{
    (void)bias; // NULL: the bias epilogue is for fp16 and bf16 (plugins/matmul/matmul.h)
    __shared__ __align__(16) float As[BK * LDA];
    __shared__ __align__(16) float Bs[BK * LDB];
    const int tid = threadIdx.x;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const int trow = (tid / (BN / TN)) * TM, tcol = (tid % (BN / TN)) * TN;
    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++)
            acc[i][j] = 0.0f;
    float ra[TM], rb[TN];

    for (int k0 = 0; k0 < K; k0 += BK) {
        load_a_transposed<BM, BK, NT, LDA>(A, As, M, K, row0, k0, tid);
        load_b<BK, BN, NT, LDB>(B, Bs, K, N, k0, col0, tid);
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; k++) {
#if VEC
#pragma unroll
            for (int i = 0; i < TM; i += 4) {
                float4 v = *reinterpret_cast<const float4 *>(&As[k * LDA + trow + i]);
                ra[i] = v.x, ra[i + 1] = v.y, ra[i + 2] = v.z, ra[i + 3] = v.w;
            }
#pragma unroll
            for (int j = 0; j < TN; j += 4) {
                float4 v = *reinterpret_cast<const float4 *>(&Bs[k * LDB + tcol + j]);
                rb[j] = v.x, rb[j + 1] = v.y, rb[j + 2] = v.z, rb[j + 3] = v.w;
            }
#else
#pragma unroll
            for (int i = 0; i < TM; i++)
                ra[i] = As[k * LDA + trow + i];
#pragma unroll
            for (int j = 0; j < TN; j++)
                rb[j] = Bs[k * LDB + tcol + j];
#endif
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++)
                    acc[i][j] += ra[i] * rb[j];
        }
        __syncthreads();
    }
    store_c<TM, TN>(C, acc, M, N, row0 + trow, col0 + tcol);
}
