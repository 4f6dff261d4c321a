// Reference for the matmul op, in double precision on the device: each output summed in the
// plain k order, independent of every variant under test. Besides ref, per element:
//   mag   = sum_k |a_ik| |b_kj|, the scale of the worst-case rounding bound of any float32
//           summation order;
//   scale = sqrt(K) (sqrt(sum_k (a_ik b_kj)^2) + |ref|), the scale of the statistical
//           bound: the rounding error of a float32 sum of K terms grows like sqrt(K) times
//           its partial sums, which wander about sqrt(sum p^2) and end at ref (matmul.h).
// bt: B is stored N x K (layout nt) instead of K x N.
// A block of CUTUNE_REF_THREADS threads takes a tile of CUTUNE_REF_TILE x CUTUNE_REF_TILE
// outputs, each thread 4 x 4 of them, through tiles of A and B in shared memory that both
// layouts fill with coalesced loads: every sum is the same as one thread per output would
// make (the same terms in the same order), at a fraction of the time. One thread per
// output took most of a 30-size run's setup (13-18 s of each GPU's 50-80 s on 4 x H200,
// 2026-11-28): in layout nt each thread walked its own row of B.
#define CUTUNE_REF_TILE 64
#define CUTUNE_REF_KT 16
#define CUTUNE_REF_THREADS 256
extern "C" __global__ void __launch_bounds__(CUTUNE_REF_THREADS)
    cutune_matmul_ref(const float *__restrict__ A, const float *__restrict__ B,
                      double *__restrict__ ref, double *__restrict__ mag,
                      double *__restrict__ scale, int M, int N, int K, int bt)
{
    __shared__ float As[CUTUNE_REF_KT][CUTUNE_REF_TILE + 1]; // [k][row of the tile]
    __shared__ float Bs[CUTUNE_REF_KT][CUTUNE_REF_TILE + 1]; // [k][column of the tile]
    const int t = threadIdx.x, tx = t % 16, ty = t / 16;
    const int row0 = blockIdx.y * CUTUNE_REF_TILE, col0 = blockIdx.x * CUTUNE_REF_TILE;
    double acc[4][4], abs_acc[4][4], sq[4][4];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            acc[i][j] = abs_acc[i][j] = sq[i][j] = 0.0;
    for (int k0 = 0; k0 < K; k0 += CUTUNE_REF_KT) {
        for (int e = t; e < CUTUNE_REF_TILE * CUTUNE_REF_KT; e += CUTUNE_REF_THREADS) {
            int r = e / CUTUNE_REF_KT, k = e % CUTUNE_REF_KT; // along a row of A: k
            int gr = row0 + r, gk = k0 + k;
            As[k][r] = gr < M && gk < K ? A[(size_t)gr * K + gk] : 0.0f;
            int c, kb;
            if (bt) { // along a row of B (N x K): k
                c = e / CUTUNE_REF_KT;
                kb = e % CUTUNE_REF_KT;
            } else { // along a row of B (K x N): n
                c = e % CUTUNE_REF_TILE;
                kb = e / CUTUNE_REF_TILE;
            }
            int gc = col0 + c, gkb = k0 + kb;
            Bs[kb][c] = gc < N && gkb < K
                            ? (bt ? B[(size_t)gc * K + gkb] : B[(size_t)gkb * N + gc])
                            : 0.0f;
        }
        __syncthreads();
        int kn = K - k0 < CUTUNE_REF_KT ? K - k0 : CUTUNE_REF_KT;
        for (int k = 0; k < kn; k++) {
            double a[4], b[4];
            for (int i = 0; i < 4; i++)
                a[i] = (double)As[k][ty + 16 * i];
            for (int j = 0; j < 4; j++)
                b[j] = (double)Bs[k][tx + 16 * j];
            for (int i = 0; i < 4; i++)
                for (int j = 0; j < 4; j++) {
                    double p = a[i] * b[j];
                    acc[i][j] += p;
                    abs_acc[i][j] += fabs(p);
                    sq[i][j] += p * p;
                }
        }
        __syncthreads();
    }
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            int row = row0 + ty + 16 * i, col = col0 + tx + 16 * j;
            if (row >= M || col >= N)
                continue;
            size_t at = (size_t)row * N + col;
            ref[at] = acc[i][j];
            mag[at] = abs_acc[i][j];
            scale[at] = sqrt((double)K) * (sqrt(sq[i][j]) + fabs(acc[i][j]));
        }
}

