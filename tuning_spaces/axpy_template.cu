// axpy_template: out = a * x + y over n floats. The kernel of the template plugin: copy this
// folder to start a new variant.
//
// Every tunable parameter of tuning_spaces/axpy_template.ini arrives as a -D macro:
//   BLOCK  threads per block
//   ITEMS  elements per thread per pass of the grid-stride loop
extern "C" __global__ void __launch_bounds__(BLOCK)
axpy_template(const float *__restrict__ x, const float *__restrict__ y, float *__restrict__ out,
              float a, long long n)
{
    long long stride = (long long)gridDim.x * BLOCK * ITEMS;
    for (long long base = (long long)blockIdx.x * BLOCK * ITEMS + threadIdx.x; base < n;
         base += stride) {
#pragma unroll
        for (int i = 0; i < ITEMS; i++) {
            long long j = base + (long long)i * BLOCK; // consecutive threads, consecutive j
            if (j < n)
                out[j] = a * x[j] + y[j];
        }
    }
}
