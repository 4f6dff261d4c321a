// bench_tf32: the float32 tensor-core matmul kernel (tuning_spaces/matmul_tf32.cu) on its own,
// outside cutune: compiled with NVRTC at run time for the device (as cutune compiles it, with
// the headers its INI names in front), checked at ragged and large sizes against an FP64
// reference with the op's bounds (plugins/matmul/matmul.h), and timed against the vendor:
//   --dtype fp32  3xTF32, against cuBLAS SGEMM (true FP32, no TF32), both errors side by side;
//   --dtype tf32  TF32, against cuBLASLt's default heuristic with CUBLAS_COMPUTE_32F_FAST_TF32.
//
//   bench_tf32 [--dtype fp32|tf32] [--layout nn|nt] --config "BM=128,BN=128,..." [--config ...]
//              [--configs FILE] [--check-sizes LIST] [--time-sizes LIST] [--reps N] [--seed N]
//              [--kernel PATH] [--headers LIST] [--kernel-name NAME] [--device N]
//   bench_tf32 --compile-only [--arch 90,80] [--no-spills] [--dtype ...] [--layout ...]
//              --config ... | --configs FILE  (no GPU)
//   bench_tf32 --wgmma ...   the Hopper kernel instead (tuning_spaces/matmul_wgmma.cu, no
//              headers, compiled for sm_90a: the variants matmul_wgmma_tf32 and
//              matmul_wgmma_3xtf32, layout nt only), its launch as their INIs give it
//
// A config is any list of NAME=VALUE (every one becomes -DNAME=VALUE, so a macro the INI does
// not tune, such as ACC_DIRECT=1, can be tried too); the launch needs BM, BN, BK, WM, WN,
// STAGES and SPLITK and is the one matmul_tf32.ini's [launch] gives. FILE holds one config a
// line (# comments). LIST is comma-separated MxNxK. Defaults: fp32, nn, check sizes 1x1x1,
// 17x33x9,1000x1000x1000 (--wgmma fp32: 64x64x64,45x37x75,1000x1000x1000: K >= 64), time
// sizes 4096x4096x4096,8192x8192x8192, 20 timed launches, the kernel
// tuning_spaces/matmul_tf32.cu with tuning_spaces/mma_ptx.cuh in front.
//
// Every size (check and time sizes) is checked on every element, for each config and for
// the vendor routine, and prints each one's largest and rms error against FP64 side by side.
// A size fails when an element breaks the op's bound, or NaN or a write outside C shows; in
// fp32, a size of 65536 elements or more with K >= 64 also fails when the kernel's largest
// error exceeds SGEMM's (the 3xTF32 promise; smaller sizes print the comparison only, as a
// maximum over few elements is noise). --compile-only compiles each config for each
// architecture and prints ptxas's registers and spills (a config with SPLITK > 1 is expected
// to stop on sm_80); it exits 1 when one does not compile, or with --no-spills when one spills.
//
// Build: meson builds it into build/bench/ when nvcc is found; by hand (sm_90):
//   nvcc -O2 -std=c++17 -arch=sm_90 -o bench_tf32 bench/bench_tf32.cu -lnvrtc -lcublasLt -lcublas
//
// Exit: 0 every check passed, 1 a check failed (or CUDA failed), 2 bad usage, 3 no CUDA device.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <nvrtc.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cuda_check.h"
#include "bench_tc.cuh"

// ---- configs and sizes ---------------------------------------------------------------------

struct Config {
    std::string text;
    std::vector<std::pair<std::string, long>> kv;
    long get(const char *name) const
    {
        for (const auto &p : kv)
            if (p.first == name)
                return p.second;
        return -1;
    }
};

static const char *const NEEDED[] = {"BM", "BN", "BK", "WM", "WN", "STAGES", "SPLITK", nullptr};
static const char *const NEEDED_WGMMA[] = {"BM",       "BN",     "BK",        "CONSUMERS",
                                           "SCHEDULE", "STAGES", "CLUSTER_M", "CLUSTER_N",
                                           "VEC",      nullptr};

static int usage(const char *msg)
{
    fprintf(
        stderr,
        "bench_tf32: %s\nusage: bench_tf32 [--dtype fp32|tf32] [--layout nn|nt] --config "
        "\"BM=...,...\" [--configs FILE]\n       [--check-sizes MxNxK,...] [--time-sizes "
        "MxNxK,...] [--reps N] [--seed N] [--kernel PATH]\n       [--headers LIST] "
        "[--kernel-name NAME] [--device N] [--wgmma]\n       bench_tf32 --compile-only [--arch 90,80] "
        "[--no-spills] [--dtype ...] [--layout ...] --config ...\n",
        msg);
    return 2;
}

static std::string trim(std::string s)
{
    s.erase(0, s.find_first_not_of(" \t\r"));
    s.erase(s.find_last_not_of(" \t\r") + 1);
    return s;
}

