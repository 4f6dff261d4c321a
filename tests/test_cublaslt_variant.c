/* The cuBLASLt variant (plugins/matmul_cublaslt/) without a GPU: its plugin loaded as the
 * worker loads it, over a stand-in for libcublasLt (tests/fake_cublaslt.c, through
 * CUTUNE_CUBLASLT) whose heuristic returns five algorithms, then over a cuBLASLt that is
 * too old, missing, or no cuBLASLt at all. A config's ALGO picks that entry of the
 * heuristic's list (and WORKSPACE_MIB the list), the workspace it needs is allocated and
 * freed through the host table, an index past the list is refused as a resource, ALGO=0 at
 * 32 MiB is the yardstick's algorithm, a tile, cluster or option set on the first choice
 * reaches cuBLASLt's algorithm (in cuBLASLt's terms: C^T's tile) or is refused as a resource
 * where cuBLASLt's check refuses it, and the variant's version names the cuBLASLt found;
 * without a usable cuBLASLt every prepare is refused as "not found" naming what was tried.
 * Each case runs in a child process: the plugin opens cuBLASLt once per process. */
#include "check.h"
#include "config_text.h"
#include "fake_host.h"
#include "registry.h"
#include "util.h"

#include "matmul/cublas.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int nallocs, nfrees;

static int t_alloc(void *ctx, size_t bytes, void **p)
{
    nallocs++;
    return fake_alloc(ctx, bytes, p);
}

static void t_free(void *ctx, void *p)
{
    nfrees++;
    fake_free(ctx, p);
}

static const CutuneHost host = {
    .abi_major = CUTUNE_ABI_MAJOR,
    .abi_minor = CUTUNE_ABI_MINOR,
    .struct_size = sizeof(CutuneHost),
    .dev_alloc = t_alloc,
    .dev_free = t_free,
    .fail = fake_fail,
};

static CutuneVariantDef def;
static float a[16], b[16], c[16]; /* never read: the stand-in computes nothing */

static const CutuneVariant *load(void)
{
    const char *dir = getenv("CUTUNE_PLUGIN_PATH");
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/matmul_cublaslt.so", dir ? dir : ".");
    CutuneError err = {0};
    CHECK_MSG(cutune_variant_plugin_open(path, &def, &err) == 0, "%s", err.msg);
    return cutune_variant_library(&def);
}

/* The op's arguments of one call: A, B, C, then M, N, K, then the bias (NULL: none). */
typedef struct Args {
    void *pa, *pb, *pc;
    int m, n, k;
    void *pbias;
    void *ptr[7];
} Args;

static void args_of(Args *x, int m, int n, int k)
{
    *x = (Args){a, b, c, m, n, k, NULL, {0}};
    void *p[7] = {&x->pa, &x->pb, &x->pc, &x->m, &x->n, &x->k, &x->pbias};
    memcpy(x->ptr, p, sizeof p);
}

static int prepare(const CutuneVariant *v, const char *size, int64_t algo, int64_t ws,
                   void **handle, char *why, size_t len)
{
    CutuneProblem p;
    CHECK(cutune_problem_parse(size, &p, NULL) == 0);
    const char *names[] = {"ALGO", "WORKSPACE_MIB"};
    int64_t values[] = {algo, ws};
    CutuneConfig cfg = {2, names, values};
    Args x;
    args_of(&x, (int)p.dim[0], (int)p.dim[1], (int)p.dim[2]);
    why[0] = '\0';
    return v->library_prepare(&host, (void *const *)x.ptr, &p, &cfg, handle, why, len);
}

/* A prepare of the config `text` (NAME=VALUE,...). */
static int prepare_text(const CutuneVariant *v, const char *size, const char *text, void **handle,
                        char *why, size_t len)
{
    CutuneProblem p;
    CutuneConfigPairs pairs;
    CHECK(cutune_problem_parse(size, &p, NULL) == 0);
    CHECK(cutune_config_pairs_parse(text, &pairs, NULL) == 0);
    const char *names[CUTUNE_MAX_PARAMS];
    for (size_t i = 0; i < pairs.count; i++)
        names[i] = pairs.names[i];
    CutuneConfig cfg = {pairs.count, names, pairs.values};
    Args x;
    args_of(&x, (int)p.dim[0], (int)p.dim[1], (int)p.dim[2]);
    why[0] = '\0';
    return v->library_prepare(&host, (void *const *)x.ptr, &p, &cfg, handle, why, len);
}

/* the stand-in's last matmul's tile (0), cluster (1) or option (2) */
static long long fake_set(int which)
{
    void *h = dlopen(getenv("CUTUNE_CUBLASLT"), RTLD_NOW | RTLD_NOLOAD);
    long long (*f)(int) = NULL;
    if (h)
        *(void **)&f = dlsym(h, "fake_lt_last_set");
    long long r = f ? f(which) : -2;
    if (h)
        dlclose(h);
    return r;
}

