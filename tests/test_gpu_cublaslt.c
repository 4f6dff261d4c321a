/* The cuBLASLt variant on a GPU (exit 77 without one, or without cuBLASLt): matmul_cublaslt
 * tuned exhaustively over part of its space (the heuristic's 32 entries, and the first
 * choice with each of 9 tile heights, cluster 1 x 1 and option 3 set) at bf16, fp16 and tf32
 * sizes, in one run with the op's yardstick, cuBLASLt's default heuristic. Every trial is
 * either correct (the op's check passed: only a correct config is timed) or skipped as an
 * index past the heuristic's list or a configuration cuBLASLt refuses, never wrong or
 * failed, and at least one set configuration runs; the best is no slower than 1.05x the
 * yardstick measured in the same run (its ALGO=0 at 32 MiB is the yardstick's algorithm, so
 * about equal at worst);
 * then cutune_gemm launches the stored algorithm for each size, and a CUDA graph captured on
 * a new stream launches it again (where one is, a config whose algorithm has a workspace,
 * allocated on that first use, inside the capture), and the graph's result is right at
 * sampled elements against a double-precision sum of the same inputs. A best whose variant
 * version names another cuBLASLt is refused by cutune_gemm with a message, never run. */
#include "check.h"
#include "cutune/lookup.h"
#include "gpu_test.h"
#include "raw_sqlite.h"
#include "tune.h"
#include "util.h"

#include <cuda_runtime.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const sizes[] = {"4096x4096x4096-bf16-nt", "16x4096x4096-bf16-nt",
                                    "4096x4096x4096-fp16", "2048x2048x2048-tf32-nt"};
enum { NSIZES = sizeof sizes / sizeof sizes[0], SAMPLES = 256 };
/* the heuristic's entries as given (16 x 2), and the first choice set (9) */
static const char *const where[] =
    {"TILE_M=0,TILE_N=0,CLUSTER_M=0,CLUSTER_N=0,OPTION=-1",
     "ALGO=0,WORKSPACE_MIB=32,TILE_N=128,CLUSTER_M=1,CLUSTER_N=1,OPTION=3"};
enum { NCONFIGS = 16 * 2 + 9 };

/* Inputs k/256 for k in -256..255: exact in bf16, fp16, tf32 and fp32, so the host's sum in
 * double is the reference of the very values the GPU reads. */
static float input(uint64_t *x)
{
    *x = *x * 6364136223846793005ull + 1442695040888963407ull;
    return (float)((int)(*x >> 55) - 256) / 256.0f;
}

/* x (exact in the type) as the 16-bit pattern of bf16 or fp16. */
static uint16_t to16(float x, int dtype)
{
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    if (dtype == CUTUNE_DTYPE_BF16)
        return (uint16_t)(b >> 16); /* exact: the low bits are 0 */
    if (x == 0)
        return (uint16_t)((b >> 16) & 0x8000);
    int e;
    double m = frexp(fabs((double)x), &e); /* |x| = m 2^e, m in [0.5, 1) */
    return (uint16_t)((x < 0 ? 0x8000 : 0) | (uint16_t)((e - 1 + 15) << 10) |
                      (uint16_t)((m * 2 - 1) * 1024));
}

static float from16(uint16_t h, int dtype)
{
    if (dtype == CUTUNE_DTYPE_BF16) {
        uint32_t b = (uint32_t)h << 16;
        float f;
        memcpy(&f, &b, sizeof f);
        return f;
    }
    int e = (h >> 10) & 31, m = h & 1023;
    double v = e ? ldexp(1 + m / 1024.0, e - 15) : ldexp(m / 1024.0, -14);
    return (float)(h & 0x8000 ? -v : v);
}

/* n inputs into f (as floats) and h (as the GPU reads them: 16-bit for fp16 and bf16). */
static void fill(float *f, unsigned char *h, size_t n, int dtype, uint64_t *x)
{
    int is16 = dtype == CUTUNE_DTYPE_BF16 || dtype == CUTUNE_DTYPE_FP16;
    for (size_t i = 0; f && h && i < n; i++) {
        f[i] = input(x);
        if (is16)
            ((uint16_t *)h)[i] = to16(f[i], dtype);
        else
            ((float *)h)[i] = f[i];
    }
}

