// Reference for the matmul op, in double precision on the device: one thread per element
// of C, summing in the plain k order. Written for clarity, not speed, and independent of
// every variant under test. Besides ref, per element:
//   mag   = sum_k |a_ik| |b_kj|, the scale of the worst-case rounding bound of any float32
//           summation order;
//   scale = sqrt(K) (sqrt(sum_k (a_ik b_kj)^2) + |ref|), the scale of the statistical
//           bound: the rounding error of a float32 sum of K terms grows like sqrt(K) times
//           its partial sums, which wander about sqrt(sum p^2) and end at ref (matmul.h).
// bt: B is stored N x K (layout nt) instead of K x N.
extern "C" __global__ void cutune_matmul_ref(const float *__restrict__ A,
                                             const float *__restrict__ B, double *__restrict__ ref,
                                             double *__restrict__ mag, double *__restrict__ scale,
                                             int M, int N, int K, int bt)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N)
        return;
    double acc = 0.0, abs_acc = 0.0, sq = 0.0;
    for (int k = 0; k < K; k++) {
        float b = bt ? B[(size_t)col * K + k] : B[(size_t)k * N + col];
        double p = (double)A[(size_t)row * K + k] * (double)b;
        acc += p;
        abs_acc += fabs(p);
        sq += p * p;
    }
    ref[(size_t)row * N + col] = acc;
    mag[(size_t)row * N + col] = abs_acc;
    scale[(size_t)row * N + col] = sqrt((double)K) * (sqrt(sq) + fabs(acc));
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
extern "C" __global__ void cutune_matmul_bounds(const double *__restrict__ ref,
                                                double *__restrict__ mag,
                                                double *__restrict__ scale, size_t n, int K,
                                                int dtype)
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
        } else { // fp16, bf16: exact products, float32 sums, one rounding to T
            worst = uT * r + (1.0 + uT) * gamma * mag[i];
            stat = uT * r + (1.0 + uT) * K * u * walk;
        }
        mag[i] = worst;
        scale[i] = stat;
    }
}
