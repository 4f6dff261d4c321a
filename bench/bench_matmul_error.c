/* bench_matmul_error: how large the rounding error of a float32 dot product is against the
 * scales a per-element check of matmul could use (the choice in plugins/matmul/matmul.h),
 * on the CPU, with the matmul op's inputs (uniform in [-1, 1) from cutune's generator).
 * For each K: SAMPLES dot products summed sequentially without FMA and with FMA (the least
 * accurate orders a kernel uses), and the rms and largest d / (u s) for the scales s
 *   sqrt(K) (sqrt(sum p^2) + |ref|)   the statistical bound's (MATMUL_TAU times u of it)
 *   sqrt(K) sqrt(sum p^2)             the same without the sum's own size
 *   sqrt(sum p^2)                     u sqrt(K) rms(p): grows with sqrt(K) in these units
 *
 *   bench_matmul_error [SAMPLES_AT_1000] [K...]     (default 200000; K 8 64 256 1000 4096 8192)
 *
 * Samples scale as 1000 / K so that every K takes about as long. */
#include "host.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    long base = argc > 1 ? atol(argv[1]) : 200000;
    static const int defaults[] = {8, 64, 256, 1000, 4096, 8192};
    int nk = argc > 2 ? argc - 2 : (int)(sizeof defaults / sizeof defaults[0]);
    const double u = 0x1p-24;
    printf("%6s %10s %-6s %22s %22s %22s\n", "K", "samples", "order", "sqrtK(|p|2+|ref|) rms/max",
           "sqrtK |p|2 rms/max", "|p|2 rms/max");
    for (int ki = 0; ki < nk; ki++) {
        int K = argc > 2 ? atoi(argv[2 + ki]) : defaults[ki];
        long n = base * 1000 / K > 100 ? base * 1000 / K : 100;
        float *a = malloc((size_t)K * sizeof *a), *b = malloc((size_t)K * sizeof *b);
        if (!a || !b || K < 1)
            return 1;
        for (int fma_order = 0; fma_order < 2; fma_order++) {
            double sum[3] = {0, 0, 0}, max[3] = {0, 0, 0};
            for (long t = 0; t < n; t++) {
                cutune_random_uniform((uint64_t)t + 1, 0, a, (size_t)K, -1.0f, 1.0f);
                cutune_random_uniform((uint64_t)t + 1, 1, b, (size_t)K, -1.0f, 1.0f);
                double ref = 0, sq = 0;
                float acc = 0;
                for (int k = 0; k < K; k++) {
                    double p = (double)a[k] * b[k];
                    ref += p;
                    sq += p * p;
                    if (fma_order) {
                        acc = fmaf(a[k], b[k], acc);
                    } else {
                        volatile float q = a[k] * b[k]; /* rounded, then added */
                        acc = acc + q;
                    }
                }
                double d = fabs((double)acc - ref), l2 = sqrt(sq);
                double r[3] = {d / (u * sqrt((double)K) * (l2 + fabs(ref))),
                               d / (u * sqrt((double)K) * l2), d / (u * l2)};
                for (int i = 0; i < 3; i++) {
                    sum[i] += r[i] * r[i];
                    max[i] = r[i] > max[i] ? r[i] : max[i];
                }
            }
            printf("%6d %10ld %-6s %10.3f / %9.3f %10.3f / %9.3f %10.3f / %9.3f\n", K, n,
                   fma_order ? "fma" : "mul+add", sqrt(sum[0] / n), max[0], sqrt(sum[1] / n),
                   max[1], sqrt(sum[2] / n), max[2]);
            fflush(stdout);
        }
        free(a);
        free(b);
    }
    return 0;
}
