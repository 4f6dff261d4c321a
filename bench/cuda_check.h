/* CK and CKB: a CUDA runtime or cuBLAS call that must succeed, or the benchmark stops with
 * the file, the line, the call and its error (exit 1). For the benchmarks in C and in CUDA
 * C++ alike; the includer has cuda_runtime.h and cublas_v2.h (or cublasLt.h) already. */
#ifndef CUTUNE_BENCH_CUDA_CHECK_H
#define CUTUNE_BENCH_CUDA_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#define CK(call) \
    do { \
        cudaError_t e_ = (call); \
        if (e_ != cudaSuccess) { \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            exit(1); \
        } \
    } while (0)
#define CKB(call) \
    do { \
        cublasStatus_t s_ = (call); \
        if (s_ != CUBLAS_STATUS_SUCCESS) { \
            fprintf(stderr, "%s:%d: %s: cuBLAS status %d\n", __FILE__, __LINE__, #call, (int)s_); \
            exit(1); \
        } \
    } while (0)

#endif