static bool parse_config(const std::string &text, Config *c)
{
    c->text = trim(text);
    c->kv.clear();
    std::stringstream ss(c->text);
    std::string item;
    while (std::getline(ss, item, ',')) {
        const size_t eq = item.find('=');
        const std::string k = eq == std::string::npos ? trim(item) : trim(item.substr(0, eq));
        char *end = nullptr;
        const long v = eq == std::string::npos ? 0 : strtol(item.c_str() + eq + 1, &end, 10);
        bool name_ok = !k.empty() && !isdigit((unsigned char)k[0]);
        for (char ch : k)
            name_ok = name_ok && (isalnum((unsigned char)ch) || ch == '_');
        if (!name_ok || eq == std::string::npos || end == item.c_str() + eq + 1 ||
            !trim(end).empty()) {
            fprintf(stderr, "bench_tf32: \"%s\" in \"%s\" is not NAME=INTEGER\n", item.c_str(),
                    text.c_str());
            return false;
        }
        c->kv.emplace_back(k, v);
    }
    return true;
}

// Whether c names every parameter the launch needs (matmul_tf32's, or matmul_wgmma's)
static bool launchable(const Config &c, bool wgmma)
{
    const char *const *needed = wgmma ? NEEDED_WGMMA : NEEDED;
    for (int i = 0; needed[i]; i++)
        if (c.get(needed[i]) < (strcmp(needed[i], "SCHEDULE") ? 1 : 0)) { // SCHEDULE may be 0
            fprintf(stderr, "bench_tf32: \"%s\" lacks %s (the launch needs", c.text.c_str(),
                    needed[i]);
            for (int j = 0; needed[j]; j++)
                fprintf(stderr, " %s", needed[j]);
            fprintf(stderr, ")\n");
            return false;
        }
    return true;
}

// The launch as matmul_wgmma_tf32.ini's and matmul_wgmma_3xtf32.ini's [launch] give it (keep
// them the same): a block a tile, or (SCHEDULE > 0) persistent, as many whole clusters as the
// SMs hold; the stages (3xTF32: twice the data, the lo parts) and the staged output tile.
static void geometry_wgmma(const Config &c, const Size &s, bool split3, int sm_count, dim3 *grid,
                           dim3 *block, size_t *shared)
{
    const long BM = c.get("BM"), BN = c.get("BN"), BK = c.get("BK"), CONS = c.get("CONSUMERS"),
               SCHED = c.get("SCHEDULE"), ST = c.get("STAGES"), CM = c.get("CLUSTER_M"),
               CN = c.get("CLUSTER_N"), VEC = c.get("VEC");
    const long sup = ((s.M + BM - 1) / BM + CM - 1) / CM * (((s.N + BN - 1) / BN + CN - 1) / CN);
    *grid = dim3((unsigned)((SCHED == 0 ? sup : std::min(sup, sm_count / (CM * CN))) * CM * CN));
    *block = dim3((unsigned)((CONS + 1) * 128));
    const long pipe = ST * (BM + BN) * BK * (split3 ? 8 : 4), out = (VEC > 2) * BM * BN * 4;
    *shared = (size_t)(1024 +
                       (SCHED == 0 ? std::max(pipe, out) : pipe + (SCHED == 2 ? 2 : 1) * out) +
                       16 * ST + 16);
}

// The launch as matmul_tf32.ini's [launch] gives it (keep the two the same).
static void geometry_tf32(const Config &c, const Size &s, dim3 *grid, dim3 *block, size_t *shared)
{
    const long BM = c.get("BM"), BN = c.get("BN"), BK = c.get("BK"), WM = c.get("WM"),
               WN = c.get("WN"), ST = c.get("STAGES"), SK = c.get("SPLITK");
    *grid = dim3((unsigned)(((s.M + BM - 1) / BM) * ((s.N + BN - 1) / BN)), 1, (unsigned)SK);
    *block = dim3((unsigned)((BM / WM) * (BN / WN) * 32));
    *shared = (size_t)std::max(ST * (BM + BN) * BK * 4, (SK > 1) * BM * BN * 4);
}

// ---- NVRTC ---------------------------------------------------------------------------------

struct Build {
    std::string source, name; // the headers and the kernel, joined; the kernel's name
    bool tf32, nt;
    bool wgmma; // matmul_wgmma.cu (sm_90a), else matmul_tf32.cu
    int sm_count;
};

static void geometry(const Build &b, const Config &c, const Size &s, dim3 *grid, dim3 *block,
                     size_t *shared)
{
    if (b.wgmma)
        geometry_wgmma(c, s, !b.tf32, b.sm_count, grid, block, shared);
    else
        geometry_tf32(c, s, grid, block, shared);
}

// NVRTC, with the options cutune's worker gives (core/src/worker/compile.c): the parameters
// as -D, the dtype and layout macros, -std=c++17 -default-device. Returns the cubin, or an
// empty vector (the log in *log); `verbose` asks ptxas for its report, which lands in *log.
static std::vector<char> compile(const Build &b, const Config &c, int arch, bool verbose,
                                 std::string *log)
{
    std::vector<std::string> opts;
    for (const auto &p : c.kv)
        opts.push_back("-D" + p.first + "=" + std::to_string(p.second));
    opts.push_back(b.tf32 ? "-DCUTUNE_DTYPE_TF32=1" : "-DCUTUNE_DTYPE_FP32=1");
    opts.push_back(b.nt ? "-DCUTUNE_LAYOUT_NT=1" : "-DCUTUNE_LAYOUT_NN=1");
    // wgmma is an sm_90a instruction: the architecture-specific target of sm_90
    opts.push_back("--gpu-architecture=sm_" + std::to_string(arch) + (b.wgmma ? "a" : ""));
    opts.push_back("-std=c++17");
    opts.push_back("-default-device");
    if (verbose)
        opts.push_back("--ptxas-options=-v");
    return nvrtc_cubin(b.source, b.name + ".cu", opts, log);
}

