// Reference for the matmul op, in double precision on the device: one thread per element
// of C, summing in the plain k order. Written for clarity, not speed, and independent of
// every variant under test. Besides ref, per element:
//   mag   = sum_k |a_ik| |b_kj|, the scale of the worst-case rounding bound of any float32
//           summation order;
//   scale = sqrt(K) (sqrt(sum_k (a_ik b_kj)^2) + |ref|), the scale of the statistical
//           bound: the rounding error of a float32 sum of K terms grows like sqrt(K) times
//           its partial sums, which wander about sqrt(sum p^2) and end at ref (matmul.h).
extern "C" __global__ void cutune_matmul_ref(const float *__restrict__ A,
                                             const float *__restrict__ B, double *__restrict__ ref,
                                             double *__restrict__ mag, double *__restrict__ scale,
                                             int M, int N, int K)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N)
        return;
    double acc = 0.0, abs_acc = 0.0, sq = 0.0;
    for (int k = 0; k < K; k++) {
        double p = (double)A[(size_t)row * K + k] * (double)B[(size_t)k * N + col];
        acc += p;
        abs_acc += fabs(p);
        sq += p * p;
    }
    ref[(size_t)row * N + col] = acc;
    mag[(size_t)row * N + col] = abs_acc;
    scale[(size_t)row * N + col] = sqrt((double)K) * (sqrt(sq) + fabs(acc));
}
