/* cuBLASLt opened at run time (lt.h): the library, a problem's plan, its calls and its
 * description. The declarations of cuBLASLt's C API are in lt_int.h; what a config sets of a
 * plan's algorithm, in lt_config.c. */
#include "cudafind.h"
#include "lt_int.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static LtApi api;
static int api_ok;
static size_t found_version;
static char api_why[1024];
static pthread_once_t api_once = PTHREAD_ONCE_INIT;

void lt_version_text(size_t v, char *buf, size_t len)
{
    if (v >= 100000) /* 11.0 on: major * 10000 + minor * 100 + patch */
        snprintf(buf, len, "%zu.%zu.%zu", v / 10000, v / 100 % 100, v % 100);
    else /* 10.x: major * 1000 + minor * 100 + patch */
        snprintf(buf, len, "%zu.%zu.%zu", v / 1000, v / 100 % 10, v % 100);
}

/* The library: $CUTUNE_CUBLASLT, or cuBLASLt 13 then 12 where cudafind.h looks (a copy the
 * process holds, pip's nvidia-cublas packages, the system), then libcublasLt.so; `tried`
 * says where it looked. */
static void *open_lib(const char *env, char *tried, size_t len)
{
    void *lib = NULL;
    if (env) {
        if (!(lib = dlopen(env, RTLD_NOW | RTLD_LOCAL))) {
            const char *e = dlerror();
            snprintf(tried, len, "%s", e ? e : env);
        }
        return lib;
    }
    char why13[1024] = "";
    if ((lib = cutune_cuda_dlopen("cublasLt", 13, (const void *)open_lib, why13, sizeof why13)) ||
        (lib = cutune_cuda_dlopen("cublasLt", 12, (const void *)open_lib, NULL, 0)) ||
        (lib = dlopen("libcublasLt.so", RTLD_NOW | RTLD_LOCAL)))
        return lib;
    snprintf(tried, len, "%s; nor was libcublasLt.so.12 or libcublasLt.so", why13);
    return NULL;
}

static void open_api(void)
{
    const char *env = getenv("CUTUNE_CUBLASLT");
    env = env && *env ? env : NULL;
    char tried[768] = "";
    if (!(api.lib = open_lib(env, tried, sizeof tried))) {
        snprintf(api_why, sizeof api_why, "cuBLASLt is not installed here (%s%s)",
                 env ? "tried CUTUNE_CUBLASLT: " : "", tried);
        return;
    }
    const struct {
        const char *name;
        void **fn;
    } fns[] = {
        {"cublasLtGetVersion", (void **)&api.version},
        {"cublasLtCreate", (void **)&api.create},
        {"cublasLtDestroy", (void **)&api.destroy},
        {"cublasLtMatmulDescCreate", (void **)&api.desc_create},
        {"cublasLtMatmulDescDestroy", (void **)&api.desc_destroy},
        {"cublasLtMatmulDescSetAttribute", (void **)&api.desc_set},
        {"cublasLtMatrixLayoutCreate", (void **)&api.layout_create},
        {"cublasLtMatrixLayoutDestroy", (void **)&api.layout_destroy},
        {"cublasLtMatmulPreferenceCreate", (void **)&api.pref_create},
        {"cublasLtMatmulPreferenceDestroy", (void **)&api.pref_destroy},
        {"cublasLtMatmulPreferenceSetAttribute", (void **)&api.pref_set},
        {"cublasLtMatmulAlgoGetHeuristic", (void **)&api.heuristic},
        {"cublasLtMatmul", (void **)&api.matmul},
    };
    const char *missing = NULL;
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
        if (!(*fns[i].fn = dlsym(api.lib, fns[i].name)) && !missing)
            missing = fns[i].name;
    *(void **)&api.config_get = dlsym(api.lib, "cublasLtMatmulAlgoConfigGetAttribute");
    *(void **)&api.config_set = dlsym(api.lib, "cublasLtMatmulAlgoConfigSetAttribute");
    *(void **)&api.check = dlsym(api.lib, "cublasLtMatmulAlgoCheck");
    Dl_info info;
    if (api.version && dladdr((void *)(size_t)api.version, &info) && info.dli_fname)
        snprintf(api.path, sizeof api.path, "%s", info.dli_fname);
    else
        snprintf(api.path, sizeof api.path, "%s", env ? env : "the cuBLASLt found");
    found_version = api.version ? api.version() : 0;
    char v[32];
    lt_version_text(found_version, v, sizeof v);
    if (missing)
        snprintf(api_why, sizeof api_why,
                 "the cuBLASLt at %s lacks %s: it is too old or not cuBLASLt (cutune needs "
                 "cuBLASLt 11.0 or newer)",
                 api.path, missing);
    else if (found_version < LT_MIN_VERSION)
        snprintf(api_why, sizeof api_why,
                 "cuBLASLt %s at %s is too old: cutune needs 11.0 or newer (bf16 and TF32 "
                 "compute)",
                 v, api.path);
    else
        api_ok = 1;
}