static int compile_only(const Build &b, const std::vector<Config> &cfgs, const char *archs,
                        bool no_spills)
{
    int failures = 0;
    std::stringstream ss(archs);
    std::string a;
    while (std::getline(ss, a, ',')) {
        const int arch = atoi(a.c_str());
        for (const Config &c : cfgs) {
            std::string info;
            const bool ok = !compile(b, c, arch, true, &info).empty();
            const PtxasReport rep = ptxas_report(info);
            const long regs = rep.regs, st = rep.spill_stores, ld = rep.spill_loads;
            const bool expected_fail = !ok && arch < 90 && c.get("SPLITK") > 1;
            const bool spills = ok && no_spills && (st != 0 || ld != 0); // -1: no report
            dim3 grid, block;
            size_t shared;
            geometry(b, c, Size{4096, 4096, 4096}, &grid, &block, &shared);
            if (ok)
                printf("sm_%d %s %s %s %3ld registers, spills %ld/%ld bytes, %3u threads, %6zu B "
                       "shared: %s\n",
                       arch, b.tf32 ? "tf32" : "fp32", b.nt ? "nt" : "nn",
                       spills ? "SPILL" : "ok   ", regs, st, ld, block.x, shared, c.text.c_str());
            else
                printf("sm_%d %s %s %s %s%s\n", arch, b.tf32 ? "tf32" : "fp32", b.nt ? "nt" : "nn",
                       expected_fail ? "n/a  " : "FAIL ", c.text.c_str(),
                       expected_fail ? ": SPLITK > 1 needs sm_90 (as the INI says)" : "");
            failures += spills;
            if (!ok && !expected_fail) {
                fprintf(stderr, "%s\n", info.c_str());
                failures++;
            }
        }
    }
    return failures ? 1 : 0;
}

// ---- inputs, the FP64 reference and the check --------------------------------------------

// x[i] uniform in [-1, 1) on a grid of 2^-24 (every bit of the float's significand used for
// |x| >= 1/2); xd, xa, xs = x, |x| and x^2 in FP64
__global__ void fill(float *x, double *xd, double *xa, double *xs, size_t n, uint64_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const double u = (double)(mix(seed ^ (i * 0x2545f4914f6cdd1dull)) >> 39) * 0x1p-24 - 1.0;
        x[i] = (float)u;
        xd[i] = u;
        xa[i] = fabs(u);
        xs[i] = u * u;
    }
}

__global__ void fill32(unsigned *x, size_t n, unsigned v)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        x[i] = v;
}

struct CheckResult {
    unsigned long long bad, guard_bad;
    double worst;    // max |err| / bound
    double max_err;  // max |err|
    double sum_sq;   // sum of err^2 (rms = sqrt(sum_sq / MN))
    double ref_sq;   // sum of ref^2 (the Frobenius check)
    long long first; // first bad element, -1 if none
    double got, ref;
};

// Non-negative doubles through their bits: monotonic as integers, so atomicMax works.
__device__ void atomic_max_pos(double *p, double v)
{
    atomicMax((unsigned long long *)p, (unsigned long long)__double_as_longlong(v));
}

// The op's bounds (plugins/matmul/matmul.h, matmul_ref.cu), with u = 2^-24, S = sum |p_k|,
// W = sqrt(sum p_k^2) + |ref| and gamma_n = n u / (1 - n u):
//   fp32: d <= gamma_K S  and  d <= 8 u sqrt(K) W  (the worst case of any float32 sum, and
//         the statistical bound of one, MATMUL_TAU = 8); 3xTF32 is held to them unchanged;
//   tf32: d <= (2^-9 + 2^-20 + gamma_2K) S  and  d <= 4 2^-10 W + 8 u sqrt(K) W.
// `judge` 0 (the vendor's output) gathers the errors without holding them to the bounds. Each
// thread gathers its elements', a warp adds its threads' up, and its lane 0 adds them to res.
__global__ void check(const float *C, const double *ref, const double *mag, const double *sq,
                      size_t n, int K, int tf32, const unsigned *guard, int nguard, int judge,
                      CheckResult *res)
{
    const double u = 0x1p-24;
    const double g1 = K * u / (1 - K * u), g2 = 2.0 * K * u / (1 - 2.0 * K * u);
    double worst = 0, max_err = 0, sum_sq = 0, ref_sq = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const double c = C[i], r = ref[i], w = sqrt(sq[i]) + fabs(r);
        const double stat = 8.0 * u * sqrt((double)K) * w + (tf32 ? 4.0 * 0x1p-10 * w : 0.0);
        const double bound = fmin(stat, tf32 ? (0x1p-9 + 0x1p-20 + g2) * mag[i] : g1 * mag[i]);
        const double err = fabs(c - r);
        if (judge && !(err <= bound)) { // NaN (the poison) fails too
            if (atomicAdd(&res->bad, 1ull) == 0) {
                res->first = (long long)i;
                res->got = c;
                res->ref = r;
            }
        } else if (judge && bound > 0) {
            worst = fmax(worst, err / bound);
        }
        if (err == err) {
            max_err = fmax(max_err, err);
            sum_sq += err * err;
        }
        ref_sq += r * r;
    }
    for (int o = 16; o > 0; o /= 2) {
        worst = fmax(worst, __shfl_down_sync(0xffffffffu, worst, o));
        max_err = fmax(max_err, __shfl_down_sync(0xffffffffu, max_err, o));
        sum_sq += __shfl_down_sync(0xffffffffu, sum_sq, o);
        ref_sq += __shfl_down_sync(0xffffffffu, ref_sq, o);
    }
    if ((threadIdx.x & 31) == 0) {
        atomic_max_pos(&res->worst, worst);
        atomic_max_pos(&res->max_err, max_err);
        atomicAdd(&res->sum_sq, sum_sq);
        atomicAdd(&res->ref_sq, ref_sq);
    }
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < 2 * nguard; i += gridDim.x * blockDim.x)
        if (guard[i < nguard ? i : i + (long long)n] != 0xdeadbeefu) // before C, then after it
            atomicAdd(&res->guard_bad, 1ull);
}

