/* bench_matmul: for each size, the best tuned config of each matmul variant (from the
 * database) re-checked and re-timed in this process, next to cuBLAS SGEMM (FP32, TF32 off)
 * on the same inputs (same generator, seed and streams as the plugins), on the same GPU.
 *
 *   bench_matmul --db PATH [--device N] [--seed N] [--same-model] SIZE...
 *
 * Prints a table; the ratio column is tuned rate / cuBLAS rate. */
#include "bench_common.h"
#include "compile.h"
#include "db.h"
#include "device.h"
#include "host.h"
#include "measure.h"
#include "reeval.h"
#include "registry.h"
#include "space.h"
#include "util.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"

/* cuBLAS SGEMM on row-major A (MxK), B (KxN): C^T = B^T A^T in column-major terms. Median of
 * samples of `reps` back-to-back calls. */
static double time_cublas(cublasHandle_t h, const CutuneProblem *p, uint64_t seed, int *samples_out)
{
    int M = (int)p->dim[0], N = (int)p->dim[1], K = (int)p->dim[2];
    size_t mk = (size_t)M * K, kn = (size_t)K * N, mn = (size_t)M * N;
    float *hA = malloc(mk * sizeof *hA), *hB = malloc(kn * sizeof *hB);
    float *A, *B, *C;
    if (!hA || !hB)
        exit(1);
    cutune_random_uniform(seed, 0, hA, mk, -1.0f, 1.0f); /* as the matmul op (plugins/matmul/) */
    cutune_random_uniform(seed, 1, hB, kn, -1.0f, 1.0f);
    CK(cudaMalloc((void **)&A, mk * 4));
    CK(cudaMalloc((void **)&B, kn * 4));
    CK(cudaMalloc((void **)&C, mn * 4));
    CK(cudaMemcpy(A, hA, mk * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(B, hB, kn * 4, cudaMemcpyHostToDevice));
    const float one = 1.0f, zero = 0.0f;
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (int i = 0; i < 3; i++)
        CKB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, N, A, K, &zero, C, N));
    CK(cudaEventRecord(e0, 0));
    CKB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, N, A, K, &zero, C, N));
    CK(cudaEventRecord(e1, 0));
    CK(cudaEventSynchronize(e1));
    float once;
    CK(cudaEventElapsedTime(&once, e0, e1));
    int reps = once > 0 ? (int)(0.5 / once) + 1 : 1;
    reps = reps > 1000 ? 1000 : reps;
    double v[31];
    int n = 31;
    for (int s = 0; s < n; s++) {
        CK(cudaEventRecord(e0, 0));
        for (int r = 0; r < reps; r++)
            CKB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, N, A, K, &zero, C, N));
        CK(cudaEventRecord(e1, 0));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        v[s] = ms / reps;
    }
    double med, mean, sd, mn_;
    cutune_stats(v, n, &med, &mean, &sd, &mn_);
    *samples_out = n;
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    CK(cudaFree(A));
    CK(cudaFree(B));
    CK(cudaFree(C));
    free(hA);
    free(hB);
    return med;
}

/* Re-check and re-time a variant's best config for this problem. */
static int time_variant(const CutuneVariantDef *v, const CutuneDeviceInfo *dev, CutuneDb *db,
                        const CutuneProblem *prob, const char *size, uint64_t seed, int same_model,
                        char *config, size_t config_len, double *ms, CutuneError *err)
{
    CutuneBest b;
    int rc = cutune_db_best_of_variant(db, dev->uuid, "matmul", size, v->name, v->version, &b, err);
    if (rc == CUTUNE_ERR_NOT_FOUND && same_model) {
        cutune_error_clear(err);
        rc = cutune_db_best_of_variant_model(db, dev->name, "matmul", size, v->name, v->version, &b,
                                             err);
    }
    if (rc)
        return rc;
    if (strcmp(b.device_uuid, dev->uuid))
        snprintf(config, config_len, "%.400s (tuned on %.12s)", b.config, b.device_uuid);
    else
        snprintf(config, config_len, "%s", b.config);
    CutuneEvalResult res;
    if ((rc = bench_reevaluate(v, dev, b.config, prob, seed, &res, err)))
        return rc;
    if (res.status != CUTUNE_STATUS_OK)
        return cutune_error(err, CUTUNE_ERR_WRONG_RESULT, "%s %s: %s: %s", v->name, b.config,
                            cutune_status_name(res.status), res.message);
    *ms = res.median_ms;
    return 0;
}

