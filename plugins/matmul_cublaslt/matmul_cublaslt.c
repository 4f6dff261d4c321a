/* matmul_cublaslt: cuBLASLt's own algorithms for a matmul problem as a variant, as
 * PyTorch's TunableOp chooses among them. It is a library variant (cutune/plugin.h, ABI
 * 1.5): a config is no kernel but a call of cublasLtMatmul, which the core checks and times
 * like any kernel, stores as the best when it wins and calls for applications
 * (cutune_launch). Its space is tuning_spaces/matmul_cublaslt.ini:
 *
 *   ALGO           the index into the list cublasLtMatmulAlgoGetHeuristic returns for the
 *                  problem (its element type, layout and size) when asked for LT_ALGOS (16)
 *                  algorithms; 0 is the heuristic's first choice, what cuBLASLt (and
 *                  PyTorch) run by default and the op's yardstick
 *   WORKSPACE_MIB  the workspace the heuristic may assume: 0 (algorithms that need none)
 *                  or 32 (PyTorch's on Hopper); an algorithm gets the workspace it needs
 *   TILE_M, TILE_N, CLUSTER_M, CLUSTER_N, OPTION
 *                  the first choice's algorithm with its tile, cluster shape or custom
 *                  option set (0, or -1 for OPTION, keeps the heuristic's), checked by
 *                  cublasLtMatmulAlgoCheck (plugins/matmul/lt_config.c): the configs that
 *                  the heuristic does not rank, where it is often wrong on odd shapes
 *
 * A config stores the index, and every prepare asks the heuristic again and takes that
 * entry. For one cuBLASLt, device, problem and workspace the list is the same every time,
 * but another cuBLASLt may rank other algorithms there. So the variant's version names the
 * cuBLASLt this process found, "1+cublaslt.13.1.0" ("1+no-cublaslt" without one): trials
 * are kept per version, a run with another cuBLASLt tunes afresh, and an application
 * whose process has another cuBLASLt (PyTorch brings its own) gets a clear error from
 * cutune_launch, the stored best's version not being the installed one, rather than an old
 * index's algorithm. Each trial's message says which algorithm its index was (id, tile,
 * stages, split-K, ...).
 *
 * cuBLASLt is opened at run time (plugins/matmul/lt.h; $CUTUNE_CUBLASLT names another):
 * where it is missing or older than 11.0, every config is recorded skipped_resources with a
 * message naming what was tried, and the other variants run. The op's contract (inputs,
 * check, the kernel arguments A, B, C, M, N, K, bias of matmul.h) is the matmul op plugin's.
 * A problem with the bias epilogue ("-bias") plans with cuBLASLt's bias epilogue, so that
 * its algorithms are the heuristic's for that epilogue. */
#include "cutune/plugin.h"
#include "lt.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define VERSION "1" /* bump when the space or the use of the heuristic changes */
/* (the bias epilogue is a problem of its own, with its own trials: no bump; the overrides
 * default to the heuristic's own, so a config written before them, ALGO and WORKSPACE_MIB
 * alone, still names the same algorithm: no bump) */

