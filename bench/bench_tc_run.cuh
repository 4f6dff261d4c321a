// What bench_mma.cu and bench_tf32.cu share on the device: the random inputs' hash, the grid
// of the elementwise kernels, the device and the sizes, the buffers of a size and their
// views, the poisoned output and the check's result, the FP64 reference, loading and
// launching a kernel, cuBLASLt's default heuristic, and the timing table.
// Include after cuda_check.h.
#ifndef CUTUNE_BENCH_TC_RUN_CUH
#define CUTUNE_BENCH_TC_RUN_CUH

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "bench_tc.cuh"

__device__ uint64_t mix(uint64_t x) // splitmix64's finaliser
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static int grid_for(size_t n)
{
    return (int)std::min<size_t>((n + 255) / 256, 65535 * 4);
}

// ---- the device and its kernels ------------------------------------------------------------

// The check and time sizes of o into *checks and *times, and its device made current, with
// its properties in *prop: 0; or the exit code, 2 after usage(why) for a bad size, 3 after
// saying on stderr that there is no such device.
static int tc_start(const char *prog, const TcOptions &o, int (*usage)(const char *),
                    std::vector<Size> *checks, std::vector<Size> *times, cudaDeviceProp *prop)
{
    if (!parse_sizes(o.check_list, checks) || !parse_sizes(o.time_list, times))
        return usage("sizes are MxNxK (each >= 1), comma-separated");
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev <= o.device) {
        fprintf(stderr, "%s: no CUDA device %d\n", prog, o.device);
        return 3;
    }
    CK(cudaSetDevice(o.device));
    CK(cudaGetDeviceProperties(prop, o.device));
    return 0;
}

template <class T> __global__ void fill_value(T *x, size_t n, T v)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        x[i] = v;
}

// C's mn elements set to nan (a NaN's bits) and the nguard elements before and after C to
// guard: an element a kernel leaves unwritten fails its check, a write outside C shows.
template <class T> static void tc_poison(T *C, size_t mn, int nguard, T guard, T nan)
{
    fill_value<T><<<grid_for(mn + 2 * nguard), 256>>>(C - nguard, mn + 2 * nguard, guard);
    fill_value<T><<<grid_for(mn), 256>>>(C, mn, nan);
    CK(cudaGetLastError());
}

// In a check kernel: counts into *guard_bad the guard elements (nguard before C, nguard after
// its n elements) that no longer hold v.
template <class T>
__device__ void tc_check_guards(const T *guard, int nguard, size_t n, T v,
                                unsigned long long *guard_bad)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < 2 * nguard; i += gridDim.x * blockDim.x)
        if (guard[i < nguard ? i : i + (long long)n] != v) // before C, then after it
            atomicAdd(guard_bad, 1ull);
}

// The buffers both allocate for a size: A and B (16 bytes more each: room for a view one
// element on), C between GUARD elements before and after it (Cbuf: GUARD + M*N + GUARD, and
// 16 bytes more), C's FP64 reference ref and magnitudes mag.
template <class T> struct TcBuffers {
    Size s;
    bool nt;
    T *A = nullptr, *B = nullptr, *Cbuf = nullptr;
    double *ref = nullptr, *mag = nullptr;
    static const int GUARD = 64; // 128 or 256 bytes: C stays 16-byte aligned
    T *C() const
    {
        return Cbuf + GUARD;
    }
};

template <class T> static void tc_buffers_make(TcBuffers<T> *p)
{
    const size_t mk = (size_t)p->s.M * p->s.K, kn = (size_t)p->s.K * p->s.N,
                 mn = (size_t)p->s.M * p->s.N;
    CK(cudaMalloc(&p->A, mk * sizeof(T) + 16));
    CK(cudaMalloc(&p->B, kn * sizeof(T) + 16));
    CK(cudaMalloc(&p->Cbuf, (mn + 2 * TcBuffers<T>::GUARD) * sizeof(T) + 16));
    CK(cudaMalloc(&p->ref, mn * 8));
    CK(cudaMalloc(&p->mag, mn * 8));
}

template <class T> static void tc_buffers_free(TcBuffers<T> *p)
{
    for (void *q : {(void *)p->A, (void *)p->B, (void *)p->Cbuf, (void *)p->ref, (void *)p->mag})
        cudaFree(q);
}

