/* bench_launch: the host cost of one tuned launch from C, against the Python module's
 * (bench/bench_python.py runs both). Two paths, side by side in one run:
 *   cutune_gemm     what applications and the Python module call: the handle keeps the launch
 *                   it prepared for the shape, so a repeated call costs the launch alone;
 *   lookup+launch   cutune_lookup (cached) then cutune_launch, which prepares the launch on
 *                   every call (the size's text, the kernel's geometry, the TMA maps): what
 *                   cutune_gemm cost before it kept its launches.
 * Needs a GPU and a database with a matmul config for the size:
 *
 *   bench_launch --db PATH [--size MxNxK[-fp32|-tf32|-fp16|-bf16][-nn|-nt]] [--calls N]
 *
 * Calls come in batches of 100, short enough never to fill the launch queue (a full queue
 * would time the GPU, not the caller); the stream is synchronised between batches, outside
 * the timed part. Prints a line a path: the median, 10th and 90th percentile of the batches'
 * microseconds per call, and the kernel's own time per launch (CUDA events) for scale. */
#include "cutune/lookup.h"
#include "cutune/op.h"

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

typedef struct Call {
    CutuneLookup *h;
    const CutuneDeviceInfo *dev;
    const char *size;
    int dtype, layout, M, N, K;
    void *A, *B, *C;
    cudaStream_t st;
} Call;

static int call_gemm(const Call *c, CutuneError *err)
{
    return cutune_gemm(c->h, c->dtype, c->layout, c->A, c->B, c->C, c->M, c->N, c->K, c->st, NULL,
                       err);
}

static int call_lookup_launch(const Call *c, CutuneError *err)
{
    CutuneLookupResult r;
    int M = c->M, N = c->N, K = c->K;
    const void *no_bias = NULL;
    void *args[] = {(void *)&c->A, (void *)&c->B, (void *)&c->C, &M, &N, &K, &no_bias};
    int rc = cutune_lookup(c->h, c->dev, "matmul", c->size, &r, err);
    return rc ? rc : cutune_launch(c->h, &r, c->size, args, c->st, err);
}

/* The median, 10th and 90th percentile of nbatch batches of `fn`'s microseconds a call into
 * us[0..2]; 0, or fn's error. */
static int time_path(int (*fn)(const Call *, CutuneError *), const Call *c, int nbatch, double *per,
                     double us[3], CutuneError *err)
{
    for (int i = 0; i < 10; i++) /* the lookup, compile and load happen here */
        if (fn(c, err) != 0)
            return 1;
    cudaStreamSynchronize(c->st);
    for (int b = 0; b < nbatch; b++) {
        double t0 = now();
        for (int i = 0; i < BATCH; i++)
            if (fn(c, err) != 0)
                return 1;
        per[b] = 1e6 * (now() - t0) / BATCH;
        cudaStreamSynchronize(c->st);
    }
    qsort(per, (size_t)nbatch, sizeof *per, cmp_double);
    us[0] = per[nbatch / 2], us[1] = per[nbatch / 10], us[2] = per[nbatch * 9 / 10];
    return 0;
}

/* "MxNxK", then optional "-fp32"/"-tf32"/"-fp16"/"-bf16" and "-nn"/"-nt". 0 or -1. */
static int parse_size(const char *size, Call *c)
{
    int n = 0;
    if (sscanf(size, "%dx%dx%d%n", &c->M, &c->N, &c->K, &n) != 3 || c->M <= 0 || c->N <= 0 ||
        c->K <= 0)
        return -1;
    static const char *const dtypes[] = {"-fp32", "-tf32", "-fp16", "-bf16"};
    static const int dcodes[] = {CUTUNE_DTYPE_FP32, CUTUNE_DTYPE_TF32, CUTUNE_DTYPE_FP16,
                                 CUTUNE_DTYPE_BF16};
    const char *rest = size + n;
    c->dtype = CUTUNE_DTYPE_FP32, c->layout = CUTUNE_LAYOUT_NN;
    for (int i = 0; i < 4; i++)
        if (!strncmp(rest, dtypes[i], 5))
            c->dtype = dcodes[i], rest += 5;
    if (!strcmp(rest, "-nt"))
        c->layout = CUTUNE_LAYOUT_NT, rest += 3;
    else if (!strcmp(rest, "-nn"))
        rest += 3;
    return *rest ? -1 : 0;
}

