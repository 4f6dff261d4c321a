// bench_mma: a tensor-core matmul variant (tuning_spaces/matmul_mma.cu, matmul_wgmma.cu) on its
// own, outside cutune: compiled with NVRTC at run time for the device (as cutune compiles it),
// checked at ragged and large sizes against an FP64 reference, and timed against cuBLASLt's
// default heuristic with the same precision, layout and FP32 compute.
//
//   bench_mma [--dtype bf16|fp16] [--layout nt|nn] --config "NAME=V,..." [--config ...]
//             [--configs FILE] [--check-sizes LIST] [--time-sizes LIST] [--reps N] [--seed N]
//             [--kernel PATH] [--ini PATH] [--arch ARCH] [--device N]
//   bench_mma --compile-only [--arch 90a,90,80] [--no-spills] [--dtype bf16|fp16|tf32|fp32]
//             [--layout ...] [--ini PATH] --config ... | --configs FILE   (no GPU)
//
// The variant is the kernel's INI (--kernel's path with .ini for .cu, or --ini), read with
// cutune's own space reader: a config names every parameter of its space ("BM=128,BN=256,
// BK=32,WM=64,WN=64,STAGES=4,SPLITK=1,GROUP_M=8,VEC=8,MINB=1" for matmul_mma); the kernel's
// name, its [launch] grid, block and shared memory and its target architecture ("target =
// sm_90a") come from the INI. FILE holds one config a line (# comments). LIST is
// comma-separated MxNxK. Defaults: bf16, nt, check sizes 1x1x1,17x33x9,1000x1000x1000,
// 4096x4096x4096, time sizes 4096x4096x4096,8192x8192x8192, 20 timed launches a config; the
// architecture is the variant's target, else the device's (--arch overrides). A config that
// breaks a constraint of the space on the device (one that does not name M, N, K) is skipped.
// --compile-only compiles each config for each architecture (default: the target, else 90)
// and prints ptxas's registers, spills and shared memory; a config the space rejects for that
// CC, or an architecture other than the target, is "n/a". It exits 1 when a config does not
// compile, or with --no-spills when one spills or ptxas serialises its wgmma. tf32 and fp32
// (matmul_wgmma_tf32.ini, matmul_wgmma_3xtf32.ini) are for --compile-only; bench_tf32 runs
// and times them (float32 data, against cuBLASLt TF32 and cuBLAS SGEMM).
//
// Build: meson builds it into build/bench/ when nvcc is found (it links cutune's space reader).
//
// Exit: 0 every check passed, 1 a check failed (or CUDA failed), 2 bad usage, 3 no CUDA device.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
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

extern "C" {
#include "space.h"
}

#include "cuda_check.h"
#include "bench_tc_run.cuh"

// The variant beside the kernel (<kernel>.ini, or --ini): its parameters, constraints,
// kernel name, target architecture and [launch] expressions, read with cutune's own space
// reader, so that bench_mma takes any variant's configs and launches them as cutune does.
struct Variant {
    CutuneSpace *sp = nullptr;
    std::string kernel, target; // target: the [variant] key (e.g. "sm_90a"), or ""
    // [launch] grid (x, y, z), block (x, y, z), shared; NULL: 1 (shared: 0)
    CutuneExpr *launch[3][3] = {};
    Variant() = default;
    Variant(const Variant &) = delete;
    Variant &operator=(const Variant &) = delete;
    ~Variant()
    {
        for (auto &row : launch)
            for (CutuneExpr *e : row)
                cutune_expr_free(e);
        cutune_space_free(sp);
    }
};

struct Config {
    std::string text;
    std::vector<int64_t> v; // in the space's parameter order
};

static int usage(const char *msg)
{
    fprintf(
        stderr,
        "bench_mma: %s\nusage: bench_mma [--dtype bf16|fp16] [--layout nt|nn] --config \"NAME=V,...\" "
        "[--configs FILE]\n       [--check-sizes MxNxK,...] [--time-sizes MxNxK,...] [--reps N] [--seed N] "
        "[--kernel PATH] [--ini PATH]\n       [--arch ARCH] [--device N]\n"
        "       bench_mma --compile-only [--arch 90a,90,80] [--no-spills] [--dtype bf16|fp16|tf32|fp32] "
        "--config ... | --configs FILE\n",
        msg);
    return 2;
}