static int prepare(const CutuneHost *host, void *const *args, const CutuneProblem *p,
                   const CutuneConfig *cfg, void **handle, char *why, size_t len)
{
    (void)args; /* the workspace is the plan's own; each call brings its operands */
    *handle = NULL;
    const LtApi *api = lt_api(why, len);
    if (!api)
        return CUTUNE_ERR_NOT_FOUND;
    int64_t algo = cutune_config_get(cfg, "ALGO", 0);
    int64_t ws = cutune_config_get(cfg, "WORKSPACE_MIB", LT_WORKSPACE >> 20);
    int64_t o[5] = {cutune_config_get(cfg, "TILE_M", 0), cutune_config_get(cfg, "TILE_N", 0),
                    cutune_config_get(cfg, "CLUSTER_M", 0), cutune_config_get(cfg, "CLUSTER_N", 0),
                    cutune_config_get(cfg, "OPTION", -1)};
    if (algo < 0 || algo >= LT_ALGOS || ws < 0 || ws > 4096) {
        snprintf(why, len,
                 "ALGO=%lld, WORKSPACE_MIB=%lld: ALGO is 0..%d and the workspace at "
                 "most 4096 MiB",
                 (long long)algo, (long long)ws, LT_ALGOS - 1);
        return CUTUNE_ERR_RESOURCES;
    }
    int whole = (o[0] == 0) == (o[1] == 0) && (o[2] == 0) == (o[3] == 0);
    int in_range = 1;
    for (int i = 0; i < 5; i++)
        in_range &= o[i] >= (i == 4 ? -1 : 0) && o[i] <= (i == 4 ? 255 : 1024);
    if (!whole || !in_range) {
        snprintf(why, len,
                 "TILE_M=%lld, TILE_N=%lld, CLUSTER_M=%lld, CLUSTER_N=%lld, OPTION=%lld: a "
                 "tile or cluster is set whole (both > 0) or kept (both 0), and OPTION is -1 "
                 "(kept) or 0..255",
                 (long long)o[0], (long long)o[1], (long long)o[2], (long long)o[3],
                 (long long)o[4]);
        return CUTUNE_ERR_RESOURCES;
    }
    LtOverride ov = {(int)o[0], (int)o[1], (int)o[2], (int)o[3], (int)o[4]};
    LtCall *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(why, len, "out of host memory");
        return CUTUNE_ERR_NOMEM;
    }
    *c = (LtCall){.host = host, .M = (int)p->dim[0], .N = (int)p->dim[1], .K = (int)p->dim[2]};
    int rc = lt_plan(api, host, p->dtype, p->layout == CUTUNE_LAYOUT_NT,
                     p->epilogue == CUTUNE_EPILOGUE_BIAS, c->M, c->N, c->K, (size_t)ws << 20,
                     (int)algo, LT_ALGOS, &ov, &c->plan, why, len);
    if (rc) {
        free(c);
        return rc;
    }
    lt_describe(c->plan, why, len);
    *handle = c;
    return 0;
}

static int run(void *handle, void *const *args, void *stream)
{
    LtCall *c = handle;
    const void *A = *(void *const *)args[0], *B = *(void *const *)args[1];
    void *C = *(void *const *)args[2];
    int M = *(const int *)args[3], N = *(const int *)args[4], K = *(const int *)args[5];
    const void *bias = *(void *const *)args[6]; /* NULL but for a problem with the bias */
    if (M != c->M || N != c->N || K != c->K)
        return c->host->fail(c->host->ctx, CUTUNE_ERR_INVALID,
                             "matmul_cublaslt: a call of %dx%dx%d on a plan made for %dx%dx%d", M,
                             N, K, c->M, c->N, c->K);
    int st = lt_run(c->plan, A, B, C, bias, stream);
    if (st == 0)
        return 0;
    int odd = (((uintptr_t)A | (uintptr_t)B | (uintptr_t)C) & 15) != 0;
    return c->host->fail(c->host->ctx, CUTUNE_ERR_CUDA, "cublasLtMatmul: status %d%s", st,
                         odd ? " (A, B or C is not 16-byte aligned, as cuBLASLt's algorithms "
                               "for tuned buffers may need)"
                             : "");
}

static char version[64] = VERSION;
static pthread_once_t version_once = PTHREAD_ONCE_INIT;

/* The version with the cuBLASLt of this process (see the top of this file). */
static void make_version(void)
{
    size_t v = lt_found_version();
    char text[32] = "";
    lt_version_text(v, text, sizeof text);
    snprintf(version, sizeof version, "%s+%s%s", VERSION, v ? "cublaslt." : "no-cublaslt",
             v ? text : "");
}

static const CutuneVariant variant = {
    .abi_major = CUTUNE_PLUGIN_ABI_MAJOR,
    .abi_minor = CUTUNE_PLUGIN_ABI_MINOR,
    .struct_size = sizeof(CutuneVariant),
    .op = "matmul",
    .name = "matmul_cublaslt",
    .version = version,
    .summary = "cuBLASLt's own algorithms as configs: its heuristic's top 16, and the first "
               "with its tile, cluster and option set",
    .dim_names = "M,N,K",
    .library_prepare = prepare,
    .library_run = run,
    .library_release = lt_call_free,
};

CUTUNE_PLUGIN_EXPORT const CutuneVariant *cutune_plugin_variant(void)
{
    pthread_once(&version_once, make_version);
    return &variant;
}