/* 1 when the stand-in's last matmul had bias pointer p */
static int fake_bias_is(const void *p)
{
    void *h = dlopen(getenv("CUTUNE_CUBLASLT"), RTLD_NOW | RTLD_NOLOAD);
    int (*f)(const void *) = NULL;
    if (h)
        *(void **)&f = dlsym(h, "fake_lt_last_bias_is");
    int r = f ? f(p) : -2;
    if (h)
        dlclose(h);
    return r;
}

static long long fake(const char *fn)
{
    void *h = dlopen(getenv("CUTUNE_CUBLASLT"), RTLD_NOW | RTLD_NOLOAD);
    long long (*f)(void) = NULL;
    if (h)
        *(void **)&f = dlsym(h, fn);
    long long r = f ? f() : -2;
    if (h)
        dlclose(h);
    return r;
}

/* The stand-in: five algorithms, ids 100.. (150.. with no workspace). */
static void with_fake(void)
{
    const CutuneVariant *v = load();
    CHECK(v != NULL);
    if (!v)
        return;
    CHECK_MSG(!strcmp(def.version, "1+cublaslt.13.1.0"), "version %s", def.version);
    CHECK(def.source == NULL && def.kernel_name == NULL);
    void *h = NULL;
    char why[512];
    CHECK_EQ_INT(prepare(v, "64x32x16-bf16-nt", 3, 32, &h, why, sizeof why), 0);
    CHECK_STR_CONTAINS(why,
                       "cuBLASLt 13.1.0: heuristic result 3 of 5: algo 103, tile 0, stages -1");
    CHECK_STR_CONTAINS(why, "workspace 4096 bytes");
    CHECK_EQ_INT(nallocs, 1);
    Args x;
    args_of(&x, 64, 32, 16);
    CHECK_EQ_INT(v->library_run(h, (void *const *)x.ptr, NULL), 0);
    CHECK_EQ_INT(fake("fake_lt_last_algo"), 103);
    CHECK_EQ_INT(fake("fake_lt_last_workspace"), 4096);
    args_of(&x, 65, 32, 16); /* a call of another size on this plan */
    CHECK_EQ_INT(v->library_run(h, (void *const *)x.ptr, NULL), CUTUNE_ERR_INVALID);
    CHECK_STR_CONTAINS(fake_failure, "a call of 65x32x16 on a plan made for 64x32x16");
    CHECK_EQ_INT(fake("fake_lt_matmuls"), 1);
    v->library_release(h);
    CHECK_EQ_INT(nfrees, 1);

    /* no workspace: the heuristic's list for a workspace of 0, and nothing allocated */
    CHECK_EQ_INT(prepare(v, "64x32x16-bf16-nt", 3, 0, &h, why, sizeof why), 0);
    args_of(&x, 64, 32, 16);
    CHECK_EQ_INT(v->library_run(h, (void *const *)x.ptr, NULL), 0);
    CHECK_EQ_INT(fake("fake_lt_last_algo"), 153);
    CHECK_EQ_INT(fake("fake_lt_last_workspace"), 0);
    CHECK_EQ_INT(nallocs, 1);
    v->library_release(h);

    /* past the heuristic's list, or past the space */
    CHECK_EQ_INT(prepare(v, "64x32x16-bf16-nt", 7, 32, &h, why, sizeof why), CUTUNE_ERR_RESOURCES);
    CHECK_STR_CONTAINS(why, "cuBLASLt's heuristic offers 5 algorithms for 64x32x16-bf16-nt "
                            "within a 32 MiB workspace (16 asked for); algorithm 7 is not one "
                            "of them");
    CHECK(h == NULL);
    CHECK_EQ_INT(prepare(v, "64x32x16-bf16-nt", 16, 32, &h, why, sizeof why), CUTUNE_ERR_RESOURCES);
    CHECK_STR_CONTAINS(why, "ALGO is 0..15");

    /* ALGO=0 at 32 MiB is the algorithm the op's yardstick times */
    CutuneYardstick ys;
    memset(&ys, 0, sizeof ys);
    CHECK_EQ_INT(matmul_cublaslt_yardstick(&host, CUTUNE_DTYPE_BF16, 1, a, b, c, NULL, 64, 32, 16,
                                           &ys),
                 0);
    CHECK(!strcmp(ys.name, "cuBLASLt bf16") && ys.checkable);
    if (ys.run) {
        CHECK_EQ_INT(ys.run(ys.user, NULL), 0);
        CHECK_EQ_INT(fake("fake_lt_last_algo"), 100);
        CHECK_EQ_INT(fake("fake_lt_last_epilogue"), 1); /* cuBLASLt's default: none */
        ys.close(ys.user);
    }
    CHECK_EQ_INT(prepare(v, "64x32x16-bf16-nt", 0, 32, &h, why, sizeof why), 0);
    CHECK_EQ_INT(v->library_run(h, (void *const *)x.ptr, NULL), 0);
    CHECK_EQ_INT(fake("fake_lt_last_algo"), 100);
    CHECK_EQ_INT(fake("fake_lt_last_epilogue"), 1);
    v->library_release(h);

    /* the first choice with its tile, cluster and option set: the op's 152 x 128 tile is
     * cuBLASLt's 128x152 (CUBLASLT_MATMUL_TILE_128x152, 407), its 2 x 1 cluster cuBLASLt's
     * 1x2x1 (5); the workspace is what cuBLASLt's check asks */
    const char *set = "ALGO=0,WORKSPACE_MIB=32,TILE_M=152,TILE_N=128,CLUSTER_M=2,CLUSTER_N=1,"
                      "OPTION=3";
    int nalloc0 = nallocs;
    CHECK_EQ_INT(prepare_text(v, "64x32x16-bf16-nt", set, &h, why, sizeof why), 0);
    CHECK_STR_CONTAINS(why, "heuristic result 0 of 5 with tile 152x128, cluster 2x1, option 3: "
                            "algo 100, tile 407");
    CHECK_STR_CONTAINS(why, "cluster 5, option 3; workspace 2048 bytes");
    CHECK_EQ_INT(nallocs, nalloc0 + 1);
    CHECK_EQ_INT(v->library_run(h, (void *const *)x.ptr, NULL), 0);
    CHECK_EQ_INT(fake("fake_lt_last_algo"), 100);
    CHECK(fake_set(0) == 407 && fake_set(1) == 5 && fake_set(2) == 3);
    CHECK_EQ_INT(fake("fake_lt_last_workspace"), 2048);
    v->library_release(h);
    /* a config stored before the settings existed (ALGO and WORKSPACE_MIB alone) names the
     * same algorithm as before: the heuristic's entry, nothing set */
    CHECK_EQ_INT(prepare_text(v, "64x32x16-bf16-nt", "ALGO=2,WORKSPACE_MIB=32", &h, why,
                              sizeof why),
                 0);
    CHECK_EQ_INT(v->library_run(h, (void *const *)x.ptr, NULL), 0);
    CHECK(fake("fake_lt_last_algo") == 102 && fake_set(0) == 0 && fake_set(1) == 0 &&
          fake_set(2) == 0);
    CHECK(strstr(why, " with ") == NULL);
    v->library_release(h);
    /* the option alone; the tile and cluster stay the heuristic's */
    CHECK_EQ_INT(prepare_text(v, "64x32x16-bf16-nt", "ALGO=0,WORKSPACE_MIB=0,OPTION=0", &h, why,
                              sizeof why),
                 0);
    CHECK_EQ_INT(v->library_run(h, (void *const *)x.ptr, NULL), 0);
    CHECK(fake("fake_lt_last_algo") == 150 && fake_set(0) == 0 && fake_set(2) == 0);
    v->library_release(h);
    /* what cuBLASLt's check refuses, a workspace past the limit, a half-set tile, a tile
     * cuBLASLt lacks: each a resource, with nothing allocated */
    nalloc0 = nallocs;
    CHECK_EQ_INT(prepare_text(v, "64x32x16-bf16-nt", "ALGO=0,WORKSPACE_MIB=32,OPTION=7", &h, why,
                              sizeof why),
                 CUTUNE_ERR_RESOURCES);
    CHECK_STR_CONTAINS(why, "option 7: cuBLASLt does not run this configuration of its "
                            "algorithm for 64x32x16 (cublasLtMatmulAlgoCheck: status 15)");
    CHECK_EQ_INT(prepare_text(v, "64x32x16-bf16-nt",
                              "ALGO=0,WORKSPACE_MIB=32,TILE_M=128,TILE_N=128", &h, why, sizeof why),
                 CUTUNE_ERR_RESOURCES);
    CHECK_STR_CONTAINS(why, "tile 128x128: it needs a workspace of 67108864 bytes, past the 32 "
                            "MiB allowed");
    CHECK_EQ_INT(prepare_text(v, "64x32x16-bf16-nt", "ALGO=0,TILE_M=152", &h, why, sizeof why),
                 CUTUNE_ERR_RESOURCES);
    CHECK_STR_CONTAINS(why, "a tile or cluster is set whole (both > 0) or kept (both 0)");
    CHECK_EQ_INT(prepare_text(v, "64x32x16-bf16-nt", "ALGO=0,TILE_M=100,TILE_N=64", &h, why,
                              sizeof why),
                 CUTUNE_ERR_RESOURCES);
    CHECK_STR_CONTAINS(why, "tile 100x64: the tile is not one cutune can ask cuBLASLt for");
    CHECK(h == NULL && nallocs == nalloc0);

    /* the bias epilogue: planned with cuBLASLt's (CUBLASLT_EPILOGUE_BIAS, 4), and each call's
     * vector given to the descriptor before the call, in the variant and in the yardstick */
    static float vec[32], vec2[32];
    memset(&ys, 0, sizeof ys);
    CHECK_EQ_INT(matmul_cublaslt_yardstick(&host, CUTUNE_DTYPE_BF16, 1, a, b, c, vec, 64, 32, 16,
                                           &ys),
                 0);
    CHECK_MSG(!strcmp(ys.name, "cuBLASLt bf16 + bias"), "%s", ys.name);
    if (ys.run) {
        CHECK_EQ_INT(ys.run(ys.user, NULL), 0);
        CHECK_EQ_INT(fake("fake_lt_last_epilogue"), 4);
        CHECK_EQ_INT(fake_bias_is(vec), 1);
        ys.close(ys.user);
    }
    CHECK_EQ_INT(prepare(v, "64x32x16-bf16-nt-bias", 2, 32, &h, why, sizeof why), 0);
    args_of(&x, 64, 32, 16);
    x.pbias = vec2;
    CHECK_EQ_INT(v->library_run(h, (void *const *)x.ptr, NULL), 0);
    CHECK_EQ_INT(fake("fake_lt_last_algo"), 102);
    CHECK_EQ_INT(fake("fake_lt_last_epilogue"), 4);
    CHECK_EQ_INT(fake_bias_is(vec2), 1);
    x.pbias = vec;
    CHECK_EQ_INT(v->library_run(h, (void *const *)x.ptr, NULL), 0);
    CHECK_EQ_INT(fake_bias_is(vec), 1);
    v->library_release(h);
    CHECK_EQ_INT(nallocs, nfrees); /* every workspace went back */
}

