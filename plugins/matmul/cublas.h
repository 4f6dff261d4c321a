/* matmul's yardsticks: cuBLAS SGEMM (cublas.c), cuBLASLt for the other types (cublaslt.c). */
#ifndef CUTUNE_OP_MATMUL_CUBLAS_H
#define CUTUNE_OP_MATMUL_CUBLAS_H

#include "cutune/op.h"

/* C = A * B (row-major, MxK times KxN, or B stored N x K when bt) by cublasSgemm on the
 * device buffers given. CUTUNE_ERR_NOT_FOUND (host->fail says what was tried) when cuBLAS is
 * not installed. */
int matmul_cublas_yardstick(const CutuneHost *host, const float *A, const float *B, float *C, int M,
                            int N, int K, int bt, CutuneYardstick *out);

/* The same in tf32, fp16 or bf16 (dtype, CutuneDtype) with float32 accumulation, by
 * cublasLtMatmul with the first algorithm of its default heuristic (cublaslt.c); with bias
 * (not NULL: N elements of dtype) through cuBLASLt's bias epilogue, as PyTorch's addmm. */
int matmul_cublaslt_yardstick(const CutuneHost *host, int dtype, int bt, const void *A,
                              const void *B, void *C, const void *bias, int M, int N, int K,
                              CutuneYardstick *out);

#endif
