/* matmul_app: an application that uses cutune's tuned matmul, built against the installed
 * library through pkg-config (see Makefile and meson.build here).
 *
 *   matmul_app [--db PATH] [--size MxNxK] [--seed N] [--record]
 *
 * It multiplies two fresh random matrices on the GPU with the best tuned config for its
 * device and size (cutune_matmul: look up down the fallback ladder, then launch on our own
 * buffers and stream), checks the result against a double-precision CPU reference, then
 * does it again through the generic pair cutune_lookup + cutune_launch and checks that
 * both launches agree bit for bit.
 *
 * Exit codes: 0 correct, 1 wrong result or error, 4 nothing tuned for this device or its
 * architecture, 77 no CUDA device (so that a test suite can skip it). */
#include <cutune/lookup.h>

#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CK(call) \
    do { \
        cudaError_t e_ = (call); \
        if (e_ != cudaSuccess) { \
            fprintf(stderr, "matmul_app: %s: %s\n", #call, cudaGetErrorString(e_)); \
            exit(1); \
        } \
    } while (0)

/* Uniform floats in [-1, 1) from a 64-bit seed (splitmix64). */
static void fill_random(float *x, size_t n, uint64_t *state)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        z ^= z >> 31;
        x[i] = (float)((double)(z >> 40) * 0x1.0p-24 * 2.0 - 1.0);
    }
}

/* Every element within the float32 rounding bound of any summation order:
 * |c - ref| <= gamma_K * sum_k |a_ik b_kj|, gamma_K = K u / (1 - K u), u = 2^-24. NaN fails. */
static int check(const float *A, const float *B, const float *C, int M, int N, int K,
                 double *max_err)
{
    double u = 0x1.0p-24, gamma = K * u / (1 - K * u);
    double *ref = calloc((size_t)N, sizeof *ref), *mag = calloc((size_t)N, sizeof *mag);
    int bad = 0;
    *max_err = 0;
    for (int i = 0; i < M && ref && mag; i++) {
        memset(ref, 0, (size_t)N * sizeof *ref);
        memset(mag, 0, (size_t)N * sizeof *mag);
        for (int k = 0; k < K; k++) {
            double a = A[(size_t)i * K + k];
            const float *b = &B[(size_t)k * N];
            for (int j = 0; j < N; j++) {
                ref[j] += a * b[j];
                mag[j] += fabs(a * b[j]);
            }
        }
        for (int j = 0; j < N; j++) {
            double c = C[(size_t)i * N + j], e = fabs(c - ref[j]);
            if (!(e <= gamma * mag[j])) { /* NaN lands here too */
                if (bad++ < 5)
                    fprintf(stderr, "C[%d][%d] = %.9g, expected %.9g (bound %.3g)\n", i, j, c,
                            ref[j], gamma * mag[j]);
            }
            if (e > *max_err || isnan(e))
                *max_err = e;
        }
    }
    if (!ref || !mag)
        bad = 1;
    free(ref);
    free(mag);
    return bad == 0;
}