// ---- the problem: inputs, reference and buffers of one size -------------------------------

struct Problem {
    Size s;
    bool tf32, nt;
    float *A = nullptr, *B = nullptr, *Cbuf = nullptr; // Cbuf: GUARD + M*N + GUARD
    double *ref = nullptr, *mag = nullptr, *sq = nullptr;
    static const int GUARD = 64; // floats before and after C (256 bytes: C stays 16-byte aligned)
    float *C() const
    {
        return Cbuf + GUARD;
    }
};

// A, B fresh from `seed`; ref = A B, mag = |A| |B| and sq = A^2 B^2 (elementwise squares) in
// FP64 (cuBLAS DGEMM: the products of floats are exact in FP64, the sums err by K 2^-53).
// Row-major through column-major cuBLAS: C^T = B^T A^T, and for nt (B stored N x K) B^T's
// column-major view is B's row-major one transposed.
static void problem_make(Problem *p, cublasHandle_t h, uint64_t seed)
{
    const size_t mk = (size_t)p->s.M * p->s.K, kn = (size_t)p->s.K * p->s.N,
                 mn = (size_t)p->s.M * p->s.N;
    CK(cudaMalloc(&p->A, mk * 4 + 16)); // +16: room for a misaligned view
    CK(cudaMalloc(&p->B, kn * 4 + 16));
    CK(cudaMalloc(&p->Cbuf, (mn + 2 * Problem::GUARD + 4) * 4));
    CK(cudaMalloc(&p->ref, mn * 8));
    CK(cudaMalloc(&p->mag, mn * 8));
    CK(cudaMalloc(&p->sq, mn * 8));
    double *ad[3], *bd[3]; // x, |x|, x^2
    for (int i = 0; i < 3; i++) {
        CK(cudaMalloc(&ad[i], mk * 8));
        CK(cudaMalloc(&bd[i], kn * 8));
    }
    fill<<<grid_for(mk), 256>>>(p->A, ad[0], ad[1], ad[2], mk, seed * 2 + 0);
    fill<<<grid_for(kn), 256>>>(p->B, bd[0], bd[1], bd[2], kn, seed * 2 + 1);
    CK(cudaGetLastError());
    const double one = 1.0, zero = 0.0;
    const int M = p->s.M, N = p->s.N, K = p->s.K;
    const cublasOperation_t tb = p->nt ? CUBLAS_OP_T : CUBLAS_OP_N;
    const int ldb = p->nt ? K : N;
    double *out[3] = {p->ref, p->mag, p->sq};
    for (int i = 0; i < 3; i++)
        CKB(cublasDgemm(h, tb, CUBLAS_OP_N, N, M, K, &one, bd[i], ldb, ad[i], K, &zero, out[i], N));
    CK(cudaDeviceSynchronize());
    for (int i = 0; i < 3; i++)
        cudaFree(ad[i]), cudaFree(bd[i]);
}

static void problem_free(Problem *p)
{
    for (void *q : {(void *)p->A, (void *)p->B, (void *)p->Cbuf, (void *)p->ref, (void *)p->mag,
                    (void *)p->sq})
        cudaFree(q);
    *p = Problem();
}

static void poison(const Problem &p, float *C)
{
    const size_t mn = (size_t)p.s.M * p.s.N;
    fill32<<<grid_for(mn + 2 * Problem::GUARD), 256>>>((unsigned *)(C - Problem::GUARD),
                                                       mn + 2 * Problem::GUARD, 0xdeadbeefu);
    fill32<<<grid_for(mn), 256>>>((unsigned *)C, mn, 0xffffffffu); // NaN
    CK(cudaGetLastError());
}