const LtApi *lt_api(char *why, size_t len)
{
    pthread_once(&api_once, open_api);
    if (!api_ok && why && len)
        snprintf(why, len, "%s", api_why);
    return api_ok ? &api : NULL;
}

size_t lt_found_version(void)
{
    pthread_once(&api_once, open_api);
    return found_version;
}

/* The descriptors and the heuristic's results: 0, or the status of the call `what`. */
static int describe(LtPlan *c, int dtype, int bt, int M, int N, int K, LtHeuristic *h,
                    int requested, const char **what)
{
    const LtApi *a = c->api;
    int epilogue = EPILOGUE_BIAS;
    int type = dtype == CUTUNE_DTYPE_BF16 ? R_16BF : dtype == CUTUNE_DTYPE_FP16 ? R_16F : R_32F;
    int compute = dtype == CUTUNE_DTYPE_TF32 ? COMPUTE_32F_FAST_TF32 : COMPUTE_32F;
    int opa = bt ? OP_T : OP_N, opb = OP_N, st;
    uint64_t ws = c->ws_limit;
    /* row-major C = A B is column-major C^T = B^T A^T (N x M, K inner), with cuBLASLt's A the
     * op's B and its B the op's A (as cublas.c) */
    if ((*what = "cublasLtCreate", st = a->create(&c->h)) ||
        (*what = "cublasLtMatmulDescCreate", st = a->desc_create(&c->desc, compute, R_32F)) ||
        (*what = "cublasLtMatmulDescSetAttribute",
         st = a->desc_set(c->desc, DESC_TRANSA, &opa, sizeof opa)) ||
        (st = a->desc_set(c->desc, DESC_TRANSB, &opb, sizeof opb)) ||
        /* column-major C^T's rows are row-major C's columns: a bias of N, as C's rows get */
        (c->bias && (st = a->desc_set(c->desc, DESC_EPILOGUE, &epilogue, sizeof epilogue))) ||
        (*what = "cublasLtMatrixLayoutCreate",
         st = a->layout_create(&c->lb, type, bt ? K : N, bt ? N : K, bt ? K : N)) ||
        (st = a->layout_create(&c->la, type, K, M, K)) ||
        (st = a->layout_create(&c->lc, type, N, M, N)) ||
        (*what = "cublasLtMatmulPreferenceCreate", st = a->pref_create(&c->pref)) ||
        (st = a->pref_set(c->pref, PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws)))
        return st;
    *what = "cublasLtMatmulAlgoGetHeuristic";
    return a->heuristic(c->h, c->desc, c->lb, c->la, c->lc, c->lc, c->pref, requested, h,
                        &c->found);
}