// What a check kernel gathers: launch(d) with *d zeroed on the device, then *d (first = -1
// where no element was wrong).
template <class R, class Launch> static R tc_check_result(Launch launch)
{
    R *d, h;
    CK(cudaMalloc(&d, sizeof *d));
    CK(cudaMemset(d, 0, sizeof *d));
    launch(d);
    CK(cudaGetLastError());
    CK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
    CK(cudaFree(d));
    if (!h.bad)
        h.first = -1;
    return h;
}

// The end of a check's line: how many elements were wrong and the first, and the writes
// outside C.
template <class R> static void tc_print_wrong(const R &r, const Size &s)
{
    if (r.bad)
        printf("  %llu wrong, first at [%lld][%lld]: got %.9g, FP64 %.9g", r.bad, r.first / s.N,
               r.first % s.N, r.got, r.ref);
    if (r.guard_bad)
        printf("  %llu elements written outside C", r.guard_bad);
    printf("\n");
}

// out = A B in FP64 (cuBLAS DGEMM) for row-major A (M x K) and B (K x N; for nt, N x K).
// Row-major through column-major cuBLAS: C^T = B^T A^T, and for nt (B stored N x K) B^T's
// column-major view is B's row-major one transposed.
static void tc_reference(cublasHandle_t h, const Size &s, bool nt, const double *A, const double *B,
                         double *out)
{
    const double one = 1.0, zero = 0.0;
    const cublasOperation_t tb = nt ? CUBLAS_OP_T : CUBLAS_OP_N;
    CKB(cublasDgemm(h, tb, CUBLAS_OP_N, s.N, s.M, s.K, &one, B, nt ? s.K : s.N, A, s.K, &zero, out,
                    s.N));
}

// The inputs A (mk elements) and B (kn) moved one element on, to A + 1 and B + 1 (through a
// copy, as the ranges overlap); their allocations hold the element more.
template <class T> static void tc_shift_inputs(T *A, T *B, size_t mk, size_t kn)
{
    T *tmp;
    CK(cudaMalloc(&tmp, std::max(mk, kn) * sizeof(T)));
    CK(cudaMemcpy(tmp, A, mk * sizeof(T), cudaMemcpyDeviceToDevice));
    CK(cudaMemcpy(A + 1, tmp, mk * sizeof(T), cudaMemcpyDeviceToDevice));
    CK(cudaMemcpy(tmp, B, kn * sizeof(T), cudaMemcpyDeviceToDevice));
    CK(cudaMemcpy(B + 1, tmp, kn * sizeof(T), cudaMemcpyDeviceToDevice));
    CK(cudaFree(tmp));
}

// The kernel `name` of cubin loaded into *lib and *fn, allowed max_shared bytes of dynamic
// shared memory.
static void tc_load(const std::vector<char> &cubin, const char *name, size_t max_shared,
                    cudaLibrary_t *lib, cudaKernel_t *fn)
{
    CK(cudaLibraryLoadData(lib, cubin.data(), NULL, NULL, 0, NULL, NULL, 0));
    CK(cudaLibraryGetKernel(fn, *lib, name));
    CK(cudaFuncSetAttribute((const void *)*fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
                            (int)max_shared));
}

// fn(A, B, C, M, N, K, bias), every matmul kernel's signature, with no bias (NULL), launched
// on grid, block and shared; a kernel that takes TMA tensor maps after them (matmul_wgmma with
// a TMA parameter) gets two of zero bytes, which its TMA = 0 configs do not read (the launch
// passes as many arguments as the kernel has).
template <class T>
static cudaError_t tc_launch(cudaKernel_t fn, const Size &s, dim3 grid, dim3 block, size_t shared,
                             const T *A, const T *B, T *C)
{
    int M = s.M, N = s.N, K = s.K;
    struct alignas(64) Map {
        unsigned long long opaque[16];
    } none[2] = {};
    const T *bias = nullptr;
    void *args[] = {(void *)&A, (void *)&B, (void *)&C, &M, &N, &K, (void *)&bias, &none[0],
                    &none[1]};
    return cudaLaunchKernel((const void *)fn, grid, block, args, shared, 0);
}

