/* matmul's yardstick, cuBLAS SGEMM (cublas.c). */
#ifndef CUTUNE_OP_MATMUL_CUBLAS_H
#define CUTUNE_OP_MATMUL_CUBLAS_H

#include "cutune/op.h"

/* C = A * B (row-major, MxK times KxN) by cublasSgemm on the device buffers given.
 * CUTUNE_ERR_NOT_FOUND (host->fail says what was tried) when cuBLAS is not installed. */
int matmul_cublas_yardstick(const CutuneHost *host, const float *A, const float *B, float *C, int M,
                            int N, int K, CutuneYardstick *out);

#endif