// Split a [launch] value at the commas outside parentheses: "ceil_div(N, T), M" is two.
static std::vector<std::string> split_top(const std::string &text)
{
    std::vector<std::string> parts(1);
    int depth = 0;
    for (char ch : text) {
        depth += ch == '(' ? 1 : ch == ')' ? -1 : 0;
        if (ch == ',' && depth == 0)
            parts.emplace_back();
        else
            parts.back() += ch;
    }
    return parts;
}

static bool variant_load(Variant *v, const std::string &ini)
{
    CutuneError err = {};
    if (cutune_space_load(ini.c_str(), "M,N,K", &v->sp, &err) != 0) {
        fprintf(stderr, "bench_mma: %s\n", err.msg);
        return false;
    }
    const char *kernel = cutune_space_key(v->sp, "variant", "kernel", nullptr);
    v->kernel = kernel ? kernel : v->sp->variant;
    const char *target = cutune_space_key(v->sp, "variant", "target", nullptr);
    v->target = target ? target : "";
    const char *keys[3] = {"grid", "block", "shared"};
    for (int k = 0; k < 3; k++) {
        int line = 0;
        const char *text = cutune_space_key(v->sp, "launch", keys[k], &line);
        if (!text)
            continue;
        std::vector<std::string> parts = split_top(text);
        if (parts.size() > (k == 2 ? 1u : 3u)) {
            fprintf(stderr, "bench_mma: %s:%d: [launch] %s has %zu values\n", ini.c_str(), line,
                    keys[k], parts.size());
            return false;
        }
        for (size_t a = 0; a < parts.size(); a++)
            if (cutune_space_compile(v->sp, keys[k], parts[a].c_str(), line, &v->launch[k][a],
                                     &err) != 0) {
                fprintf(stderr, "bench_mma: %s\n", err.msg);
                return false;
            }
    }
    return true;
}

static bool parse_config(const Variant &var, const std::string &text, Config *c)
{
    c->text = text;
    c->v.assign(var.sp->nparams, 0);
    CutuneError err = {};
    if (cutune_config_parse(var.sp, text.c_str(), c->v.data(), &err) != 0) {
        fprintf(stderr, "bench_mma: %s\n", err.msg);
        return false;
    }
    return true;
}

// The value of expression e for config c at size s under limits lim (fallback when e is NULL).
static int64_t eval(const Variant &var, const CutuneExpr *e, const Config &c, const Size &s,
                    const CutuneLimits &lim, int64_t fallback)
{
    if (!e)
        return fallback;
    std::vector<int64_t> sym(cutune_space_nsymbols(var.sp));
    const int64_t dims[3] = {s.M, s.N, s.K};
    cutune_space_symbol_values(var.sp, c.v.data(), dims, &lim, sym.data());
    int64_t r = 0;
    CutuneExprError ee = {};
    if (cutune_expr_eval(e, sym.data(), &r, &ee) != 0) {
        fprintf(stderr, "bench_mma: %s at %dx%dx%d: [launch]: %s\n", c.text.c_str(), s.M, s.N, s.K,
                ee.message);
        exit(1);
    }
    return r;
}

// The constraints of the space that do not name the problem, under lim: "" when c keeps them
// all, else the first it breaks (what cutune's enumeration would reject it for).
static std::string breaks(const Variant &var, const Config &c, const CutuneLimits &lim)
{
    const Size none = {1, 1, 1};
    for (size_t i = 0; i < var.sp->nconstraints; i++) {
        const CutuneConstraint &con = var.sp->constraints[i];
        if (!con.uses_problem && eval(var, con.expr, c, none, lim, 1) == 0)
            return std::string("constraint '") + con.name + "' (line " + std::to_string(con.line) +
                   ")";
    }
    return "";
}