// The check's views of p's buffers, each(view, A, B, C): view 0 as allocated; view 1, for
// sizes up to 2^30 multiply-adds, A, B and C one element on, off 16-byte alignment (the
// inputs moved there through a copy, as the ranges overlap; C's guards move along).
template <class T, class Each> static void tc_views(TcBuffers<T> &p, Each each)
{
    const Size s = p.s;
    const bool small = (double)s.M * s.N * s.K <= 0x1p30;
    for (int view = 0; view < (small ? 2 : 1); view++) {
        if (view)
            tc_shift_inputs(p.A, p.B, (size_t)s.M * s.K, (size_t)s.K * s.N);
        each(view, p.A + view, p.B + view, p.C() + view);
    }
}

// Each loaded kernel (ok(i)) of n on C poisoned first (poison()), launched twice (run(i):
// the second launch shows what the first left behind), then check(i, its name "c<i>").
template <class Ok, class Poison, class Run, class Check>
static void tc_check_kernels(size_t n, Ok ok, Poison poison, Run run, Check check)
{
    for (size_t i = 0; i < n; i++) {
        if (!ok(i))
            continue;
        poison();
        CK(run(i));
        CK(cudaDeviceSynchronize());
        CK(run(i));
        CK(cudaDeviceSynchronize());
        char name[32];
        snprintf(name, sizeof name, "c%zu", i);
        check(i, name);
    }
}

// The kernels unloaded and cuBLAS closed; the verdict on stdout and the exit code.
template <class K> static int tc_finish(cublasHandle_t blas, const std::vector<K> &ks, int failures)
{
    cublasDestroy(blas);
    for (const K &k : ks)
        if (k.lib)
            cudaLibraryUnload(k.lib);
    printf("%s\n", failures ? "FAILED" : "all checks passed");
    return failures ? 1 : 0;
}

// ---- cuBLASLt ------------------------------------------------------------------------------

// cuBLASLt's default heuristic (its first answer) for row-major C = A B of type t in compute,
// with PyTorch's 32 MiB workspace (its cuBLASLt workspace on Hopper): column-major C^T (N x
// M) = B' A^T with B' = B^T (nn: B's row-major K x N is column-major N x K) or, for nt, B
// (row-major N x K = column-major K x N, transposed by the op).
struct LtMatmul {
    cublasLtHandle_t h = nullptr;
    cublasLtMatmulDesc_t op = nullptr;
    cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
    cublasLtMatmulHeuristicResult_t algo;
    void *ws = nullptr;
    size_t ws_size = 32u << 20;
    bool ok = false; // the heuristic gave an algorithm
};

