/* bench_launch: the host cost of one tuned launch from C, cutune_matmul (a cached lookup and
 * the launch), against the Python module's (bench/bench_python.py runs both). Needs a GPU
 * and a database with a matmul config for it:
 *
 *   bench_launch --db PATH [--size MxNxK] [--calls N]
 *
 * Calls come in batches of 100, short enough never to fill the launch queue (a full queue
 * would time the GPU, not the caller); the stream is synchronised between batches, outside
 * the timed part. Prints one line: the median, 10th and 90th percentile of the batches'
 * microseconds per call, and the kernel's own time per launch (CUDA events) for scale. */
#include "cutune/lookup.h"

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { BATCH = 100 };

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Its own comparator: this program sees only the public headers, as an application does. */
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    const char *db = NULL, *size = "64x64x64";
    int calls = 20000;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--db") && i + 1 < argc)
            db = argv[++i];
        else if (!strcmp(argv[i], "--size") && i + 1 < argc)
            size = argv[++i];
        else if (!strcmp(argv[i], "--calls") && i + 1 < argc)
            calls = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: bench_launch --db PATH [--size MxNxK] [--calls N]\n");
            return 2;
        }
    }
    int M = 0, N = 0, K = 0, nbatch = calls / BATCH;
    if (!db || sscanf(size, "%dx%dx%d", &M, &N, &K) != 3 || M <= 0 || N <= 0 || K <= 0 ||
        nbatch < 1) {
        fprintf(stderr, "bench_launch: needs --db, a size MxNxK and at least %d calls\n", BATCH);
        return 2;
    }
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        fprintf(stderr, "bench_launch: no CUDA device\n");
        return 77;
    }
    CutuneLookupSettings s;
    cutune_lookup_default_settings(&s);
    s.db_path = db;
    CutuneLookup *h = NULL;
    CutuneError err = {0};
    float *A = NULL, *B = NULL, *C = NULL;
    double *us = calloc((size_t)nbatch, sizeof *us);
    cudaStream_t st = NULL;
    cudaEvent_t e0, e1;
    int rc = 1;
    if (!us || cutune_open(&h, &s, &err) != 0 || cudaStreamCreate(&st) != cudaSuccess ||
        cudaMalloc((void **)&A, sizeof *A * (size_t)M * K) != cudaSuccess ||
        cudaMalloc((void **)&B, sizeof *B * (size_t)K * N) != cudaSuccess ||
        cudaMalloc((void **)&C, sizeof *C * (size_t)M * N) != cudaSuccess)
        goto out;
    cudaMemset(A, 0, sizeof *A * (size_t)M * K);
    cudaMemset(B, 0, sizeof *B * (size_t)K * N);
    CutuneLookupResult used;
    for (int i = 0; i < 10; i++) /* the lookup, compile and load happen here */
        if (cutune_matmul(h, A, B, C, M, N, K, st, &used, &err) != 0)
            goto out;
    cudaStreamSynchronize(st);
    for (int b = 0; b < nbatch; b++) {
        double t0 = now();
        for (int i = 0; i < BATCH; i++)
            if (cutune_matmul(h, A, B, C, M, N, K, st, NULL, &err) != 0)
                goto out;
        us[b] = 1e6 * (now() - t0) / BATCH;
        cudaStreamSynchronize(st);
    }
    float ms = 0;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    cudaEventRecord(e0, st);
    for (int i = 0; i < BATCH; i++)
        cutune_matmul(h, A, B, C, M, N, K, st, NULL, &err);
    cudaEventRecord(e1, st);
    cudaEventSynchronize(e1);
    cudaEventElapsedTime(&ms, e0, e1);
    qsort(us, (size_t)nbatch, sizeof *us, cmp_double);
    printf("C cutune_matmul %s (%s %s, %s): %.3f us per call (p10 %.3f, p90 %.3f) over %d "
           "calls; kernel %.3f us per launch\n",
           size, used.variant, used.config, cutune_match_name(used.match), us[nbatch / 2],
           us[nbatch / 10], us[nbatch * 9 / 10], nbatch * BATCH, 1e3 * ms / BATCH);
    rc = 0;
out:
    if (rc)
        fprintf(stderr, "bench_launch: %s\n", err.msg[0] ? err.msg : "CUDA set-up failed");
    cudaFree(A);
    cudaFree(B);
    cudaFree(C);
    if (st)
        cudaStreamDestroy(st);
    cutune_close(&h);
    free(us);
    return rc;
}