static CheckResult verify(const Problem &p, const float *C, bool judge)
{
    CheckResult *d, h;
    CK(cudaMalloc(&d, sizeof *d));
    CK(cudaMemset(d, 0, sizeof *d));
    const size_t mn = (size_t)p.s.M * p.s.N;
    check<<<grid_for(mn), 256>>>(C, p.ref, p.mag, p.sq, mn, p.s.K, p.tf32 ? 1 : 0,
                                 (const unsigned *)(C - Problem::GUARD), Problem::GUARD,
                                 judge ? 1 : 0, d);
    CK(cudaGetLastError());
    CK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
    CK(cudaFree(d));
    if (!h.bad)
        h.first = -1;
    return h;
}

// ---- our kernel and the vendor's -----------------------------------------------------------

struct Kernel {
    Config cfg;
    cudaLibrary_t lib = nullptr;
    cudaKernel_t fn = nullptr;
    bool ok = false;
};

static bool kernel_load(Kernel *k, const Build &b, int arch, size_t max_shared)
{
    std::string log;
    std::vector<char> cubin = compile(b, k->cfg, arch, false, &log);
    if (cubin.empty()) {
        fprintf(stderr, "bench_tf32: %s does not compile for sm_%d:\n%s\n", k->cfg.text.c_str(),
                arch, log.c_str());
        return false;
    }
    CK(cudaLibraryLoadData(&k->lib, cubin.data(), NULL, NULL, 0, NULL, NULL, 0));
    CK(cudaLibraryGetKernel(&k->fn, k->lib, b.name.c_str()));
    CK(cudaFuncSetAttribute((const void *)k->fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
                            (int)max_shared));
    return k->ok = true;
}

static cudaError_t kernel_run(const Build &b, const Kernel &k, const Size &s, const float *A,
                              const float *B, float *C)
{
    dim3 grid, block;
    size_t shared;
    geometry(b, k.cfg, s, &grid, &block, &shared);
    int M = s.M, N = s.N, K = s.K;
    void *args[] = {(void *)&A, (void *)&B, (void *)&C, &M, &N, &K};
    return cudaLaunchKernel((const void *)k.fn, grid, block, args, shared, 0);
}

// The vendor: fp32 cublasSgemm (default math: no TF32), tf32 cuBLASLt's first heuristic
// answer with CUBLAS_COMPUTE_32F_FAST_TF32 and PyTorch's 32 MiB workspace. Column-major C^T
// (N x M) = B' A^T with B' = B^T (nn: B's row-major K x N is column-major N x K) or, for nt,
// B (row-major N x K = column-major K x N, transposed by the op).
struct Vendor {
    const Problem *p = nullptr;
    cublasHandle_t blas = nullptr;
    cublasLtHandle_t lt = nullptr;
    cublasLtMatmulDesc_t op = nullptr;
    cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
    cublasLtMatmulHeuristicResult_t algo;
    void *ws = nullptr;
    size_t ws_size = 32u << 20;
    bool ok = false;
};