/* The op's worst-case bound for one element (plugins/matmul/matmul.h): d <= bound. */
static double bound(int dtype, int K, double ref, double sum_abs)
{
    const double u = 0x1p-24, g2 = 2 * K * u / (1 - 2 * K * u);
    switch (dtype) {
    case CUTUNE_DTYPE_BF16: return 0x1p-8 * fabs(ref) + (1 + 0x1p-8) * g2 * sum_abs;
    case CUTUNE_DTYPE_FP16: return 0x1p-11 * fabs(ref) + (1 + 0x1p-11) * g2 * sum_abs + 0x1p-25;
    case CUTUNE_DTYPE_TF32: return (0x1p-9 + 0x1p-20 + g2) * sum_abs;
    default: return K * u / (1 - K * u) * sum_abs;
    }
}

/* A CUDA graph captured as PyTorch captures one (cudaStreamCaptureModeGlobal) on a new
 * stream, of cutune_launch of r at `size`, then launched and waited for: the config's first
 * use on that stream, so cuBLASLt's plan (and its workspace, cudaMalloc'd) is made during
 * the capture. */
static void captured_launch(CutuneLookup *h, const CutuneLookupResult *r, const char *size,
                            void **args)
{
    cudaStream_t s = NULL;
    cudaGraph_t g = NULL;
    cudaGraphExec_t ge = NULL;
    CutuneError err = {0};
    CHECK(cudaStreamCreate(&s) == cudaSuccess &&
          cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) == cudaSuccess);
    int rc = cutune_launch(h, r, size, args, s, &err);
    CHECK(cudaStreamEndCapture(s, &g) == cudaSuccess);
    CHECK_MSG(rc == 0, "cutune_launch of %s %s under capture: %s", size, r->config, err.msg);
    CHECK(g && cudaGraphInstantiate(&ge, g, 0) == cudaSuccess &&
          cudaGraphLaunch(ge, s) == cudaSuccess && cudaStreamSynchronize(s) == cudaSuccess);
    if (ge)
        cudaGraphExecDestroy(ge);
    if (g)
        cudaGraphDestroy(g);
    if (s)
        cudaStreamDestroy(s);
}

/* How many of C's (dc, on the device) sampled elements are off their bound from the
 * double-precision sum of the inputs fa, fb of problem p; *worst gets the largest
 * error / bound. hc holds C's bytes. */
static size_t wrong_samples(const CutuneProblem *p, const float *fa, const float *fb,
                            const void *dc, unsigned char *hc, double *worst)
{
    int M = (int)p->dim[0], N = (int)p->dim[1], K = (int)p->dim[2], dt = p->dtype;
    int bt = p->layout == CUTUNE_LAYOUT_NT;
    size_t es = dt == CUTUNE_DTYPE_BF16 || dt == CUTUNE_DTYPE_FP16 ? 2 : 4, bad = 0;
    *worst = 0;
    if (cudaMemcpy(hc, dc, (size_t)M * N * es, cudaMemcpyDeviceToHost) != cudaSuccess)
        return SAMPLES;
    for (int s = 0; s < SAMPLES; s++) {
        size_t i = (size_t)(s * 7919) % (size_t)M, j = (size_t)(s * 104729) % (size_t)N;
        double ref = 0, sum_abs = 0;
        for (int k = 0; k < K; k++) {
            double v = (double)fa[i * K + k] * fb[bt ? j * K + k : (size_t)k * N + j];
            ref += v;
            sum_abs += fabs(v);
        }
        double got = es == 2 ? from16(((uint16_t *)hc)[i * N + j], dt) : ((float *)hc)[i * N + j];
        double d = fabs(got - ref), b = bound(dt, K, ref, sum_abs);
        *worst = fmax(*worst, d / b);
        bad += !(d <= b);
    }
    return bad;
}

/* cutune_gemm of problem p from the database, then the same in a CUDA graph (of ws_config
 * instead of the best, where given: a config whose algorithm has a workspace), each result
 * checked at sampled elements. */