int main(int argc, char **argv)
{
    const char *db = NULL;
    Call c = {.size = "64x64x64"};
    int calls = 20000;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--db") && i + 1 < argc)
            db = argv[++i];
        else if (!strcmp(argv[i], "--size") && i + 1 < argc)
            c.size = argv[++i];
        else if (!strcmp(argv[i], "--calls") && i + 1 < argc)
            calls = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: bench_launch --db PATH [--size MxNxK[-DTYPE][-nn|-nt]] "
                            "[--calls N]\n");
            return 2;
        }
    }
    int nbatch = calls / BATCH;
    if (!db || parse_size(c.size, &c) != 0 || nbatch < 1) {
        fprintf(stderr,
                "bench_launch: needs --db, a size MxNxK (then -fp32, -tf32, -fp16 or -bf16, "
                "and -nn or -nt; got %s) and at least %d calls\n",
                c.size, BATCH);
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
    CutuneError err = {0};
    CutuneDeviceInfo dev;
    size_t es = c.dtype == CUTUNE_DTYPE_FP16 || c.dtype == CUTUNE_DTYPE_BF16 ? 2 : 4;
    size_t mk = es * (size_t)c.M * c.K, kn = es * (size_t)c.K * c.N, mn = es * (size_t)c.M * c.N;
    double *per = calloc((size_t)nbatch, sizeof *per), gemm[3], plain[3];
    cudaEvent_t e0 = NULL, e1 = NULL;
    int rc = 1;
    if (!per || cutune_open(&c.h, &s, &err) != 0 || cutune_device_describe(0, &dev, &err) != 0 ||
        cudaStreamCreate(&c.st) != cudaSuccess || cudaMalloc(&c.A, mk) != cudaSuccess ||
        cudaMalloc(&c.B, kn) != cudaSuccess || cudaMalloc(&c.C, mn) != cudaSuccess ||
        cudaMemset(c.A, 0, mk) != cudaSuccess || cudaMemset(c.B, 0, kn) != cudaSuccess ||
        cudaEventCreate(&e0) != cudaSuccess || cudaEventCreate(&e1) != cudaSuccess)
        goto out;
    c.dev = &dev;
    CutuneLookupResult used;
    if (cutune_lookup(c.h, &dev, "matmul", c.size, &used, &err) != 0 ||
        time_path(call_gemm, &c, nbatch, per, gemm, &err) != 0 ||
        time_path(call_lookup_launch, &c, nbatch, per, plain, &err) != 0)
        goto out;
    float ms = 0;
    cudaEventRecord(e0, c.st);
    for (int i = 0; i < BATCH; i++)
        call_gemm(&c, &err);
    cudaEventRecord(e1, c.st);
    if (cudaEventSynchronize(e1) != cudaSuccess || cudaEventElapsedTime(&ms, e0, e1) != cudaSuccess)
        goto out;
    printf("C %s (%s %s, %s), %d calls a path; kernel %.3f us per launch\n", c.size, used.variant,
           used.config, cutune_match_name(used.match), nbatch * BATCH, 1e3 * ms / BATCH);
    printf("  cutune_gemm           %.3f us per call (p10 %.3f, p90 %.3f)\n", gemm[0], gemm[1],
           gemm[2]);
    printf("  lookup + launch       %.3f us per call (p10 %.3f, p90 %.3f)\n", plain[0], plain[1],
           plain[2]);
    rc = 0;
out:
    if (rc)
        fprintf(stderr, "bench_launch: %s\n", err.msg[0] ? err.msg : "CUDA set-up failed");
    cudaFree(c.A);
    cudaFree(c.B);
    cudaFree(c.C);
    if (e0)
        cudaEventDestroy(e0);
    if (e1)
        cudaEventDestroy(e1);
    if (c.st)
        cudaStreamDestroy(c.st);
    cutune_close(&c.h);
    free(per);
    return rc;
}