// The launch, from the variant's [launch] expressions.
static void geometry(const Variant &var, const Config &c, const Size &s, const CutuneLimits &lim,
                     dim3 *grid, dim3 *block, size_t *shared)
{
    unsigned g[3], b[3];
    for (int a = 0; a < 3; a++) {
        g[a] = (unsigned)eval(var, var.launch[0][a], c, s, lim, 1);
        b[a] = (unsigned)eval(var, var.launch[1][a], c, s, lim, 1);
    }
    *grid = dim3(g[0], g[1], g[2]);
    *block = dim3(b[0], b[1], b[2]);
    *shared = (size_t)eval(var, var.launch[2][0], c, s, lim, 0);
}

// NVRTC, with the options cutune's worker gives (core/src/worker/compile.c): the parameters
// as -D, the dtype and layout macros, -std=c++17 -default-device. Returns the cubin, or an
// empty vector with the log on stderr; `info` gets ptxas's report when asked for.
static std::vector<char> compile(const std::string &source, const Variant &var, const Config &c,
                                 const std::string &dtype, bool nt, const std::string &arch,
                                 std::string *info)
{
    std::vector<std::string> opts;
    for (size_t i = 0; i < var.sp->nparams; i++)
        opts.push_back(std::string("-D") + var.sp->params[i].name + "=" + std::to_string(c.v[i]));
    tc_nvrtc_options(&opts, dtype, nt, arch, info != nullptr);
    std::string log;
    std::vector<char> cubin = nvrtc_cubin(source, var.kernel + ".cu", opts, &log);
    if (info)
        *info = log;
    else if (cubin.empty())
        fprintf(stderr, "bench_mma: %s does not compile for sm_%s:\n%s\n", c.text.c_str(),
                arch.c_str(), log.c_str());
    return cubin;
}

// ---- inputs, the FP64 reference and the check --------------------------------------------

template <bool BF16> struct Half;
template <> struct Half<true> {
    static __device__ unsigned short from(float x)
    {
        return __bfloat16_as_ushort(__float2bfloat16_rn(x));
    }
    static __device__ double to(unsigned short h)
    {
        return (double)__bfloat162float(__ushort_as_bfloat16(h));
    }
};
template <> struct Half<false> {
    static __device__ unsigned short from(float x)
    {
        return __half_as_ushort(__float2half_rn(x));
    }
    static __device__ double to(unsigned short h)
    {
        return (double)__half2float(__ushort_as_half(h));
    }
};

// x[i] = a uniform value in [-1, 1) rounded to the 16-bit type; xd, xa = it and |it| in FP64
template <bool BF16>
__global__ void fill(unsigned short *x, double *xd, double *xa, size_t n, uint64_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const float u = (float)(mix(seed ^ (i * 0x2545f4914f6cdd1dull)) >> 40) * 0x1p-23f - 1.0f;
        x[i] = Half<BF16>::from(u);
        xd[i] = Half<BF16>::to(x[i]);
        xa[i] = fabs(xd[i]);
    }
}

struct CheckResult {
    unsigned long long bad, guard_bad;
    double worst;    // max |err| / bound
    long long first; // first bad element, -1 if none
    double got, ref;
};

// The bound of an element, derived. The inputs a, b are 16-bit values (8 or 11 significant
// bits), so each product a * b is exact in FP32 (at most 22 bits) and the reference
// ref = sum_k a_k b_k is exact to FP64's rounding (K * 2^-53 relative: negligible). The
// kernel sums the K exact products in FP32: whatever the order (mma's internal order, the
// K steps, the split-K tree), a sum of K terms has |acc - ref| <= gamma_K * sum_k |a_k b_k|,
// gamma_K = K u / (1 - K u), u the unit roundoff of one addition. Tensor cores do not round
// their additions to nearest: they align the addends to the largest exponent and truncate
// (Fasi, Higham, Mikaitis, Pranesh, "Numerical behavior of NVIDIA tensor cores", PeerJ CS
// 2021), so we take u = 2^-23 (truncation) rather than 2^-24. The output is then rounded
// once to the 16-bit type: |c - acc| <= u_T |acc| + eta, u_T = 2^-8 (bf16) or 2^-11
// (fp16), eta the absolute error of a result in the subnormal range (half the smallest
// subnormal: 2^-25 for fp16, 2^-134 for bf16). With |acc| <= |ref| + gamma_K S
// (S = sum_k |a_k b_k|):
//   |c - ref| <= (1 + u_T) gamma_K S + u_T |ref| + eta.
// A wrong fragment, a lost K step or an element off by 2 ulps of T breaks it by far at every
// size (one ulp of T is 2 u_T |c|; gamma_K S / |c| is about K u / sqrt(K) for random signs).
template <bool BF16>
__global__ void check(const unsigned short *C, const double *ref, const double *mag, size_t n,
                      double gamma, const unsigned short *guard, int nguard, CheckResult *res)
{
    const double uT = BF16 ? 0x1p-8 : 0x1p-11, eta = BF16 ? 0x1p-134 : 0x1p-25;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const double c = Half<BF16>::to(C[i]), r = ref[i];
        const double bound = (1 + uT) * gamma * mag[i] + uT * fabs(r) + eta;
        const double err = fabs(c - r);
        if (!(err <= bound)) { // NaN (the poison) fails too
            if (atomicAdd(&res->bad, 1ull) == 0) {
                res->first = (long long)i;
                res->got = c;
                res->ref = r;
            }
        } else if (bound > 0) {
            // max of a non-negative double through its bits (monotonic as an integer)
            atomicMax((unsigned long long *)&res->worst,
                      (unsigned long long)__double_as_longlong(err / bound));
        }
    }
    tc_check_guards<unsigned short>(guard, nguard, n, 0xdead, &res->guard_bad);
}