static void gemm_checked(CutuneLookup *h, const CutuneProblem *p, const char *best_config,
                         const char *ws_config)
{
    int M = (int)p->dim[0], N = (int)p->dim[1], K = (int)p->dim[2], dt = p->dtype;
    size_t es = dt == CUTUNE_DTYPE_BF16 || dt == CUTUNE_DTYPE_FP16 ? 2 : 4;
    size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N;
    float *fa = malloc(na * sizeof *fa), *fb = malloc(nb * sizeof *fb);
    unsigned char *ha = malloc(na * es), *hb = malloc(nb * es), *hc = malloc(nc * es);
    void *da = NULL, *db = NULL, *dc = NULL;
    CHECK(fa && fb && ha && hb && hc);
    uint64_t x = 7;
    fill(fa, ha, na, dt, &x);
    fill(fb, hb, nb, dt, &x);
    CHECK(cudaMalloc(&da, na * es) == cudaSuccess && cudaMalloc(&db, nb * es) == cudaSuccess &&
          cudaMalloc(&dc, nc * es) == cudaSuccess);
    CHECK(cudaMemcpy(da, ha, na * es, cudaMemcpyHostToDevice) == cudaSuccess &&
          cudaMemcpy(db, hb, nb * es, cudaMemcpyHostToDevice) == cudaSuccess &&
          cudaMemset(dc, 0xFF, nc * es) == cudaSuccess);
    CutuneLookupResult used;
    CutuneError err = {0};
    int rc = cutune_gemm(h, dt, p->layout, da, db, dc, M, N, K, NULL, &used, &err);
    CHECK_MSG(rc == 0, "cutune_gemm %dx%dx%d: %s", M, N, K, err.msg);
    CHECK_MSG(!strcmp(used.variant, "matmul_cublaslt") && used.match == CUTUNE_MATCH_EXACT &&
                  !strcmp(used.config, best_config),
              "cutune_gemm used %s %s (match %d), the run's best is %s", used.variant, used.config,
              (int)used.match, best_config);
    /* a second call reuses the prepared algorithm */
    CHECK_EQ_INT(cutune_gemm(h, dt, p->layout, da, db, dc, M, N, K, NULL, NULL, &err), 0);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    if (rc || !fa || !fb || !hc) {
        printf("  cutune_gemm %dx%dx%d: not run\n", M, N, K);
    } else {
        double worst = 0, worst_graph = 0;
        size_t bad = wrong_samples(p, fa, fb, dc, hc, &worst);
        CHECK_MSG(bad == 0, "%zu of %d sampled elements of cutune_gemm's result are wrong", bad,
                  SAMPLES);
        CutuneLookupResult r = used;
        if (ws_config[0])
            snprintf(r.config, sizeof r.config, "%s", ws_config);
        const void *no_bias = NULL;
        void *args[] = {&da, &db, &dc, &M, &N, &K, &no_bias};
        CHECK(cudaMemset(dc, 0xFF, nc * es) == cudaSuccess);
        captured_launch(h, &r, used.size, args);
        bad = wrong_samples(p, fa, fb, dc, hc, &worst_graph);
        CHECK_MSG(bad == 0, "%zu of %d sampled elements of the CUDA graph's result (%s) are wrong",
                  bad, SAMPLES, r.config);
        printf("  cutune_gemm %s: %s, %d sampled elements within %.3g of their bound; in a CUDA "
               "graph, %s: within %.3g\n",
               used.size, used.config, SAMPLES, worst, r.config, worst_graph);
    }
    cudaFree(da);
    cudaFree(db);
    cudaFree(dc);
    free(fa);
    free(fb);
    free(ha);
    free(hb);
    free(hc);
}

/* cuBLASLt as the variant looks for it (plugins/matmul/lt.h) */
static int have_cublaslt(void)
{
    static const char *const names[] = {"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so"};
    return gpu_have_library(names, sizeof names / sizeof names[0]);
}