/* No usable cuBLASLt: every prepare is refused as "not found", the yardstick too. */
static void refused(const char *version, const char *phrase)
{
    const CutuneVariant *v = load();
    CHECK(v != NULL);
    if (!v)
        return;
    CHECK_MSG(!strcmp(def.version, version), "version %s, want %s", def.version, version);
    void *h = NULL;
    char why[512];
    CHECK_EQ_INT(prepare(v, "4096x4096x4096", 0, 32, &h, why, sizeof why), CUTUNE_ERR_NOT_FOUND);
    CHECK_STR_CONTAINS(why, phrase);
    CutuneYardstick ys;
    memset(&ys, 0, sizeof ys);
    CHECK_EQ_INT(matmul_cublaslt_yardstick(&host, CUTUNE_DTYPE_FP16, 0, a, b, c, NULL, 4, 4, 4,
                                           &ys),
                 CUTUNE_ERR_NOT_FOUND);
    CHECK_STR_CONTAINS(fake_failure, phrase);
    CHECK(nallocs == 0 && ys.run == NULL);
}

static void too_old(void)
{
    char phrase[PATH_MAX + 64];
    snprintf(phrase, sizeof phrase, "cuBLASLt 10.2.1 at %s is too old: cutune needs 11.0 or newer",
             getenv("CUTUNE_CUBLASLT"));
    refused("1+cublaslt.10.2.1", phrase);
}