// ---- the problem: inputs, reference and buffers of one size -------------------------------

struct Problem : TcBuffers<unsigned short> {
    bool bf16;
    double *Ad = nullptr, *Bd = nullptr, *Aa = nullptr, *Ba = nullptr; // A, B, |A|, |B|
};

// A, B fresh from `seed`; ref = A * B and mag = |A| * |B| in FP64 (cuBLAS DGEMM, exact
// products of the rounded inputs).
static void problem_make(Problem *p, cublasHandle_t h, uint64_t seed)
{
    const size_t mk = (size_t)p->s.M * p->s.K, kn = (size_t)p->s.K * p->s.N;
    tc_buffers_make(p);
    CK(cudaMalloc(&p->Ad, mk * 8));
    CK(cudaMalloc(&p->Aa, mk * 8));
    CK(cudaMalloc(&p->Bd, kn * 8));
    CK(cudaMalloc(&p->Ba, kn * 8));
    if (p->bf16) {
        fill<true><<<grid_for(mk), 256>>>(p->A, p->Ad, p->Aa, mk, seed * 2 + 0);
        fill<true><<<grid_for(kn), 256>>>(p->B, p->Bd, p->Ba, kn, seed * 2 + 1);
    } else {
        fill<false><<<grid_for(mk), 256>>>(p->A, p->Ad, p->Aa, mk, seed * 2 + 0);
        fill<false><<<grid_for(kn), 256>>>(p->B, p->Bd, p->Ba, kn, seed * 2 + 1);
    }
    CK(cudaGetLastError());
    tc_reference(h, p->s, p->nt, p->Ad, p->Bd, p->ref);
    tc_reference(h, p->s, p->nt, p->Aa, p->Ba, p->mag);
    CK(cudaDeviceSynchronize());
}

static void problem_free(Problem *p)
{
    tc_buffers_free(p);
    for (void *q : {(void *)p->Ad, (void *)p->Aa, (void *)p->Bd, (void *)p->Ba})
        cudaFree(q);
    *p = Problem();
}

static void poison(const Problem &p, unsigned short *C)
{
    tc_poison<unsigned short>(C, (size_t)p.s.M * p.s.N, Problem::GUARD, 0xdead,
                              0xffff); // NaN in fp16 and bf16
}

static CheckResult verify(const Problem &p, const unsigned short *C)
{
    const double u = 0x1p-23, gamma = p.s.K * u / (1 - p.s.K * u);
    const size_t mn = (size_t)p.s.M * p.s.N;
    return tc_check_result<CheckResult>([&](CheckResult *d) {
        if (p.bf16)
            check<true><<<grid_for(mn), 256>>>(C, p.ref, p.mag, mn, gamma, C - Problem::GUARD,
                                               Problem::GUARD, d);
        else
            check<false><<<grid_for(mn), 256>>>(C, p.ref, p.mag, mn, gamma, C - Problem::GUARD,
                                                Problem::GUARD, d);
    });
}

