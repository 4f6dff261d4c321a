// The kernel of tma_fixture.ini: only its name is read (the test compiles nothing).
extern "C" __global__ void tma_fixture(const float *A, const float *B, float *C, int M, int N,
                                       int K)
{
}