int main(void)
{
    char db[PATH_MAX];
    CutuneDeviceInfo dev;
    int start = gpu_test_start("cutune-gpu-cublaslt", &dev, db, sizeof db);
    if (start)
        return start;
    if (!have_cublaslt()) {
        printf("skipped: no cuBLASLt here (libcublasLt.so.13, .12 or libcublasLt.so)\n");
        rm_tree(tmpdir);
        return CHECK_SKIP;
    }
    CutuneTuneOptions o = gpu_tune_options("matmul", "matmul_cublaslt", sizes, NSIZES, db, 0.3);
    o.strategy = "exhaustive";
    o.time_limit_s = 0;
    o.where = where;
    o.nwhere = sizeof where / sizeof *where;
    CutuneTuneSummary sum;
    gpu_tune(&o, &sum);
    CHECK_EQ_INT(sum.nrows, NSIZES);
    for (size_t i = 0; i < sum.nrows; i++) {
        const CutuneTuneRow *r = &sum.rows[i];
        size_t ok = r->count[CUTUNE_STATUS_OK], skipped = r->count[CUTUNE_STATUS_SKIPPED_RESOURCES];
        CHECK_MSG(r->evaluated == NCONFIGS && ok >= 1 && ok + skipped == r->evaluated,
                  "%s %s: %zu evaluated, %zu ok, %zu skipped, %zu wrong, %zu launch errors, %zu "
                  "crashed",
                  r->variant, r->size, r->evaluated, ok, skipped,
                  r->count[CUTUNE_STATUS_WRONG_RESULT], r->count[CUTUNE_STATUS_LAUNCH_ERROR],
                  r->count[CUTUNE_STATUS_CRASHED]);
        CHECK_MSG(r->compiled == 0 && r->cached == 0, "%s: %zu compiled, %zu cached", r->size,
                  r->compiled, r->cached);
    }
    for (size_t i = 0; i < sum.nsizes; i++) {
        const CutuneTuneSize *s = &sum.sizes[i];
        CHECK_MSG(s->best_ms > 0 && s->yardstick_ms > 0 && s->best_ms <= 1.05 * s->yardstick_ms,
                  "%s: best %.4f ms (%s), yardstick %s %.4f ms", s->size, s->best_ms, s->config,
                  s->yardstick, s->yardstick_ms);
        printf("%-24s best %.4f ms %-26s %-14s %.4f ms  %.3fx\n", s->size, s->best_ms, s->config,
               s->yardstick, s->yardstick_ms, s->best_ms > 0 ? s->yardstick_ms / s->best_ms : 0);
    }

    /* a configuration set on the first choice ran, and was right (cuBLASLt may refuse them
     * all at a size: at one of the four, at least) */
    char sets[64];
    raw_text(db,
             "SELECT COUNT(*) || ' at ' || COUNT(DISTINCT p.size) FROM trials t JOIN problems p "
             "ON p.id = t.problem_id WHERE t.status = 'ok' AND t.message LIKE "
             "'%with tile %x128, cluster 1x1, option 3:%'",
             sets, sizeof sets);
    const char *at = strstr(sets, " at ");
    CHECK_MSG(at && atoi(at + 4) >= 1, "set configurations that ran right: %s sizes", sets);
    printf("configurations set on the first choice that ran right: %s sizes\n", sets);

    CutuneLookupSettings ls;
    cutune_lookup_default_settings(&ls);
    ls.db_path = db;
    CutuneError err = {0};
    CutuneLookup *h = NULL;
    CHECK_MSG(cutune_open(&h, &ls, &err) == 0, "%s", err.msg);
    int with_workspace = 0;
    for (size_t i = 0; h && i < sum.nsizes; i++) {
        CutuneProblem p;
        CHECK(cutune_problem_parse(sum.sizes[i].size, &p, NULL) == 0);
        char ws[512], sql[640];
        /* a config whose algorithm has a workspace: its trial's message gives its bytes */
        snprintf(sql, sizeof sql,
                 "SELECT t.config FROM trials t JOIN problems p ON p.id = t.problem_id WHERE "
                 "p.size = '%s' AND t.status = 'ok' AND t.message LIKE '%%workspace %%bytes%%' "
                 "AND t.message NOT LIKE '%%workspace 0 bytes%%' ORDER BY t.id LIMIT 1",
                 sum.sizes[i].size);
        raw_text(db, sql, ws, sizeof ws);
        if (!strcmp(ws, "(error)"))
            ws[0] = '\0';
        with_workspace += ws[0] != '\0';
        gemm_checked(h, &p, sum.sizes[i].config, ws);
    }
    /* of the sizes' 16 algorithms at a 32 MiB limit some take a workspace (split-K's partial
     * sums, say); with none, the allocation during a capture would go untested */
    CHECK_MSG(with_workspace > 0, "no ok config of matmul_cublaslt at these sizes has a workspace "
                                  "(trial messages): the allocation under capture went untested");
    cutune_close(&h);

    /* a best of another cuBLASLt's index is refused, not run */
    CHECK(raw_exec(db, "UPDATE variants SET version = '1+cublaslt.0.0.1' "
                       "WHERE name = 'matmul_cublaslt'") == 0);
    CHECK_MSG(cutune_open(&h, &ls, &err) == 0, "%s", err.msg);
    void *d = NULL;
    const size_t a_bytes = 16 * 4096 * 2, b_bytes = 4096 * 4096 * 2; /* C as A */
    CHECK(cudaMalloc(&d, 2 * a_bytes + b_bytes) == cudaSuccess);
    if (h && d) {
        char *p = d;
        CHECK_EQ_INT(cutune_gemm(h, CUTUNE_DTYPE_BF16, CUTUNE_LAYOUT_NT, p, p + a_bytes,
                                 p + a_bytes + b_bytes, 16, 4096, 4096, NULL, NULL, &err),
                     CUTUNE_ERR_NOT_FOUND);
        CHECK_STR_CONTAINS(err.msg, "is of variant matmul_cublaslt version 1+cublaslt.0.0.1");
    }
    cudaFree(d);
    cutune_close(&h);
    cutune_tune_summary_free(&sum);
    return gpu_test_end("gpu_cublaslt");
}
