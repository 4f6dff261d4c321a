/* The seeded inputs made on the device (host->random_uniform_device) against the host's
 * (cutune_random_uniform), bit for bit: lengths of one element, of a part block, and of more
 * elements than the grid has threads; two seeds and streams, two ranges. And an op's inputs
 * (cutune_op_random_floats) come from the device where no host copy is asked for, from the
 * host where one is. And a source of two host kernels (host->run_kernel) is compiled and
 * cached once for both. Exits 77 without a GPU. */
#include "check.h"
#include "gpu_test.h"
#include "host.h"
#include "random.h"
#include "tmpdir.h"

#include <cuda_runtime.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char two_kernels_cu[] =
    "extern \"C\" __global__ void first(int *x) { x[threadIdx.x] = 3 * threadIdx.x; }\n"
    "extern \"C\" __global__ void second(int *x) { x[threadIdx.x] += 1; }\n";

/* Files in dir (-1: it cannot be read). */
static int files_in(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* Both kernels of two_kernels_cu run through run_kernel with a kernel cache: they compute
 * what they say, and the cache holds one cubin for the two. */
static void one_compile_per_source(int arch)
{
    CHECK(make_tmpdir(tmpdir, sizeof tmpdir, "cutune-gpu-random") == 0);
    const char *kernels = in_tmp("kernels");
    CutuneError err = {0};
    CutuneHostCtx c;
    cutune_host_init(&c, arch, tmpdir, &err);
    CutuneHost *h = &c.host;
    int *x = NULL, got[32];
    CutuneLaunch l = {{1, 1, 1}, {32, 1, 1}, 0};
    void *args[] = {&x};
    CHECK_MSG(h->dev_alloc(h->ctx, sizeof got, (void **)&x) == 0 &&
                  h->run_kernel(h->ctx, two_kernels_cu, "first", &l, args) == 0 &&
                  h->run_kernel(h->ctx, two_kernels_cu, "second", &l, args) == 0 &&
                  h->copy_to_host(h->ctx, got, x, sizeof got) == 0,
              "two kernels of one source: %s", err.msg);
    for (int i = 0; i < 32; i++)
        CHECK_MSG(got[i] == 3 * i + 1, "x[%d] = %d, not %d", i, got[i], 3 * i + 1);
    CHECK_MSG(files_in(kernels) == 1, "%d files in the kernel cache for one source of two kernels",
              files_in(kernels));
    cutune_host_release(&c);
    CHECK(rm_tree(tmpdir) == 0);
}

/* n values of (seed, stream, lo, hi) both ways: how many differ (n + 1: it could not run). */
static size_t differ(CutuneHost *h, uint64_t seed, uint64_t stream, size_t n, float lo, float hi)
{
    float *want = malloc(n * sizeof *want), *got = malloc(n * sizeof *got), *dev = NULL;
    size_t bad = n + 1;
    if (want && got && h->dev_alloc(h->ctx, n * sizeof *dev, (void **)&dev) == 0 &&
        h->random_uniform_device(h->ctx, seed, stream, dev, n, lo, hi) == 0 &&
        h->copy_to_host(h->ctx, got, dev, n * sizeof *got) == 0) {
        cutune_random_uniform(seed, stream, want, n, lo, hi);
        bad = 0;
        for (size_t i = 0; i < n; i++)
            bad += memcmp(&want[i], &got[i], sizeof want[i]) != 0 || !(got[i] >= lo && got[i] < hi);
    }
    h->dev_free(h->ctx, dev);
    free(want);
    free(got);
    return bad;
}

int main(void)
{
    if (!gpu_present())
        return CHECK_SKIP;
    struct cudaDeviceProp p;
    CHECK(cudaSetDevice(0) == cudaSuccess && cudaGetDeviceProperties(&p, 0) == cudaSuccess);
    CutuneError err = {0};
    CutuneHostCtx c;
    cutune_host_init(&c, p.major * 10 + p.minor, NULL, &err);
    CutuneHost *h = &c.host;
    CHECK(CUTUNE_HOST_HAS(h, random_uniform_device));
    /* 65536 blocks of 256 threads: the last length makes each thread draw twice */
    const size_t lengths[] = {1, 1000, (size_t)1 << 22, ((size_t)65536 * 256) * 2 + 3};
    for (size_t k = 0; k < sizeof lengths / sizeof lengths[0]; k++) {
        size_t n = lengths[k];
        CHECK_MSG(differ(h, 42, 0, n, -1.0f, 1.0f) == 0, "n %zu seed 42 stream 0: %s", n, err.msg);
        CHECK_MSG(differ(h, 7, 3, n, -2.0f, 0.5f) == 0, "n %zu seed 7 stream 3: %s", n, err.msg);
    }
    /* an op's input: on the device without a host copy, from the host with one; the same */
    float *dev = NULL, *dev2 = NULL, *copy = NULL;
    size_t n = 4099;
    float *back = malloc(n * sizeof *back);
    CHECK(cutune_op_random_floats(h, n, 11, 2, -1.0f, 1.0f, &dev, NULL) == 0);
    CHECK(cutune_op_random_floats(h, n, 11, 2, -1.0f, 1.0f, &dev2, &copy) == 0 && copy);
    CHECK(back && dev && copy && h->copy_to_host(h->ctx, back, dev, n * sizeof *back) == 0 &&
          memcmp(back, copy, n * sizeof *back) == 0);
    h->dev_free(h->ctx, dev);
    h->dev_free(h->ctx, dev2);
    free(copy);
    free(back);
    cutune_host_release(&c);
    one_compile_per_source(p.major * 10 + p.minor);
    return check_result("gpu_random");
}