// dtype (CutuneDtype): 2 fp16, 3 bf16. Round-to-nearest-even of a float into 16 bits.
__device__ unsigned short cutune_to16(float x, int dtype)
{
    if (dtype == 3) {
        unsigned u = __float_as_uint(x);
        if ((u & 0x7fffffffu) > 0x7f800000u)
            return 0x7fc0; // NaN stays NaN
        return (unsigned short)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
    }
#ifdef CUTUNE_EMU_KERNEL
    // the CPU emulation (cutune check --run) has no inline PTX; no variant it runs is fp16
    fprintf(stderr, "cutune_matmul_ref: fp16 is not emulated on the CPU\n");
    abort();
#else
    unsigned short h;
    asm("{ .reg .f16 t; cvt.rn.f16.f32 t, %1; mov.b16 %0, t; }" : "=h"(h) : "f"(x));
    return h;
#endif
}

__device__ float cutune_from16(unsigned short h, int dtype)
{
    if (dtype == 3)
        return __uint_as_float((unsigned)h << 16);
#ifdef CUTUNE_EMU_KERNEL
    fprintf(stderr, "cutune_matmul_ref: fp16 is not emulated on the CPU\n");
    abort();
#else
    float f;
    asm("{ .reg .f16 t; mov.b16 t, %1; cvt.f32.f16 %0, t; }" : "=f"(f) : "h"(h));
    return f;
#endif
}

// The 16-bit inputs: x rounded into x16, and x replaced by the exact value of x16, so that
// the reference is computed from the same rounded inputs as the kernel gets.
extern "C" __global__ void cutune_matmul_round(float *__restrict__ x, unsigned short *__restrict__ x16,
                                               size_t n, int dtype)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        x16[i] = cutune_to16(x[i], dtype);
        x[i] = cutune_from16(x16[i], dtype);
    }
}

// A 16-bit output widened (exactly) to float for the comparison; the poison (0xFFFF) is a
// NaN in both formats and stays one.
extern "C" __global__ void cutune_matmul_widen(const unsigned short *__restrict__ c16,
                                               float *__restrict__ c, size_t n, int dtype)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        c[i] = cutune_from16(c16[i], dtype);
}

// The absolute bounds of the tensor-core element types (matmul.h, "Other element types"):
// mag becomes the worst-case bound and scale the statistical one, for gamma = tau = 1.
// With a bias (not NULL: N values, exactly the kernel's 16-bit ones; fp16 and bf16 only),
// ref becomes ref + bias[column] and the bounds take the float32 add of the bias to the
// float32 sum s before the rounding to T (matmul.h, "The bias epilogue").
extern "C" __global__ void cutune_matmul_bounds(double *__restrict__ ref, double *__restrict__ mag,
                                                double *__restrict__ scale, size_t n, int K,
                                                int dtype, const float *__restrict__ bias, int N)
{
    const double u = 0x1p-24, u2k = 2.0 * K * u, gamma = u2k / (1.0 - u2k);
    const double uT = dtype == 3 ? 0x1p-8 : dtype == 2 ? 0x1p-11 : 0.0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        double r = fabs(ref[i]), walk = scale[i] / sqrt((double)K); // sqrt(sum p^2) + |ref|
        double worst, stat;
        if (dtype == 1) { // tf32: inputs cut to 10 mantissa bits, float32 sums
            worst = (0x1p-9 + 0x1p-20 + gamma) * mag[i];
            stat = 4.0 * 0x1p-10 * walk + 8.0 * u * scale[i];
        } else if (bias) { // as below, for R = ref + b: e grows by the add's u |s + b|
            double R = ref[i] + (double)bias[i % (size_t)N], aR = fabs(R);
            ref[i] = R;
            double e_worst = gamma * mag[i], e_stat = K * u * walk;
            worst = uT * aR + (1.0 + uT) * ((1.0 + u) * e_worst + u * aR);
            stat = uT * aR + (1.0 + uT) * ((1.0 + u) * e_stat + u * aR);
        } else { // fp16, bf16: exact products, float32 sums, one rounding to T
            worst = uT * r + (1.0 + uT) * gamma * mag[i];
            stat = uT * r + (1.0 + uT) * K * u * walk;
        }
        mag[i] = worst;
        scale[i] = stat;
    }
}