int lt_plan(const LtApi *a, const CutuneHost *host, int dtype, int bt, int bias, int M, int N,
            int K, size_t ws_limit, int index, int requested, const LtOverride *ov, LtPlan **out,
            char *why, size_t len)
{
    *out = NULL;
    LtPlan *c = calloc(1, sizeof *c);
    LtHeuristic *h = calloc((size_t)(requested > 0 ? requested : 1), sizeof *h);
    if (!c || !h) {
        free(c);
        free(h);
        snprintf(why, len, "out of host memory");
        return CUTUNE_ERR_NOMEM;
    }
    c->api = a;
    c->host = host;
    c->index = index;
    c->bias = bias != 0;
    c->ws_limit = ws_limit;
    c->M = M, c->N = N, c->K = K;
    const char *what = "";
    const char *dt = cutune_dtype_name(dtype);
    int rc = 0, st = describe(c, dtype, bt, M, N, K, h, requested, &what);
    if (st) {
        snprintf(why, len, "cuBLASLt %s: %s failed (status %d)", dt, what, st);
        rc = CUTUNE_ERR_CUDA;
    } else if (index < 0 || index >= c->found || h[index].state != 0) {
        snprintf(why, len,
                 "cuBLASLt's heuristic offers %d algorithm%s for %dx%dx%d-%s-%s%s within a %zu "
                 "MiB workspace (%d asked for); algorithm %d is not one of them",
                 c->found, c->found == 1 ? "" : "s", M, N, K, dt, bt ? "nt" : "nn",
                 c->bias ? "-bias" : "", ws_limit >> 20, requested, index);
        rc = CUTUNE_ERR_RESOURCES;
    } else {
        c->algo = h[index].algo;
        c->ws_size = h[index].workspace;
        if (ov)
            rc = lt_config_apply(c, ov, why, len);
        if (!rc && c->ws_size && host->dev_alloc(host->ctx, c->ws_size, &c->workspace) != 0) {
            c->workspace = NULL;
            snprintf(why, len,
                     "cuBLASLt's algorithm %d needs a workspace of %zu bytes, which "
                     "could not be allocated",
                     index, c->ws_size);
            rc = CUTUNE_ERR_RESOURCES;
        }
    }
    free(h);
    if (rc)
        lt_plan_free(c);
    else
        *out = c;
    return rc;
}

int lt_run(LtPlan *c, const void *A, const void *B, void *C, const void *bias, void *stream)
{
    const float one = 1.0f, zero = 0.0f;
    /* the pointer is the descriptor's: set where the call's vector is another than it holds */
    if (c->bias && (!c->bias_known || c->bias_set != bias)) {
        c->bias_known = 0;
        int st = c->api->desc_set(c->desc, DESC_BIAS_POINTER, &bias, sizeof bias);
        if (st)
            return st;
        c->bias_set = bias;
        c->bias_known = 1;
    }
    return c->api->matmul(c->h, c->desc, &one, B, c->lb, A, c->la, &zero, C, c->lc, C, c->lc,
                          &c->algo, c->workspace, c->ws_size, stream);
}

/* One attribute of the algorithm's configuration, of n bytes; -1 when unknown. */
static long long config_get(const LtPlan *c, int attr, size_t n)
{
    unsigned char buf[8] = {0};
    size_t written = 0;
    if (!c->api->config_get || n > sizeof buf ||
        c->api->config_get(&c->algo, attr, buf, n, &written) != 0 || written != n)
        return -1;
    uint16_t u16;
    uint32_t u32;
    memcpy(&u16, buf, sizeof u16);
    memcpy(&u32, buf, sizeof u32);
    return n == 2 ? u16 : u32;
}

void lt_describe(const LtPlan *c, char *buf, size_t len)
{
    char v[32];
    lt_version_text(found_version, v, sizeof v);
    snprintf(buf, len,
             "cuBLASLt %s: heuristic result %d of %d%s%s: algo %lld, tile %lld, stages %lld, "
             "split-K %lld, reduction %lld, swizzle %lld, cluster %lld, option %lld; "
             "workspace %zu bytes",
             v, c->index, c->found, c->set[0] ? " with " : "", c->set, config_get(c, CONFIG_ID, 4),
             config_get(c, CONFIG_TILE_ID, 4), config_get(c, CONFIG_STAGES_ID, 4),
             config_get(c, CONFIG_SPLITK_NUM, 4), config_get(c, CONFIG_REDUCTION_SCHEME, 4),
             config_get(c, CONFIG_CTA_SWIZZLING, 4), config_get(c, CONFIG_CLUSTER_SHAPE_ID, 2),
             config_get(c, CONFIG_CUSTOM_OPTION, 4), c->ws_size);
}

void lt_plan_free(LtPlan *c)
{
    if (!c)
        return;
    const LtApi *a = c->api;
    if (c->pref)
        a->pref_destroy(c->pref);
    if (c->lc)
        a->layout_destroy(c->lc);
    if (c->lb)
        a->layout_destroy(c->lb);
    if (c->la)
        a->layout_destroy(c->la);
    if (c->desc)
        a->desc_destroy(c->desc);
    if (c->h)
        a->destroy(c->h);
    if (c->workspace)
        c->host->dev_free(c->host->ctx, c->workspace);
    free(c);
}

void lt_call_free(void *call)
{
    LtCall *c = call;
    if (!c)
        return;
    lt_plan_free(c->plan);
    free(c);
}