static void vendor_make(Vendor *v, const Problem &p, cublasHandle_t blas)
{
    v->p = &p;
    v->blas = blas;
    if (!p.tf32) {
        v->ok = true;
        return;
    }
    const int M = p.s.M, N = p.s.N, K = p.s.K;
    CKB(cublasLtCreate(&v->lt));
    CKB(cublasLtMatmulDescCreate(&v->op, CUBLAS_COMPUTE_32F_FAST_TF32, CUDA_R_32F));
    cublasOperation_t ta = p.nt ? CUBLAS_OP_T : CUBLAS_OP_N, tb = CUBLAS_OP_N;
    CKB(cublasLtMatmulDescSetAttribute(v->op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    CKB(cublasLtMatmulDescSetAttribute(v->op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
    if (p.nt)
        CKB(cublasLtMatrixLayoutCreate(&v->la, CUDA_R_32F, K, N, K));
    else
        CKB(cublasLtMatrixLayoutCreate(&v->la, CUDA_R_32F, N, K, N));
    CKB(cublasLtMatrixLayoutCreate(&v->lb, CUDA_R_32F, K, M, K));
    CKB(cublasLtMatrixLayoutCreate(&v->lc, CUDA_R_32F, N, M, N));
    CK(cudaMalloc(&v->ws, v->ws_size));
    cublasLtMatmulPreference_t pref;
    CKB(cublasLtMatmulPreferenceCreate(&pref));
    CKB(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                             &v->ws_size, sizeof v->ws_size));
    int found = 0;
    const cublasStatus_t st = cublasLtMatmulAlgoGetHeuristic(v->lt, v->op, v->la, v->lb, v->lc,
                                                             v->lc, pref, 1, &v->algo, &found);
    cublasLtMatmulPreferenceDestroy(pref);
    v->ok = st == CUBLAS_STATUS_SUCCESS && found > 0;
}

static void vendor_free(Vendor *v)
{
    if (v->la)
        cublasLtMatrixLayoutDestroy(v->la), cublasLtMatrixLayoutDestroy(v->lb),
            cublasLtMatrixLayoutDestroy(v->lc);
    if (v->op)
        cublasLtMatmulDescDestroy(v->op);
    if (v->lt)
        cublasLtDestroy(v->lt);
    cudaFree(v->ws);
    *v = Vendor();
}

static cudaError_t vendor_run(const Vendor &v, const float *A, const float *B, float *C)
{
    const Problem &p = *v.p;
    const float one = 1.0f, zero = 0.0f;
    const int M = p.s.M, N = p.s.N, K = p.s.K;
    cublasStatus_t st;
    if (!p.tf32)
        st = cublasSgemm(v.blas, p.nt ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B,
                         p.nt ? K : N, A, K, &zero, C, N);
    else
        st = cublasLtMatmul(v.lt, v.op, &one, B, v.la, A, v.lb, &zero, C, v.lc, C, v.lc,
                            &v.algo.algo, v.ws, v.ws_size, 0);
    return st == CUBLAS_STATUS_SUCCESS ? cudaGetLastError() : cudaErrorUnknown;
}

// The whole output's relative Frobenius error against the op's bound: 8 u sqrt(K) for fp32,
// 2^-7 for tf32 (matmul.h).
static double frobenius_bound(const Size &s, bool tf32)
{
    return tf32 ? 0x1p-7 : 8.0 * 0x1p-24 * sqrt((double)s.K);
}

static void print_check(const char *what, const Size &s, bool tf32, const char *view,
                        const CheckResult &r, const CheckResult *vendor, bool judged, bool strict,
                        int *failures)
{
    const double mn = (double)s.M * s.N;
    const double frob = r.ref_sq > 0 ? sqrt(r.sum_sq / r.ref_sq) : 0.0;
    const bool frob_ok = !judged || frob <= frobenius_bound(s, tf32);
    const bool ok = !judged || (r.bad == 0 && r.guard_bad == 0 && frob_ok);
    printf("  %-18s %-8s %-10s %-4s", size_text(s).c_str(), what, view, ok ? "ok" : "FAIL");
    printf("  max err %.3e rms %.3e", r.max_err, sqrt(r.sum_sq / mn));
    if (judged)
        printf("  max err/bound %.3g%s", r.worst,
               frob_ok ? "" : "  relative Frobenius error past its bound");
    bool worse = false;
    if (vendor) {
        worse = r.max_err > vendor->max_err;
        printf("  | vendor max %.3e rms %.3e: ours/vendor %.3f%s", vendor->max_err,
               sqrt(vendor->sum_sq / mn), vendor->max_err > 0 ? r.max_err / vendor->max_err : 0.0,
               worse ? (strict ? " WORSE" : " (worse; too few elements to judge)") : "");
    }
    if (r.bad)
        printf("  %llu wrong, first at [%lld][%lld]: got %.9g, FP64 %.9g", r.bad, r.first / s.N,
               r.first % s.N, r.got, r.ref);
    if (r.guard_bad)
        printf("  %llu elements written outside C", r.guard_bad);
    printf("\n");
    *failures += !ok || (worse && strict);
}

// ---- main ----------------------------------------------------------------------------------

int main(int argc, char **argv)
{
    bool tf32 = false, nt = false, compile_mode = false, no_spills = false, wgmma = false;
    const char *kernel_path = "tuning_spaces/matmul_tf32.cu", *archs = "90";
    const char *headers = "tuning_spaces/mma_ptx.cuh", *kernel_name = "matmul_tf32";
    const char *check_list = nullptr; // below: 3xTF32 on wgmma is in its space from K = 64 on
    const char *time_list = "4096x4096x4096,8192x8192x8192";
    int reps = 20, device = 0;
    uint64_t seed = 0;
    std::vector<Config> cfgs;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : nullptr;
        auto need = [&]() {
            if (!v)
                exit(usage((std::string(a) + " needs a value").c_str()));
            i++;
            return v;
        };
        if (!strcmp(a, "--dtype")) {
            const char *d = need();
            if (strcmp(d, "fp32") && strcmp(d, "tf32"))
                return usage("--dtype is fp32 or tf32");
            tf32 = !strcmp(d, "tf32");
        } else if (!strcmp(a, "--layout")) {
            const char *l = need();
            if (strcmp(l, "nt") && strcmp(l, "nn"))
                return usage("--layout is nn or nt");
            nt = !strcmp(l, "nt");
        } else if (!strcmp(a, "--config")) {
            Config c;
            if (!parse_config(need(), &c))
                return usage("a bad --config");
            cfgs.push_back(c);
        } else if (!strcmp(a, "--configs")) {
            std::vector<std::string> lines;
            if (!read_config_lines(need(), &lines))
                return usage("cannot read the --configs file");
            for (const std::string &line : lines) {
                Config c;
                if (!parse_config(line, &c))
                    return usage("a bad line in the --configs file");
                cfgs.push_back(c);
            }
        } else if (!strcmp(a, "--check-sizes")) {
            check_list = need();
        } else if (!strcmp(a, "--time-sizes")) {
            time_list = need();
        } else if (!strcmp(a, "--reps")) {
            reps = atoi(need());
            if (reps < 1)
                return usage("--reps is 1 or more");
        } else if (!strcmp(a, "--seed")) {
            seed = strtoull(need(), NULL, 10);
        } else if (!strcmp(a, "--kernel")) {
            kernel_path = need();
        } else if (!strcmp(a, "--headers")) {
            headers = need();
        } else if (!strcmp(a, "--kernel-name")) {
            kernel_name = need();
        } else if (!strcmp(a, "--device")) {
            device = atoi(need());
        } else if (!strcmp(a, "--compile-only")) {
            compile_mode = true;
        } else if (!strcmp(a, "--wgmma")) {
            wgmma = true;
        } else if (!strcmp(a, "--no-spills")) {
            no_spills = true;
        } else if (!strcmp(a, "--arch")) {
            archs = need();
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage("the float32 tensor-core matmul kernel (3xTF32 or TF32) against cuBLAS");
            return 0;
        } else {
            return usage((std::string("unknown argument ") + a).c_str());
        }
    }
    if (cfgs.empty())
        return usage("give at least one --config (or --configs FILE)");
    Build b;
    if (wgmma && !nt)
        return usage("--wgmma takes --layout nt only (wgmma reads 32-bit operands K-major)");
    if (wgmma && !strcmp(kernel_path, "tuning_spaces/matmul_tf32.cu"))
        kernel_path = "tuning_spaces/matmul_wgmma.cu", kernel_name = "matmul_wgmma", headers = "";
    for (const Config &c : cfgs)
        if (!launchable(c, wgmma))
            return usage("a config lacks a parameter of the launch (above)");
    b.name = kernel_name, b.tf32 = tf32, b.nt = nt, b.wgmma = wgmma, b.sm_count = 132;
    std::stringstream hs(headers);
    std::string h;
    while (std::getline(hs, h, ','))
        if (!trim(h).empty() && !read_file(trim(h), &b.source)) {
            fprintf(stderr,
                    "bench_tf32: cannot read the header %s (run from the repository root, "
                    "or give --headers)\n",
                    trim(h).c_str());
            return 2;
        }
    if (!read_file(kernel_path, &b.source)) {
        fprintf(stderr,
                "bench_tf32: cannot read the kernel %s (run from the repository root, or "
                "give --kernel)\n",
                kernel_path);
        return 2;
    }
    if (compile_mode)
        return compile_only(b, cfgs, archs, no_spills);

    if (!check_list)
        check_list = wgmma && !tf32 ? "64x64x64,45x37x75,1000x1000x1000"
                                    : "1x1x1,17x33x9,1000x1000x1000";
    std::vector<Size> checks, times;
    if (!parse_sizes(check_list, &checks) || !parse_sizes(time_list, &times))
        return usage("sizes are MxNxK (each >= 1), comma-separated");
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev <= device) {
        fprintf(stderr, "bench_tf32: no CUDA device %d\n", device);
        return 3;
    }
    CK(cudaSetDevice(device));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, device));
    const int arch = prop.major * 10 + prop.minor;
    b.sm_count = prop.multiProcessorCount;
    if (wgmma && arch != 90) {
        fprintf(stderr,
                "bench_tf32: --wgmma needs an sm_90 device (wgmma is sm_90a's), not sm_%d\n", arch);
        return 3;
    }
    if (!seed)
        seed = (uint64_t)time(NULL);
    const char *override = getenv("NVIDIA_TF32_OVERRIDE");
    printf("bench_tf32: %s %s on %s (sm_%d, %d SMs), kernel %s, seed %llu, against %s\n",
           tf32 ? "tf32" : "fp32 (3xTF32)", nt ? "nt" : "nn", prop.name, arch,
           prop.multiProcessorCount, kernel_path, (unsigned long long)seed,
           tf32 ? "cuBLASLt TF32 (default heuristic)" : "cuBLAS SGEMM");
    if (!tf32 && override && strcmp(override, "0") != 0)
        printf("  warning: NVIDIA_TF32_OVERRIDE=%s may let SGEMM use TF32\n", override);

    std::vector<Kernel> ks(cfgs.size());
    int failures = 0;
    for (size_t i = 0; i < cfgs.size(); i++) {
        ks[i].cfg = cfgs[i];
        printf("  c%zu = %s\n", i, cfgs[i].text.c_str());
        dim3 grid, block;
        size_t shared;
        geometry(b, cfgs[i], Size{1, 1, 1}, &grid, &block, &shared);
        if (shared > prop.sharedMemPerBlockOptin || block.x > (unsigned)prop.maxThreadsPerBlock) {
            printf(
                "    skipped: %zu bytes of shared memory and %u threads; the device allows %zu and %d\n",
                shared, block.x, prop.sharedMemPerBlockOptin, prop.maxThreadsPerBlock);
            continue;
        }
        if (cfgs[i].get("SPLITK") > 1 && arch < 90) {
            printf("    skipped: SPLITK > 1 needs sm_90 (thread block clusters)\n");
            continue;
        }
        if (!kernel_load(&ks[i], b, arch, prop.sharedMemPerBlockOptin))
            failures++;
    }
    cublasHandle_t blas;
    CKB(cublasCreate(&blas));
    CKB(cublasSetMathMode(blas, CUBLAS_DEFAULT_MATH)); // SGEMM in FP32, no TF32

    // Correctness: every element of C of every size, every config, poisoned before each run;
    // sizes up to 2^30 multiply-adds also with A, B and C one float off 16-byte alignment.
    printf("check (every element against FP64; bounds of matmul.h for %s; max and rms |err|):\n",
           tf32 ? "tf32" : "fp32");
    for (size_t si = 0; si < checks.size() + times.size(); si++) {
        const Size s = si < checks.size() ? checks[si] : times[si - checks.size()];
        bool seen = false; // a time size already among the check sizes
        for (size_t j = 0; j < si && !seen; j++) {
            const Size &o = j < checks.size() ? checks[j] : times[j - checks.size()];
            seen = o.M == s.M && o.N == s.N && o.K == s.K;
        }
        if (seen)
            continue;
        Problem p;
        p.s = s, p.tf32 = tf32, p.nt = nt;
        problem_make(&p, blas, seed + si);
        const bool small = (double)s.M * s.N * s.K <= 0x1p30;
        const bool strict = !tf32 && (double)s.M * s.N >= 65536 && s.K >= 64;
        // the vendor first: its errors are what ours are shown against
        Vendor v;
        vendor_make(&v, p, blas);
        CheckResult vr{};
        if (v.ok) {
            poison(p, p.C());
            CK(vendor_run(v, p.A, p.B, p.C()));
            CK(cudaDeviceSynchronize());
            vr = verify(p, p.C(), false);
            int dummy = 0;
            print_check(tf32 ? "cuBLASLt" : "SGEMM", s, tf32, "", vr, nullptr, false, false,
                        &dummy);
        } else {
            printf("  %-18s no cuBLASLt TF32 algorithm for this problem\n", size_text(s).c_str());
        }
        for (int view = 0; view < (small ? 2 : 1); view++) {
            // view 1: A, B, C start 4 bytes later (the inputs moved there through a copy, as
            // the ranges overlap; C's guards move along)
            float *A = p.A, *B = p.B, *C = p.C();
            if (view) {
                const size_t mk = (size_t)s.M * s.K, kn = (size_t)s.K * s.N;
                A = p.A + 1, B = p.B + 1, C = p.C() + 1;
                float *tmp;
                CK(cudaMalloc(&tmp, std::max(mk, kn) * 4));
                CK(cudaMemcpy(tmp, p.A, mk * 4, cudaMemcpyDeviceToDevice));
                CK(cudaMemcpy(A, tmp, mk * 4, cudaMemcpyDeviceToDevice));
                CK(cudaMemcpy(tmp, p.B, kn * 4, cudaMemcpyDeviceToDevice));
                CK(cudaMemcpy(B, tmp, kn * 4, cudaMemcpyDeviceToDevice));
                CK(cudaFree(tmp));
            }
            for (size_t i = 0; i < ks.size(); i++) {
                if (!ks[i].ok)
                    continue;
                poison(p, C);
                CK(kernel_run(b, ks[i], s, A, B, C));
                CK(cudaDeviceSynchronize());
                CK(kernel_run(b, ks[i], s, A, B, C)); // a second launch: nothing left over
                CK(cudaDeviceSynchronize());
                char name[32];
                snprintf(name, sizeof name, "c%zu", i);
                print_check(name, s, tf32, view ? "misaligned" : "", verify(p, C, true),
                            v.ok && !view ? &vr : nullptr, true, strict, &failures);
            }
        }
        vendor_free(&v);
        problem_free(&p);
    }

    // Timing: each config, then the vendor, at each time size (inputs of the check's seed).
    printf("time (median of %d launches, warm L2), TFLOP/s:\n", reps);
    printf("  %-18s %8s %8s %8s %8s  %s\n", "size", "ours", tf32 ? "cuBLASLt" : "SGEMM", "ratio",
           "ms", "best config");
    for (size_t ti = 0; ti < times.size(); ti++) {
        const Size s = times[ti];
        Problem p;
        p.s = s, p.tf32 = tf32, p.nt = nt;
        problem_make(&p, blas, seed + checks.size() + ti);
        const double flop = 2.0 * s.M * s.N * s.K;
        double best = 1e30;
        size_t best_i = 0;
        for (size_t i = 0; i < ks.size(); i++) {
            if (!ks[i].ok)
                continue;
            const double ms = time_ms([&] { return kernel_run(b, ks[i], s, p.A, p.B, p.C()); },
                                      reps);
            if (ks.size() > 1)
                printf("    c%zu %-18s %8.1f TFLOP/s  %.4f ms\n", i, size_text(s).c_str(),
                       flop / ms / 1e9, ms);
            if (ms < best)
                best = ms, best_i = i;
        }
        Vendor v;
        vendor_make(&v, p, blas);
        const double v_ms = v.ok ? time_ms([&] { return vendor_run(v, p.A, p.B, p.C()); }, reps)
                                 : 0;
        vendor_free(&v);
        printf("  %-18s %8.1f %8.1f %8.3f %8.4f  c%zu\n", size_text(s).c_str(), flop / best / 1e9,
               v_ms ? flop / v_ms / 1e9 : 0.0, v_ms ? v_ms / best : 0.0, best, best_i);
        problem_free(&p);
    }
    cublasDestroy(blas);
    for (auto &k : ks)
        if (k.lib)
            cudaLibraryUnload(k.lib);
    printf("%s\n", failures ? "FAILED" : "all checks passed");
    return failures ? 1 : 0;
}