// ---- our kernel and cuBLASLt ---------------------------------------------------------------

struct Kernel {
    const Variant *var = nullptr;
    Config cfg;
    CutuneLimits lim; // the device's, for the [launch] expressions
    cudaLibrary_t lib = nullptr;
    cudaKernel_t fn = nullptr;
    bool ok = false;
};

static bool kernel_load(Kernel *k, const std::string &source, bool bf16, bool nt,
                        const std::string &arch, size_t max_shared)
{
    std::vector<char> cubin = compile(source, *k->var, k->cfg, bf16 ? "bf16" : "fp16", nt, arch,
                                      nullptr);
    if (cubin.empty())
        return false;
    tc_load(cubin, k->var->kernel.c_str(), max_shared, &k->lib, &k->fn);
    return k->ok = true;
}

static cudaError_t kernel_run(const Kernel &k, const Size &s, const unsigned short *A,
                              const unsigned short *B, unsigned short *C)
{
    dim3 grid, block;
    size_t shared;
    geometry(*k.var, k.cfg, s, k.lim, &grid, &block, &shared);
    return tc_launch(k.fn, s, grid, block, shared, A, B, C);
}

// cuBLASLt's default heuristic for the same problem, with the same precision and FP32 compute
static void lt_make(LtMatmul *lt, const Problem &p)
{
    lt_matmul_make(lt, p.s, p.nt, p.bf16 ? CUDA_R_16BF : CUDA_R_16F, CUBLAS_COMPUTE_32F);
}

static void print_check(const char *what, const Size &s, const char *view, const CheckResult &r,
                        int *failures)
{
    const bool ok = r.bad == 0 && r.guard_bad == 0;
    printf("  %-18s %-6s %-10s %-4s", size_text(s).c_str(), what, view, ok ? "ok" : "FAIL");
    printf("  max err/bound %.3g", r.worst);
    tc_print_wrong(r, s);
    *failures += !ok;
}

// ---- main ----------------------------------------------------------------------------------