int main(int argc, char **argv)
{
    BenchOptions o = BENCH_OPTIONS_DEFAULT;
    static const char *const flags[] = {"--same-model", NULL};
    int same_model = 0, nsizes = 0;
    static const char usage[] =
        "usage: bench_matmul --db PATH [--device N] [--seed N] [--same-model] SIZE...\n"
        "  --same-model  for a variant never tuned on this device, time the best config\n"
        "                tuned on another device of the same model (re-checked here)\n";
    const char **sizes = calloc((size_t)argc, sizeof *sizes); /* at most argc - 1 */
    if (!sizes)
        return 1;
    int bad = bench_parse(argc, argv, usage, flags, &same_model, sizes, argc, &nsizes, &o);
    if (bad || nsizes == 0) {
        if (!bad)
            fputs(usage, stderr);
        free(sizes);
        return 2;
    }
    CutuneError err = {0};
    Bench bench;
    int opened = bench_open("bench_matmul", &o, &bench);
    if (opened) {
        free(sizes);
        return opened;
    }
    cublasHandle_t h;
    CKB(cublasCreate(&h));
    /* FP32 SGEMM: the default math mode uses no TF32 (the script also sets
     * NVIDIA_TF32_OVERRIDE=0 so that nothing turns it on behind our back) */
    CKB(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
    printf("%-16s %-14s %10s %9s %10s %9s %7s  %s\n", "size", "variant", "tuned_ms", "TFLOP/s",
           "cublas_ms", "TFLOP/s", "ratio", "config");
    int failures = 0;
    for (int i = 0; i < nsizes; i++) {
        CutuneProblem p;
        char size[64];
        cutune_error_clear(&err);
        if (cutune_problem_parse(sizes[i], &p, &err)) {
            fprintf(stderr, "bench_matmul: %s\n", err.msg);
            free(sizes);
            return 2;
        }
        if (p.ndims == 1)
            p.ndims = 3, p.dim[1] = p.dim[2] = p.dim[0];
        cutune_problem_format(&p, size, sizeof size);
        int samples;
        double cub = time_cublas(h, &p, o.seed, &samples);
        double flops = 2.0 * p.dim[0] * p.dim[1] * p.dim[2];
        for (size_t k = 0; k < bench.reg.nvariants; k++) {
            const CutuneVariantDef *pl = bench.reg.variants[k];
            if (strcmp(pl->op_name, "matmul"))
                continue;
            char config[512] = "";
            double ms = 0;
            cutune_error_clear(&err);
            if (time_variant(pl, &bench.dev, bench.db, &p, size, o.seed, same_model, config,
                             sizeof config, &ms, &err)) {
                printf("%-16s %-14s %10s %9s %10.4f %9.2f %7s  (%s)\n", size, pl->name, "-", "-",
                       cub, flops / cub / 1e9, "-", err.msg);
                failures += err.code != CUTUNE_ERR_NOT_FOUND;
                continue;
            }
            printf("%-16s %-14s %10.4f %9.2f %10.4f %9.2f %6.1f%%  %s\n", size, pl->name, ms,
                   flops / ms / 1e9, cub, flops / cub / 1e9, 100.0 * cub / ms, config);
            fflush(stdout);
        }
    }
    cublasDestroy(h);
    bench_close(&bench);
    free(sizes);
    return failures ? 1 : 0;
}