int main(int argc, char **argv)
{
    const char *db = NULL, *size = "512x512x512";
    uint64_t seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
    int record = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--db") && i + 1 < argc)
            db = argv[++i];
        else if (!strcmp(argv[i], "--size") && i + 1 < argc)
            size = argv[++i];
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--record"))
            record = 1;
        else {
            fprintf(stderr, "usage: matmul_app [--db PATH] [--size MxNxK] [--seed N] [--record]\n");
            return 1;
        }
    }
    int M, N, K;
    if (sscanf(size, "%dx%dx%d", &M, &N, &K) != 3 || M <= 0 || N <= 0 || K <= 0) {
        fprintf(stderr, "matmul_app: --size wants MxNxK, got '%s'\n", size);
        return 1;
    }
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        printf("matmul_app: no CUDA device: skipped\n");
        return 77;
    }

    CutuneLookupSettings s;
    cutune_lookup_default_settings(&s);
    s.db_path = db;
    s.record_requests = record;
    CutuneLookup *h = NULL;
    CutuneError err = {0};
    if (cutune_open(&h, &s, &err) != 0) {
        fprintf(stderr, "matmul_app: %s\n", err.msg);
        return err.code == CUTUNE_ERR_NOT_FOUND ? 4 : 1;
    }

    size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N;
    float *A = malloc(na * sizeof *A), *B = malloc(nb * sizeof *B), *C = malloc(nc * sizeof *C);
    float *C2 = malloc(nc * sizeof *C2);
    if (!A || !B || !C || !C2)
        return 1;
    uint64_t state = seed;
    fill_random(A, na, &state);
    fill_random(B, nb, &state);
    float *dA, *dB, *dC;
    cudaStream_t stream;
    CK(cudaStreamCreate(&stream));
    CK(cudaMalloc((void **)&dA, na * sizeof *A));
    CK(cudaMalloc((void **)&dB, nb * sizeof *B));
    CK(cudaMalloc((void **)&dC, nc * sizeof *C));
    CK(cudaMemcpy(dA, A, na * sizeof *A, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dB, B, nb * sizeof *B, cudaMemcpyHostToDevice));
    CK(cudaMemset(dC, 0xff, nc * sizeof *C)); /* NaN: an element never written fails */

    /* The short way: one call looks up and launches. */
    CutuneLookupResult used;
    int rc = cutune_matmul(h, dA, dB, dC, M, N, K, stream, &used, &err);
    if (rc != 0) {
        fprintf(stderr, "matmul_app: %s\n", err.msg);
        cutune_close(&h);
        return rc == CUTUNE_ERR_NOT_FOUND ? 4 : 1;
    }
    CK(cudaStreamSynchronize(stream));
    CK(cudaMemcpy(C, dC, nc * sizeof *C, cudaMemcpyDeviceToHost));
    printf("matmul %s: answered by %s: %s %s (tuned at %s on %s, %.4g ms there)%s\n", used.size,
           cutune_match_name(used.match), used.variant, used.config, used.tuned_size,
           used.device_name, used.median_ms, used.recorded ? "; recorded as a request" : "");
    double max_err;
    int ok = check(A, B, C, M, N, K, &max_err);
    printf("seed %llu: max |error| %.3g: %s\n", (unsigned long long)seed, max_err,
           ok ? "correct" : "WRONG");

    /* The generic way: the same lookup (cached now), launched with our own argument array. */
    int dev = 0;
    CK(cudaGetDevice(&dev));
    CutuneDeviceInfo info;
    CutuneLookupResult r;
    CK(cudaMemset(dC, 0xff, nc * sizeof *C));
    const float *no_bias = NULL; /* the op's bias: NULL for a size without "-bias" */
    void *args[] = {&dA, &dB, &dC, &M, &N, &K, &no_bias}; /* the op's kernel signature */
    if (cutune_device_describe(dev, &info, &err) != 0 ||
        cutune_lookup(h, &info, "matmul", size, &r, &err) != 0 ||
        cutune_launch(h, &r, size, args, stream, &err) != 0) {
        fprintf(stderr, "matmul_app: %s\n", err.msg);
        ok = 0;
    } else {
        CK(cudaStreamSynchronize(stream));
        CK(cudaMemcpy(C2, dC, nc * sizeof *C2, cudaMemcpyDeviceToHost));
        int same = strcmp(r.config, used.config) == 0 && memcmp(C, C2, nc * sizeof *C) == 0;
        printf("lookup + launch: %s %s: %s\n", cutune_match_name(r.match), r.config,
               same ? "same result" : "DIFFERENT result");
        ok = ok && same;
    }
    cutune_close(&h); /* before the context goes: it unloads the kernels */
    CK(cudaFree(dA));
    CK(cudaFree(dB));
    CK(cudaFree(dC));
    CK(cudaStreamDestroy(stream));
    free(A);
    free(B);
    free(C);
    free(C2);
    return ok ? 0 : 1;
}