static void lt_matmul_make(LtMatmul *lt, const Size &s, bool nt, cudaDataType_t t,
                           cublasComputeType_t compute)
{
    const int M = s.M, N = s.N, K = s.K;
    CKB(cublasLtCreate(&lt->h));
    CKB(cublasLtMatmulDescCreate(&lt->op, compute, CUDA_R_32F));
    cublasOperation_t ta = nt ? CUBLAS_OP_T : CUBLAS_OP_N, tb = CUBLAS_OP_N;
    CKB(cublasLtMatmulDescSetAttribute(lt->op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    CKB(cublasLtMatmulDescSetAttribute(lt->op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
    if (nt)
        CKB(cublasLtMatrixLayoutCreate(&lt->la, t, K, N, K));
    else
        CKB(cublasLtMatrixLayoutCreate(&lt->la, t, N, K, N));
    CKB(cublasLtMatrixLayoutCreate(&lt->lb, t, K, M, K));
    CKB(cublasLtMatrixLayoutCreate(&lt->lc, t, N, M, N));
    CK(cudaMalloc(&lt->ws, lt->ws_size));
    cublasLtMatmulPreference_t pref;
    CKB(cublasLtMatmulPreferenceCreate(&pref));
    CKB(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                             &lt->ws_size, sizeof lt->ws_size));
    int found = 0;
    const cublasStatus_t st = cublasLtMatmulAlgoGetHeuristic(lt->h, lt->op, lt->la, lt->lb, lt->lc,
                                                             lt->lc, pref, 1, &lt->algo, &found);
    cublasLtMatmulPreferenceDestroy(pref);
    lt->ok = st == CUBLAS_STATUS_SUCCESS && found > 0;
}

static void lt_matmul_free(LtMatmul *lt)
{
    if (lt->la)
        cublasLtMatrixLayoutDestroy(lt->la), cublasLtMatrixLayoutDestroy(lt->lb),
            cublasLtMatrixLayoutDestroy(lt->lc);
    if (lt->op)
        cublasLtMatmulDescDestroy(lt->op);
    if (lt->h)
        cublasLtDestroy(lt->h);
    cudaFree(lt->ws);
    *lt = LtMatmul();
}

static cudaError_t lt_matmul_run(const LtMatmul &lt, const void *A, const void *B, void *C)
{
    const float one = 1.0f, zero = 0.0f;
    const cublasStatus_t st = cublasLtMatmul(lt.h, lt.op, &one, B, lt.la, A, lt.lb, &zero, C, lt.lc,
                                             C, lt.lc, &lt.algo.algo, lt.ws, lt.ws_size, 0);
    return st == CUBLAS_STATUS_SUCCESS ? cudaGetLastError() : cudaErrorUnknown;
}

// ---- timing --------------------------------------------------------------------------------

// Median milliseconds of `reps` launches (each timed alone, after 3 warm-up launches).
template <class F> static double time_ms(F launch, int reps)
{
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    for (int i = 0; i < 3; i++)
        CK(launch());
    std::vector<float> t(reps);
    for (int i = 0; i < reps; i++) {
        CK(cudaEventRecord(a));
        CK(launch());
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        CK(cudaEventElapsedTime(&t[i], a, b));
    }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    std::sort(t.begin(), t.end());
    return t[reps / 2];
}

// The fastest at size s of n kernels (run(i) launches kernel i; ok(i) false: it is not
// loaded), each printed when there are several: its median ms (1e30 when none ran), its
// index in *best_i.
template <class Ok, class Run>
static double tc_fastest(size_t n, Ok ok, Run run, const Size &s, int reps, size_t *best_i)
{
    const double flop = 2.0 * s.M * s.N * s.K;
    double best = 1e30;
    *best_i = 0;
    for (size_t i = 0; i < n; i++) {
        if (!ok(i))
            continue;
        const double ms = time_ms([&] { return run(i); }, reps);
        if (n > 1)
            printf("    c%zu %-18s %8.1f TFLOP/s  %.4f ms\n", i, size_text(s).c_str(),
                   flop / ms / 1e9, ms);
        if (ms < best)
            best = ms, *best_i = i;
    }
    return best;
}

// A row of the timing table: ours (best ms, config c<best_i>) against the vendor's ms (0:
// none).
static void tc_print_time(const Size &s, double best, double vendor_ms, size_t best_i)
{
    const double flop = 2.0 * s.M * s.N * s.K;
    printf("  %-18s %8.1f %8.1f %8.3f %8.4f  c%zu\n", size_text(s).c_str(), flop / best / 1e9,
           vendor_ms ? flop / vendor_ms / 1e9 : 0.0, vendor_ms ? vendor_ms / best : 0.0, best,
           best_i);
}

// The timing table: at each time size, a problem P made by make(&p, size, first + its index in
// times) and freed by free_(&p), each loaded kernel (ok(i)) of n launched by run(p, i), against the
// vendor's routine (vendor_ms(p): its median ms, 0 where it has none).
template <class P, class Ok, class Make, class Free, class Run, class VendorMs>
static void tc_time(const std::vector<Size> &times, size_t first, int reps, const char *vendor,
                    size_t n, Ok ok, Make make, Free free_, Run run, VendorMs vendor_ms)
{
    printf("time (median of %d launches, warm L2), TFLOP/s:\n", reps);
    printf("  %-18s %8s %8s %8s %8s  %s\n", "size", "ours", vendor, "ratio", "ms", "best config");
    for (size_t ti = 0; ti < times.size(); ti++) {
        const Size s = times[ti];
        P p;
        make(&p, s, first + ti);
        size_t best_i;
        const double best = tc_fastest(
            n, ok, [&](size_t i) { return run(p, i); }, s, reps, &best_i);
        tc_print_time(s, best, vendor_ms(p), best_i);
        free_(&p);
    }
}

#endif
