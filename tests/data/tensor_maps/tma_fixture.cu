// The kernel of tma_fixture.ini and tma_limits.ini: nothing runs it (tests/test_tensor_maps.c
// evaluates the maps; tests/test_cli.sh has `cutune check` read its parameters). After the op's
// arguments come the maps, in the order their names first appear in the INI: B, A, C. A
// kernel may declare CUtensorMap from <cuda.h>; a struct of its size does as well.
struct alignas(64) TensorMap {
    unsigned long long opaque[16];
};

extern "C" __global__ void tma_fixture(const float *A, const float *B, float *C, int M, int N,
                                       int K, const float *bias, const __grid_constant__ TensorMap mapB,
                                       const __grid_constant__ TensorMap mapA, const __grid_constant__ TensorMap mapC)
{
    if (M < 0) /* the maps are for cp.async.bulk.tensor, which this kernel does not use */
        C[0] = A[0] + B[0];
}