static void missing(void)
{
    refused("1+no-cublaslt", "cuBLASLt is not installed here (tried CUTUNE_CUBLASLT: "
                             "/nonexistent/libcublasLt.so.99");
}

static void not_cublaslt(void)
{
    refused("1+no-cublaslt", "lacks cublasLtGetVersion: it is too old or not cuBLASLt");
}

/* fn in a child process with CUTUNE_CUBLASLT=lib and FAKE_LT_VERSION=version (NULL: unset). */
static void in_child(const char *name, void (*fn)(void), const char *lib, const char *version)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        setenv("CUTUNE_CUBLASLT", lib, 1);
        if (version)
            setenv("FAKE_LT_VERSION", version, 1);
        else
            unsetenv("FAKE_LT_VERSION");
        fn();
        cutune_variant_close(&def);
        int rc = check_result(name);
        fflush(NULL);
        _exit(rc);
    }
    int st = 0;
    CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
    CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "case %s failed (status %d)", name, st);
}

int main(void)
{
    const char *lib = getenv("CUTUNE_TEST_FAKE_CUBLASLT");
    CHECK(lib != NULL);
    if (!lib)
        return check_result("cublaslt_variant");
    in_child("with a stand-in cuBLASLt", with_fake, lib, NULL);
    in_child("too old", too_old, lib, "10201");
    in_child("missing", missing, "/nonexistent/libcublasLt.so.99", NULL);
    in_child("not cuBLASLt", not_cublaslt, "libm.so.6", NULL);
    return check_result("cublaslt_variant");
}
