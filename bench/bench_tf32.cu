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
//              matmul_wgmma_3xtf32, nn or nt; with SWAP=1 in the config, nn only, the
//              variants matmul_wgmma_tf32_nn and matmul_wgmma_3xtf32_nn), its launch as
//              their INIs give it (TMA = 0 configs: it passes the kernel tensor maps of zeros)
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
#include "bench_tc_run.cuh"

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
// them the same; and their _nn twins', SWAP = 1): a block a tile, or (SCHEDULE > 0)
// persistent, as many whole clusters as the SMs hold; the stages (3xTF32: twice the data, the
// lo parts; with SWAP A's lo parts alone) and the staged output tile.
static void geometry_wgmma(const Config &c, const Size &s, bool split3, int sm_count, dim3 *grid,
                           dim3 *block, size_t *shared)
{
    const long BM = c.get("BM"), BN = c.get("BN"), BK = c.get("BK"), CONS = c.get("CONSUMERS"),
               SCHED = c.get("SCHEDULE"), ST = c.get("STAGES"), CM = c.get("CLUSTER_M"),
               CN = c.get("CLUSTER_N"), VEC = c.get("VEC");
    const long sup = ((s.M + BM - 1) / BM + CM - 1) / CM * (((s.N + BN - 1) / BN + CN - 1) / CN);
    *grid = dim3((unsigned)((SCHED == 0 ? sup : std::min(sup, sm_count / (CM * CN))) * CM * CN));
    *block = dim3((unsigned)((CONS + 1) * 128));
    const long swap = c.get("SWAP") > 0;
    const long pipe = ST * (BM + BN + (split3 ? (swap ? BM : BM + BN) : 0)) * BK * 4,
               out = (VEC > 2) * BM * BN * 4;
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
    // wgmma is an sm_90a instruction: the architecture-specific target of sm_90
    tc_nvrtc_options(&opts, b.tf32 ? "tf32" : "fp32", b.nt,
                     std::to_string(arch) + (b.wgmma ? "a" : ""), verbose);
    return nvrtc_cubin(b.source, b.name + ".cu", opts, log);
}