// Each config for each architecture ("90a", "90", "80"): ptxas's registers, spills and the
// launch at 4096^3. A config the space rejects on that architecture (a constraint on CC), or
// an architecture other than the variant's target, is not compiled ("n/a").
static int compile_only(const std::string &source, const Variant &var,
                        const std::vector<Config> &cfgs, const std::string &dtype, bool nt,
                        const char *archs, bool no_spills)
{
    int failures = 0;
    for (const std::string &arch : tc_split(archs)) {
        CutuneLimits lim;
        cutune_limits_sm90(&lim);
        lim.cc = atoi(arch.c_str());
        for (const Config &c : cfgs) {
            std::string why = breaks(var, c, lim);
            if (why.empty() && !var.target.empty() && var.target != "sm_" + arch)
                why = "the variant's target is " + var.target;
            if (!why.empty()) {
                printf("sm_%s n/a   %s: %s\n", arch.c_str(), c.text.c_str(), why.c_str());
                continue;
            }
            std::string info;
            const bool ok = !compile(source, var, c, dtype, nt, arch, &info).empty();
            const PtxasReport rep = ptxas_report(info);
            const long regs = rep.regs, st = rep.spill_stores, ld = rep.spill_loads;
            dim3 grid, block;
            size_t shared;
            geometry(var, c, Size{4096, 4096, 4096}, lim, &grid, &block, &shared);
            const bool spills = ok && no_spills && (st || ld); // -1: no report, a failure too
            // ptxas's "Potential Performance Loss: wgmma.mma_async instructions are serialized
            // due to ...": each wgmma then waits for the one before, a kernel several times slower
            const bool serial = ok && no_spills && info.find("are serialized") != std::string::npos;
            if (ok)
                printf("sm_%s %s %3ld registers, spills %ld/%ld bytes, %3u threads, %6zu B shared: "
                       "%s\n",
                       arch.c_str(),
                       spills   ? "SPILL"
                       : serial ? "SERIAL"
                                : "ok   ",
                       regs, st, ld, block.x, shared, c.text.c_str());
            else
                printf("sm_%s FAIL  %s\n", arch.c_str(), c.text.c_str());
            if (serial)
                fprintf(stderr, "%s\n", info.c_str());
            failures += spills + serial;
            if (!ok) {
                fprintf(stderr, "%s\n", info.c_str());
                failures++;
            }
        }
    }
    return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
    bool bf16 = true;
    std::string dtype = "bf16";
    const char *ini_path = nullptr;
    TcOptions o;
    o.kernel_path = "tuning_spaces/matmul_mma.cu";
    o.check_list = "1x1x1,17x33x9,1000x1000x1000,4096x4096x4096";
    std::vector<std::string> texts; // the configs, parsed once the variant is read
    tc_parse(argc, argv, usage, "the tensor-core matmul kernel against cuBLASLt", &o,
             [&](const char *a, auto need) {
                 if (!strcmp(a, "--dtype")) {
                     const char *d = need();
                     if (strcmp(d, "bf16") && strcmp(d, "fp16") && strcmp(d, "tf32") &&
                         strcmp(d, "fp32"))
                         exit(usage("--dtype is bf16 or fp16 (tf32, fp32: with --compile-only)"));
                     bf16 = !strcmp(d, "bf16");
                     dtype = d;
                 } else if (!strcmp(a, "--config")) {
                     texts.push_back(need());
                 } else if (!strcmp(a, "--configs")) {
                     if (!read_config_lines(need(), &texts))
                         exit(usage("cannot read the --configs file"));
                 } else if (!strcmp(a, "--ini")) {
                     ini_path = need();
                 } else {
                     return false;
                 }
                 return true;
             });
    const bool nt = o.nt;
    const char *kernel_path = o.kernel_path, *archs = o.archs;
    if (texts.empty())
        return usage("give at least one --config (or --configs FILE)");
    std::string source;
    if (!read_file(kernel_path, &source)) {
        fprintf(
            stderr,
            "bench_mma: cannot read the kernel %s (run from the repository root, or give --kernel)\n",
            kernel_path);
        return 2;
    }
    std::string ini = ini_path ? ini_path : kernel_path;
    if (!ini_path && ini.size() > 3 && ini.compare(ini.size() - 3, 3, ".cu") == 0)
        ini.replace(ini.size() - 3, 3, ".ini");
    Variant var;
    if (!variant_load(&var, ini))
        return 2;
    std::vector<Config> cfgs;
    for (const std::string &t : texts) {
        Config c;
        if (!parse_config(var, t, &c))
            return usage("a bad config (above)");
        // TMA = 1 reads the tensor maps that cutune encodes on the host; tc_launch gives the
        // kernel zeros (TMA = 0's), so such a config is compiled here, and measured by cutune
        for (size_t i = 0; i < var.sp->nparams; i++)
            if (!o.compile_mode && !strcmp(var.sp->params[i].name, "TMA") && c.v[i] != 0) {
                fprintf(stderr,
                        "bench_mma: config '%s': TMA=1 needs the tensor maps cutune makes; "
                        "measure it with `cutune run matmul --variant %s --where '%s'`\n",
                        t.c_str(), var.sp->variant, t.c_str());
                return usage("a config bench_mma cannot launch (above)");
            }
        cfgs.push_back(c);
    }
    // the variant's target (sm_90a) or sm_90 for --compile-only; the device's when running
    std::string target_arch = var.target.size() > 3 ? var.target.substr(3) : "";
    if (!o.compile_mode && dtype != "bf16" && dtype != "fp16")
        return usage("--dtype tf32 and fp32 compile only here: bench_tf32 runs and times them");
    if (o.compile_mode)
        return compile_only(source, var, cfgs, dtype, nt,
                            archs                 ? archs
                            : target_arch.empty() ? "90"
                                                  : target_arch.c_str(),
                            o.no_spills);

    std::vector<Size> checks, times;
    cudaDeviceProp prop;
    if (const int rc = tc_start("bench_mma", o, usage, &checks, &times, &prop))
        return rc;
    std::string arch = archs ? archs : std::to_string(prop.major * 10 + prop.minor);
    if (!archs && !target_arch.empty()) {
        if (atoi(target_arch.c_str()) != prop.major * 10 + prop.minor) {
            fprintf(stderr, "bench_mma: %s runs only on %s; device %d is sm_%d%d\n",
                    var.kernel.c_str(), var.target.c_str(), o.device, prop.major, prop.minor);
            return 3;
        }
        arch = target_arch;
    }
    CutuneLimits lim;
    cutune_limits_sm90(&lim);
    lim.max_threads_per_block = prop.maxThreadsPerBlock;
    lim.max_shared_per_block = (int64_t)prop.sharedMemPerBlockOptin;
    lim.max_shared_per_sm = (int64_t)prop.sharedMemPerMultiprocessor;
    lim.max_regs_per_block = prop.regsPerBlock;
    lim.sm_count = prop.multiProcessorCount;
    lim.cc = prop.major * 10 + prop.minor;
    const uint64_t seed = o.seed;
    printf("bench_mma: %s %s on %s (sm_%s, %d SMs), kernel %s, seed %llu\n", bf16 ? "bf16" : "fp16",
           nt ? "nt" : "nn", prop.name, arch.c_str(), prop.multiProcessorCount, kernel_path,
           (unsigned long long)seed);

    std::vector<Kernel> ks(cfgs.size());
    int failures = 0;
    for (size_t i = 0; i < cfgs.size(); i++) {
        ks[i].var = &var, ks[i].cfg = cfgs[i], ks[i].lim = lim;
        printf("  c%zu = %s\n", i, cfgs[i].text.c_str());
        // what cutune's enumeration would reject on this device (shared memory, threads,
        // registers, CC), whatever the size
        const std::string why = breaks(var, cfgs[i], lim);
        if (!why.empty()) {
            printf("    skipped: it breaks the space's %s on this device\n", why.c_str());
            continue;
        }
        if (!kernel_load(&ks[i], source, bf16, nt, arch, prop.sharedMemPerBlockOptin))
            failures++;
    }
    cublasHandle_t blas;
    CKB(cublasCreate(&blas));
    // the problem of size s, its inputs from seed + index (its index among the sizes)
    auto make = [&](Problem *p, const Size &s, size_t index) {
        p->s = s, p->bf16 = bf16, p->nt = nt;
        problem_make(p, blas, seed + index);
    };

    // Correctness: every element of C of every size, every config, poisoned before each run;
    // sizes up to 2^30 multiply-adds also with A, B and C one element off 16-byte alignment.
    printf("check (every element against FP64; bound (1+u_T) gamma_K sum|a||b| + u_T |ref|):\n");
    for (const auto &sized : tc_check_sizes(checks, times)) {
        const Size s = sized.second;
        Problem p;
        make(&p, s, sized.first);
        tc_views(p, [&](int view, unsigned short *A, unsigned short *B, unsigned short *C) {
            tc_check_kernels(
                ks.size(), [&](size_t i) { return ks[i].ok; }, [&] { poison(p, C); },
                [&](size_t i) { return kernel_run(ks[i], s, A, B, C); },
                [&](size_t, const char *name) {
                    print_check(name, s, view ? "misaligned" : "", verify(p, C), &failures);
                });
            if (!view) {
                LtMatmul lt;
                lt_make(&lt, p);
                if (lt.ok) {
                    poison(p, C);
                    CK(lt_matmul_run(lt, A, B, C));
                    CK(cudaDeviceSynchronize());
                    int dummy = 0; // cuBLASLt's own error: a check of the bound, not of cuBLASLt
                    print_check("cuBLASLt", s, "", verify(p, C), &dummy);
                }
                lt_matmul_free(&lt);
            }
        });
        problem_free(&p);
    }

    // Timing: each config, then cuBLASLt, at each time size (inputs of the check's seed).
    tc_time<Problem>(
        times, checks.size(), o.reps, "cuBLASLt", ks.size(), [&](size_t i) { return ks[i].ok; },
        make, problem_free,
        [&](const Problem &p, size_t i) { return kernel_run(ks[i], p.s, p.A, p.B, p.C()); },
        [&](const Problem &p) {
            LtMatmul lt;
            lt_make(&lt, p);
            const double ms = lt.ok ? time_ms([&] { return lt_matmul_run(lt, p.A, p.B, p.C()); },
                                              o.reps)
                                    : 0;
            lt_matmul_free(&lt);
            return ms;
        });
    return tc_finish(blas, ks, failures);
}