static int compile_only(const Build &b, const std::vector<Config> &cfgs, const char *archs,
                        bool no_spills)
{
    int failures = 0;
    for (const std::string &a : tc_split(archs)) {
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
    tc_check_guards<unsigned>(guard, nguard, n, 0xdeadbeefu, &res->guard_bad);
}

// ---- the problem: inputs, reference and buffers of one size -------------------------------

struct Problem : TcBuffers<float> {
    bool tf32;
    double *sq = nullptr; // A^2 B^2
};

// A, B fresh from `seed`; ref = A B, mag = |A| |B| and sq = A^2 B^2 (elementwise squares) in
// FP64 (cuBLAS DGEMM: the products of floats are exact in FP64, the sums err by K 2^-53).
static void problem_make(Problem *p, cublasHandle_t h, uint64_t seed)
{
    const size_t mk = (size_t)p->s.M * p->s.K, kn = (size_t)p->s.K * p->s.N,
                 mn = (size_t)p->s.M * p->s.N;
    tc_buffers_make(p);
    CK(cudaMalloc(&p->sq, mn * 8));
    double *ad[3], *bd[3]; // x, |x|, x^2
    for (int i = 0; i < 3; i++) {
        CK(cudaMalloc(&ad[i], mk * 8));
        CK(cudaMalloc(&bd[i], kn * 8));
    }
    fill<<<grid_for(mk), 256>>>(p->A, ad[0], ad[1], ad[2], mk, seed * 2 + 0);
    fill<<<grid_for(kn), 256>>>(p->B, bd[0], bd[1], bd[2], kn, seed * 2 + 1);
    CK(cudaGetLastError());
    double *out[3] = {p->ref, p->mag, p->sq};
    for (int i = 0; i < 3; i++)
        tc_reference(h, p->s, p->nt, ad[i], bd[i], out[i]);
    CK(cudaDeviceSynchronize());
    for (int i = 0; i < 3; i++)
        cudaFree(ad[i]), cudaFree(bd[i]);
}

static void problem_free(Problem *p)
{
    tc_buffers_free(p);
    cudaFree(p->sq);
    *p = Problem();
}

static void poison(const Problem &p, float *C)
{
    tc_poison<unsigned>((unsigned *)C, (size_t)p.s.M * p.s.N, Problem::GUARD, 0xdeadbeefu,
                        0xffffffffu); // NaN
}

static CheckResult verify(const Problem &p, const float *C, bool judge)
{
    const size_t mn = (size_t)p.s.M * p.s.N;
    return tc_check_result<CheckResult>([&](CheckResult *d) {
        check<<<grid_for(mn), 256>>>(C, p.ref, p.mag, p.sq, mn, p.s.K, p.tf32 ? 1 : 0,
                                     (const unsigned *)(C - Problem::GUARD), Problem::GUARD,
                                     judge ? 1 : 0, d);
    });
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
    tc_load(cubin, b.name.c_str(), max_shared, &k->lib, &k->fn);
    return k->ok = true;
}

static cudaError_t kernel_run(const Build &b, const Kernel &k, const Size &s, const float *A,
                              const float *B, float *C)
{
    dim3 grid, block;
    size_t shared;
    geometry(b, k.cfg, s, &grid, &block, &shared);
    return tc_launch(k.fn, s, grid, block, shared, A, B, C);
}

// The vendor: fp32 cublasSgemm (default math: no TF32), tf32 cuBLASLt's first heuristic
// answer with CUBLAS_COMPUTE_32F_FAST_TF32 (LtMatmul).
struct Vendor {
    const Problem *p = nullptr;
    cublasHandle_t blas = nullptr;
    LtMatmul lt; // tf32
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
    lt_matmul_make(&v->lt, p.s, p.nt, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32);
    v->ok = v->lt.ok;
}

static void vendor_free(Vendor *v)
{
    lt_matmul_free(&v->lt);
    *v = Vendor();
}

static cudaError_t vendor_run(const Vendor &v, const float *A, const float *B, float *C)
{
    const Problem &p = *v.p;
    if (p.tf32)
        return lt_matmul_run(v.lt, A, B, C);
    const float one = 1.0f, zero = 0.0f;
    const int M = p.s.M, N = p.s.N, K = p.s.K;
    const cublasStatus_t st = cublasSgemm(v.blas, p.nt ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, N,
                                          M, K, &one, B, p.nt ? K : N, A, K, &zero, C, N);
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
    tc_print_wrong(r, s);
    *failures += !ok || (worse && strict);
}

// ---- main ----------------------------------------------------------------------------------

int main(int argc, char **argv)
{
    bool tf32 = false, wgmma = false;
    const char *headers = "tuning_spaces/mma_ptx.cuh", *kernel_name = "matmul_tf32";
    TcOptions o;
    o.kernel_path = "tuning_spaces/matmul_tf32.cu";
    o.archs = "90";
    o.nt = false;
    // o.check_list: below, as 3xTF32 on wgmma is in its space from K = 64 on
    std::vector<Config> cfgs;
    tc_parse(argc, argv, usage,
             "the float32 tensor-core matmul kernel (3xTF32 or TF32) against cuBLAS", &o,
             [&](const char *a, auto need) {
                 if (!strcmp(a, "--dtype")) {
                     const char *d = need();
                     if (strcmp(d, "fp32") && strcmp(d, "tf32"))
                         exit(usage("--dtype is fp32 or tf32"));
                     tf32 = !strcmp(d, "tf32");
                 } else if (!strcmp(a, "--config")) {
                     Config c;
                     if (!parse_config(need(), &c))
                         exit(usage("a bad --config"));
                     cfgs.push_back(c);
                 } else if (!strcmp(a, "--configs")) {
                     std::vector<std::string> lines;
                     if (!read_config_lines(need(), &lines))
                         exit(usage("cannot read the --configs file"));
                     for (const std::string &line : lines) {
                         Config c;
                         if (!parse_config(line, &c))
                             exit(usage("a bad line in the --configs file"));
                         cfgs.push_back(c);
                     }
                 } else if (!strcmp(a, "--headers")) {
                     headers = need();
                 } else if (!strcmp(a, "--kernel-name")) {
                     kernel_name = need();
                 } else if (!strcmp(a, "--wgmma")) {
                     wgmma = true;
                 } else {
                     return false;
                 }
                 return true;
             });
    const bool nt = o.nt;
    const char *kernel_path = o.kernel_path;
    if (cfgs.empty())
        return usage("give at least one --config (or --configs FILE)");
    Build b;
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
    if (o.compile_mode)
        return compile_only(b, cfgs, o.archs, o.no_spills);

    if (!o.check_list)
        o.check_list = wgmma && !tf32 ? "64x64x64,45x37x75,1000x1000x1000"
                                      : "1x1x1,17x33x9,1000x1000x1000";
    std::vector<Size> checks, times;
    cudaDeviceProp prop;
    if (const int rc = tc_start("bench_tf32", o, usage, &checks, &times, &prop))
        return rc;
    const int arch = prop.major * 10 + prop.minor;
    b.sm_count = prop.multiProcessorCount;
    if (wgmma && arch != 90) {
        fprintf(stderr,
                "bench_tf32: --wgmma needs an sm_90 device (wgmma is sm_90a's), not sm_%d\n", arch);
        return 3;
    }
    const uint64_t seed = o.seed;
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
    // the problem of size s, its inputs from seed + index (its index among the sizes)
    auto make = [&](Problem *p, const Size &s, size_t index) {
        p->s = s, p->tf32 = tf32, p->nt = nt;
        problem_make(p, blas, seed + index);
    };

    // Correctness: every element of C of every size, every config, poisoned before each run;
    // sizes up to 2^30 multiply-adds also with A, B and C one float off 16-byte alignment.
    printf("check (every element against FP64; bounds of matmul.h for %s; max and rms |err|):\n",
           tf32 ? "tf32" : "fp32");
    for (const auto &sized : tc_check_sizes(checks, times)) {
        const Size s = sized.second;
        Problem p;
        make(&p, s, sized.first);
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
        tc_views(p, [&](int view, float *A, float *B, float *C) {
            tc_check_kernels(
                ks.size(), [&](size_t i) { return ks[i].ok; }, [&] { poison(p, C); },
                [&](size_t i) { return kernel_run(b, ks[i], s, A, B, C); },
                [&](size_t, const char *name) {
                    print_check(name, s, tf32, view ? "misaligned" : "", verify(p, C, true),
                                v.ok && !view ? &vr : nullptr, true, strict, &failures);
                });
        });
        vendor_free(&v);
        problem_free(&p);
    }

    // Timing: each config, then the vendor, at each time size (inputs of the check's seed).
    tc_time<Problem>(
        times, checks.size(), o.reps, tf32 ? "cuBLASLt" : "SGEMM", ks.size(),
        [&](size_t i) { return ks[i].ok; }, make, problem_free,
        [&](const Problem &p, size_t i) { return kernel_run(b, ks[i], p.s, p.A, p.B, p.C()); },
        [&](const Problem &p) {
            Vendor v;
            vendor_make(&v, p, blas);
            const double ms = v.ok ? time_ms([&] { return vendor_run(v, p.A, p.B, p.C()); }, o.reps)
                                   : 0;
            vendor_free(&v);
            return ms;
        });
    return tc_finish(blas, ks, failures);
}
