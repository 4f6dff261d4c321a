/* The registry: op plugins, variants as data and C variant plugins load; each broken file
 * is refused with a message naming it (and the line, for an INI) and its defect, and the
 * others still load; a name two files define is reported with both files and the winner;
 * launch geometry comes from [launch] expressions, with the device, and a config that
 * cannot launch is said to be skipped. Needs no GPU. */
#include "check.h"
#include "registry.h"
#include "stub_hooks.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char broken_dir[PATH_MAX / 2], real_dir[PATH_MAX / 2];

static void expect_refused(const char *file, const char *phrase)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", broken_dir, file);
    CutuneVariantDef v;
    CutuneError err = {0};
    int rc = cutune_variant_plugin_open(path, &v, &err);
    CHECK_MSG(rc == CUTUNE_ERR_PLUGIN, "%s: rc %d", file, rc);
    CHECK_STR_CONTAINS(err.msg, file);
    CHECK_STR_CONTAINS(err.msg, phrase);
    if (rc == 0)
        cutune_variant_close(&v);
}

static void refused_one_by_one(void)
{
    char major[96], minor[96];
    snprintf(major, sizeof major, "plugin ABI 99.%d, but this cutune speaks ABI 1.%d",
             CUTUNE_ABI_MINOR, CUTUNE_ABI_MINOR);
    snprintf(minor, sizeof minor, "plugin ABI 1.99 is newer than this cutune's ABI 1.%d",
             CUTUNE_ABI_MINOR);
    expect_refused("broken_abi_major.so", major);
    expect_refused("broken_abi_minor.so", minor);
    expect_refused("broken_short_struct.so", "struct_size is 16 bytes");
    expect_refused("broken_missing_field.so", "'kernel_source' is NULL");
    expect_refused("broken_no_symbol.so", "no symbol 'cutune_plugin_variant'");
    expect_refused("broken_returns_null.so", "returned NULL");
    expect_refused("broken_library_and_kernel.so",
                   "variant broken8 sets library_run and also a kernel");
    expect_refused("broken_library_partial.so", "required descriptor field 'library_prepare' is "
                                                "NULL; a library variant sets");
    CutuneVariantDef v;
    CutuneError err = {0};
    CHECK(cutune_variant_plugin_open("/nonexistent/x.so", &v, &err) == CUTUNE_ERR_PLUGIN);
    CHECK_STR_CONTAINS(err.msg, "/nonexistent/x.so: cannot load");
}

/* The loader's rules for an op descriptor, one defect at a time. */
static void op_rules(void)
{
    const CutuneOp good = {
        .abi_major = CUTUNE_ABI_MAJOR,
        .abi_minor = CUTUNE_ABI_MINOR,
        .struct_size = sizeof(CutuneOp),
        .name = "rowop",
        .summary = "a test op",
        .dim_names = "R,C",
        .signature = "float *x, int R, int C",
        .nargs = 3,
        STUB_CONTRACT,
    };
    CutuneError err = {0};
    CHECK_MSG(cutune_op_validate("good.so", &good, &err) == 0, "%s", err.msg);
    char abi_other[96];
    snprintf(abi_other, sizeof abi_other, "op ABI 2.%d, but this cutune speaks ABI 1.%d",
             CUTUNE_ABI_MINOR, CUTUNE_ABI_MINOR);
    struct {
        CutuneOp op;
        const char *phrase;
    } bad[] = {
        {good, abi_other},
        {good, "ops exist since ABI 1.3"},
        {good, "struct_size is 40 bytes"},
        {good, "'check' is NULL"},
        {good, "dim_names 'R,,C'"},
        {good, "nargs is 0"},
        {good, "op name 'row-op'"},
    };
    bad[0].op.abi_major = 2;
    bad[1].op.abi_minor = 2;
    bad[2].op.struct_size = 40;
    bad[3].op.check = NULL;
    bad[4].op.dim_names = "R,,C";
    bad[5].op.nargs = 0;
    bad[6].op.name = "row-op";
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cutune_error_clear(&err);
        CHECK_MSG(cutune_op_validate("bad.so", &bad[i].op, &err) == CUTUNE_ERR_PLUGIN, "case %zu",
                  i);
        CHECK_STR_CONTAINS(err.msg, "bad.so: ");
        CHECK_STR_CONTAINS(err.msg, bad[i].phrase);
    }
}

static void op_plugin_and_data_variant_load(void)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/matmul.so", real_dir);
    CutuneOpDef d;
    CutuneError err = {0};
    CHECK_MSG(cutune_op_open(path, &d, &err) == 0, "%s", err.msg);
    if (d.op) {
        CHECK(strcmp(d.op->name, "matmul") == 0 && strcmp(d.op->dim_names, "M,N,K") == 0);
        CHECK_EQ_INT(d.op->nargs, 7); /* A, B, C, M, N, K, bias */
        cutune_op_close(&d);
    }
    CutuneRegistry reg;
    CHECK_MSG(cutune_registry_load(&reg, &err) == 0, "%s", err.msg);
    const CutuneVariantDef *v = cutune_registry_find(&reg, "matmul_tiled");
    CHECK(v != NULL);
    if (v) {
        CHECK(v->v == NULL); /* data, not a C plugin */
        CHECK(strcmp(v->op_name, "matmul") == 0 && strcmp(v->op->op->name, "matmul") == 0);
        CHECK_STR_CONTAINS(v->path, "matmul_tiled.ini");
        CHECK_STR_CONTAINS(v->op->path, "matmul.so");
        CHECK(strcmp(v->version, "1") == 0 && strcmp(v->kernel_name, "matmul_tiled") == 0);
        CHECK(strlen(v->source_hash) == 32);
        CHECK_STR_CONTAINS(v->source, "extern \"C\" __global__");
    }
    /* headers come before the kernel file, in the order given */
    v = cutune_registry_find(&reg, "matmul_async");
    CHECK(v != NULL);
    if (v) {
        const char *tiles = strstr(v->source, "matmul_tiles"),
                   *kernel = strstr(v->source, "matmul_async(");
        CHECK(tiles && kernel && tiles < kernel);
    }
    CHECK_MSG(reg.nrejected == 0, "%s", reg.nrejected ? reg.rejected[0].text : "");
    CHECK_MSG(reg.nshadowed == 0, "%s", reg.nshadowed ? reg.shadowed[0].text : "");
    cutune_registry_free(&reg);
}

/* A registry over the broken folder and the real one: 7 refused (one of them a matmul
 * variant whose dimensions disagree with the op's), the real ones load, a second copy of
 * an op is refused, and a variant defined in two folders is reported with both files. */
static void registry_keeps_going(void)
{
    char tmp[] = "/tmp/cutune-plugins-XXXXXX", dup[PATH_MAX], src[PATH_MAX], env[3 * PATH_MAX];
    char spaces[PATH_MAX], ini[PATH_MAX + 32];
    CHECK(mkdtemp(tmp) != NULL);
    snprintf(dup, sizeof dup, "%s/zz_copy_of_matmul.so", tmp);
    snprintf(src, sizeof src, "%s/matmul.so", real_dir);
    CHECK(symlink(src, dup) == 0);
    snprintf(spaces, sizeof spaces, "%s/spaces", tmp);
    snprintf(ini, sizeof ini, "%s/matmul_naive.ini", spaces);
    CHECK(mkdir(spaces, 0755) == 0);
    FILE *f = fopen(ini, "w");
    CHECK(f != NULL);
    if (f) { /* the shipped kernel, found along the space path */
        fputs("[variant]\nname = matmul_naive\nop = matmul\nversion = 7\n[param.BLOCK_X]\n"
              "values = 16\n[param.BLOCK_Y]\nvalues = 16\n[param.INDEXING]\nvalues = 0\n"
              "[param.UNROLL]\nvalues = 1\n[launch]\ngrid = ceil_div(N, 16), ceil_div(M, 16)\n"
              "block = 16, 16\n",
              f);
        fclose(f);
    }
    snprintf(env, sizeof env, "%s:%s:%s", broken_dir, real_dir, tmp);
    setenv("CUTUNE_PLUGIN_PATH", env, 1);
    setenv("CUTUNE_SPACE_PATH", spaces, 1);
    CutuneRegistry reg;
    CutuneError err = {0};
    CHECK_MSG(cutune_registry_load(&reg, &err) == 0, "%s", err.msg);
    CHECK_EQ_INT(reg.nrejected, 10);
    const CutuneVariantDef *naive = cutune_registry_find(&reg, "matmul_naive");
    CHECK(naive && strcmp(naive->version, "7") == 0 && !strcmp(naive->path, ini));
    CHECK(cutune_registry_find(&reg, "matmul_tiled") != NULL);
    CHECK(cutune_registry_find(&reg, "broken1") == NULL);
    int dup_seen = 0, dims_seen = 0;
    for (size_t i = 0; i < reg.nrejected; i++) {
        if (strstr(reg.rejected[i].path, "zz_copy_of_matmul.so") &&
            strstr(reg.rejected[i].text, "op 'matmul' is already provided by"))
            dup_seen = 1;
        if (strstr(reg.rejected[i].text, "broken_dims.so: variant broken7 of op matmul claims "
                                         "the dimensions \"M,N\", but op matmul"))
            dims_seen = 1;
    }
    CHECK_MSG(dup_seen, "the second copy of the matmul op was not refused as such");
    CHECK_MSG(dims_seen, "a matmul variant with the dimensions M,N was not refused");
    CHECK_EQ_INT(reg.nshadowed, 1);
    if (reg.nshadowed) {
        CHECK_STR_CONTAINS(reg.shadowed[0].text, "variant 'matmul_naive' is defined by");
        CHECK_STR_CONTAINS(reg.shadowed[0].text, ini);
        CHECK_STR_CONTAINS(reg.shadowed[0].text, "tuning_spaces/matmul_naive.ini");
        char wins[PATH_MAX + 64];
        snprintf(wins, sizeof wins, "%s wins", ini);
        CHECK_STR_CONTAINS(reg.shadowed[0].text, wins);
    }
    cutune_registry_free(&reg);
    unsetenv("CUTUNE_SPACE_PATH");
    unlink(ini);
    rmdir(spaces);
    unlink(dup);
    rmdir(tmp);
    setenv("CUTUNE_PLUGIN_PATH", real_dir, 1);
}

/* Variants as data with one mistake each: refused with the file, the line and a fix. */
static void data_variant_errors(void)
{
    char tmp[] = "/tmp/cutune-variants-XXXXXX";
    CHECK(mkdtemp(tmp) != NULL);
    static const char good_cu[] =
        "extern \"C\" __global__ void v_ok(float *x, long long n) { if (n) x[0] = 1; }\n";
    static const struct {
        const char *name, *ini, *phrase;
    } cases[] = {
        {"v_unknown_op", "[variant]\nname = v_unknown_op\nop = nosuchop\nversion = 1\n",
         "v_unknown_op.ini:3: op 'nosuchop' is unknown; the ops are "},
        {"v_no_source",
         "[variant]\nname = v_no_source\nop = axpy\nversion = 1\n"
         "source = missing.cu\n[launch]\ngrid = 1\nblock = 32\n",
         "v_no_source.ini:5: kernel source 'missing.cu' is not beside the file nor in the "
         "space path"},
        {"v_no_kernel",
         "[variant]\nname = v_no_kernel\nop = axpy\nversion = 1\nsource = ok.cu\n"
         "kernel = v_other\n[launch]\ngrid = 1\nblock = 32\n",
         "v_no_kernel.ini:6: kernel 'v_other' is not in the source"},
        {"v_wrong_name", "[variant]\nname = v_other_name\nop = axpy\nversion = 1\n",
         "v_wrong_name.ini:2: the variant is named 'v_other_name' but the file "
         "'v_wrong_name.ini'"},
        {"v_no_version", "[variant]\nname = v_no_version\nop = axpy\n",
         "v_no_version.ini:2: no version; add version = 1"},
        {"v_bad_size",
         "[variant]\nname = v_bad_size\nop = axpy\nversion = 1\nsource = ok.cu\n"
         "kernel = v_ok\n[launch]\ngrid = 1\nblock = 32\n[problems]\n"
         "default = 1024\ndefault = 1024xx1024\n",
         "v_bad_size.ini:12: default size '1024xx1024' is not a size of op axpy"},
        {"v_bad_launch",
         "[variant]\nname = v_bad_launch\nop = axpy\nversion = 1\nsource = ok.cu\n"
         "kernel = v_ok\n[param.B]\nvalues = 32\n[launch]\ngrid = ceil_div(n, BB)\n"
         "block = B\n",
         "v_bad_launch.ini:10: [launch] grid x: unknown name 'BB'"},
        {"v_no_launch",
         "[variant]\nname = v_no_launch\nop = axpy\nversion = 1\nsource = ok.cu\n"
         "kernel = v_ok\n",
         "v_no_launch.ini: no [launch] grid"},
        {"v_bad_key", "[variant]\nname = v_bad_key\nop = axpy\nversion = 1\nkernal = v_ok\n",
         "v_bad_key.ini:5: unknown key 'kernal' in [variant]"},
    };
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/ok.cu", tmp);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(good_cu, f);
        fclose(f);
    }
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(path, sizeof path, "%s/%s.ini", tmp, cases[i].name);
        f = fopen(path, "w");
        CHECK(f != NULL);
        if (f) {
            fputs(cases[i].ini, f);
            fclose(f);
        }
    }
    setenv("CUTUNE_SPACE_PATH", tmp, 1);
    CutuneRegistry reg;
    CutuneError err = {0};
    CHECK_MSG(cutune_registry_load(&reg, &err) == 0, "%s", err.msg);
    CHECK_EQ_INT(reg.nrejected, sizeof cases / sizeof cases[0]);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int seen = 0;
        for (size_t k = 0; k < reg.nrejected; k++)
            seen |= strstr(reg.rejected[k].text, cases[i].phrase) != NULL;
        CHECK_MSG(seen, "%s: no refusal saying '%s'", cases[i].name, cases[i].phrase);
        CHECK(cutune_registry_find(&reg, cases[i].name) == NULL);
    }
    for (size_t k = 0; k < reg.nrejected; k++)
        printf("refused (as it should be): %s\n", reg.rejected[k].text);
    CHECK(cutune_registry_find(&reg, "axpy_template") != NULL); /* the good ones still load */
    cutune_registry_free(&reg);
    unsetenv("CUTUNE_SPACE_PATH");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(path, sizeof path, "%s/%s.ini", tmp, cases[i].name);
        unlink(path);
    }
    snprintf(path, sizeof path, "%s/ok.cu", tmp);
    unlink(path);
    rmdir(tmp);
}

static void space_lookup(void)
{
    char path[PATH_MAX];
    CutuneError err = {0};
    CHECK_MSG(cutune_space_path("matmul_tiled", path, sizeof path, &err) == 0, "%s", err.msg);
    CHECK_STR_CONTAINS(path, "matmul_tiled.ini");
    cutune_error_clear(&err);
    CHECK(cutune_space_path("no_such_variant", path, sizeof path, &err) == CUTUNE_ERR_NOT_FOUND);
    CHECK_STR_CONTAINS(err.msg, "no tuning space for variant 'no_such_variant'");
}

/* [launch] sees the device's SM count: reduce_shuffle's resident grid is BLOCKS_PER_SM
 * blocks for each SM. A grid past CUDA's limits, or a grid larger than the op's buffers,
 * is a config that cannot run: skipped, with the reason. */
static void geometry(void)
{
    CutuneRegistry reg;
    CutuneError err = {0};
    CHECK_MSG(cutune_registry_load(&reg, &err) == 0, "%s", err.msg);
    const CutuneVariantDef *v = cutune_registry_find(&reg, "reduce_shuffle");
    CHECK(v != NULL);
    CutuneLimits lim;
    cutune_limits_sm90(&lim);
    char why[512];
    if (v) {
        const char *names[] = {"BLOCK", "ITEMS", "VEC", "BLOCKS_PER_SM"};
        const int64_t values[] = {256, 4, 4, 2};
        const CutuneProblem p = {.ndims = 1, .dim = {1 << 28}};
        CutuneGeometry *g = NULL;
        CHECK_MSG(cutune_geometry_open(v, names, 4, &g, &err) == 0, "%s", err.msg);
        CutuneLaunch a, b;
        CHECK(g && cutune_geometry_eval(g, values, &p, &lim, &a, NULL, why, sizeof why) == 0);
        lim.sm_count = 100;
        CHECK(g && cutune_geometry_eval(g, values, &p, &lim, &b, NULL, why, sizeof why) == 0);
        CHECK_EQ_INT(a.grid[0], 264);
        CHECK_EQ_INT(b.grid[0], 200);
        CHECK_EQ_INT(a.block[0], 256);
        cutune_geometry_free(&g);
        /* the names must be the space's */
        const char *wrong[] = {"BLOCK", "ITEMS", "VECTOR", "BLOCKS_PER_SM"};
        cutune_error_clear(&err);
        CHECK(cutune_geometry_open(v, wrong, 4, &g, &err) == CUTUNE_ERR_INVALID && !g);
        CHECK_STR_CONTAINS(err.msg, "bump the variant's version");
        cutune_limits_sm90(&lim);
    }
    v = cutune_registry_find(&reg, "matmul_tiled");
    CHECK(v != NULL);
    if (v) {
        const char *names[] = {"TILE", "PAD", "WPT", "UNROLL"};
        const int64_t values[] = {8, 0, 1, 1};
        CutuneGeometry *g = NULL;
        CHECK_MSG(cutune_geometry_open(v, names, 4, &g, &err) == 0, "%s", err.msg);
        CutuneLaunch l;
        const CutuneProblem ok = {.ndims = 3, .dim = {1000, 1000, 1000}},
                            tall = {.ndims = 3, .dim = {600000, 64, 64}};
        CHECK(g && cutune_geometry_eval(g, values, &ok, &lim, &l, NULL, why, sizeof why) == 0);
        CHECK(l.grid[0] == 125 && l.grid[1] == 125 && l.block[0] == 8 && l.block[1] == 8);
        CHECK(g && cutune_geometry_eval(g, values, &tall, &lim, &l, NULL, why, sizeof why) ==
                       CUTUNE_ERR_RESOURCES);
        CHECK_STR_CONTAINS(why,
                           "matmul_tiled.ini [launch]: grid y = 75000, outside CUDA's 1..65535");
        cutune_geometry_free(&g);
    }
    v = cutune_registry_find(&reg, "reduce_neighbored");
    CHECK(v != NULL);
    if (v) { /* at most max(4096, n / 32) blocks: the op's partial sums */
        const char *names[] = {"BLOCK", "LESS_DIV"};
        const int64_t values[] = {64, 0};
        CutuneGeometry *g = NULL;
        CHECK_MSG(cutune_geometry_open(v, names, 2, &g, &err) == 0, "%s", err.msg);
        CutuneLaunch l;
        const CutuneProblem p = {.ndims = 1, .dim = {1 << 20}};
        CHECK(g && cutune_geometry_eval(g, values, &p, &lim, &l, NULL, why, sizeof why) == 0);
        CHECK_EQ_INT(l.grid[0], 16384);
        cutune_geometry_free(&g);
    }
    cutune_registry_free(&reg);
}

/* A FIFO named *.so is refused at once (dlopen would wait for a writer for ever), and a
 * folder of plugins without any .so (nothing to sort) is fine. */
static void odd_files(void)
{
    char tmp[] = "/tmp/cutune-plugins-XXXXXX", fifo[PATH_MAX], empty[PATH_MAX], env[3 * PATH_MAX];
    CHECK(mkdtemp(tmp) != NULL);
    snprintf(fifo, sizeof fifo, "%s/a_fifo.so", tmp);
    CHECK(mkfifo(fifo, 0644) == 0);
    snprintf(empty, sizeof empty, "%s/empty", tmp);
    CHECK(mkdir(empty, 0755) == 0);
    snprintf(env, sizeof env, "%s:%s", empty, tmp);
    setenv("CUTUNE_PLUGIN_PATH", env, 1);
    CutuneRegistry reg;
    CutuneError err = {0};
    time_t t0 = time(NULL);
    CHECK_MSG(cutune_registry_load(&reg, &err) == 0, "%s", err.msg);
    CHECK(time(NULL) - t0 < 5);
    int seen = 0;
    for (size_t i = 0; i < reg.nrejected; i++)
        seen |= strstr(reg.rejected[i].path, "a_fifo.so") &&
                strstr(reg.rejected[i].text, "not a regular file");
    CHECK_MSG(seen, "the FIFO was not refused as such");
    cutune_registry_free(&reg);
    unlink(fifo);
    rmdir(empty);
    rmdir(tmp);
}

/* A [launch] expression that divides by zero for some configs: those are skipped with the
 * file and line; the others launch. */
static void geometry_division_by_zero(void)
{
    char tmp[] = "/tmp/cutune-divzero-XXXXXX", path[PATH_MAX];
    CHECK(mkdtemp(tmp) != NULL);
    snprintf(path, sizeof path, "%s/axpy_div.ini", tmp);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs("[variant]\nname = axpy_div\nop = axpy\nversion = 1\nsource = axpy_template.cu\n"
              "kernel = axpy_template\n[param.BLOCK]\nvalues = 32, 64\n[param.ITEMS]\n"
              "values = 0, 1\n[launch]\ngrid = ceil_div(n, BLOCK * ITEMS)\nblock = BLOCK\n",
              f);
        fclose(f);
    }
    setenv("CUTUNE_SPACE_PATH", tmp, 1);
    CutuneRegistry reg;
    CutuneError err = {0};
    CHECK_MSG(cutune_registry_load(&reg, &err) == 0, "%s", err.msg);
    const CutuneVariantDef *v = cutune_registry_find(&reg, "axpy_div");
    CHECK_MSG(v != NULL, "%s", reg.nrejected ? reg.rejected[0].text : "not found");
    if (v) {
        const char *names[] = {"BLOCK", "ITEMS"};
        const int64_t zero[] = {32, 0}, one[] = {64, 1};
        const CutuneProblem p = {.ndims = 1, .dim = {1000}};
        CutuneLimits lim;
        cutune_limits_sm90(&lim);
        CutuneGeometry *g = NULL;
        CutuneLaunch l;
        char why[512];
        CHECK_MSG(cutune_geometry_open(v, names, 2, &g, &err) == 0, "%s", err.msg);
        CHECK(g && cutune_geometry_eval(g, zero, &p, &lim, &l, NULL, why, sizeof why) ==
                       CUTUNE_ERR_RESOURCES);
        CHECK_STR_CONTAINS(why, "axpy_div.ini:12: [launch] grid x: division by zero");
        CHECK(g && cutune_geometry_eval(g, one, &p, &lim, &l, NULL, why, sizeof why) == 0);
        CHECK_EQ_INT(l.grid[0], 16);
        cutune_geometry_free(&g);
    }
    cutune_registry_free(&reg);
    unsetenv("CUTUNE_SPACE_PATH");
    unlink(path);
    rmdir(tmp);
}

/* A C variant plugin of a shipped op keeps the op plugin's contract. */
static void variant_plugin_of_an_op(void)
{
    const char *faulty = getenv("CUTUNE_TEST_FAULTY_PLUGIN");
    CHECK(faulty != NULL);
    if (!faulty)
        return;
    char env[2 * PATH_MAX];
    snprintf(env, sizeof env, "%s:%s", real_dir, faulty);
    setenv("CUTUNE_PLUGIN_PATH", env, 1);
    setenv("CUTUNE_SPACE_PATH", getenv("CUTUNE_TEST_FAULTY_SPACE"), 1);
    CutuneRegistry reg;
    CutuneError err = {0};
    CHECK_MSG(cutune_registry_load(&reg, &err) == 0, "%s", err.msg);
    const CutuneVariantDef *v = cutune_registry_find(&reg, "matmul_faulty");
    CHECK(v != NULL);
    if (v) {
        CHECK(v->v != NULL);
        CHECK_STR_CONTAINS(v->op->path, "matmul.so");
        CHECK(v->op->op->check != v->v->check); /* the op's, not the plugin's (none) */
        CutuneSpace *sp = NULL;
        CHECK_MSG(cutune_variant_load_space(v, &sp, &err) == 0, "%s", err.msg);
        CHECK(sp && sp->nparams == 1 && sp->ndims == 3);
        cutune_space_free(sp);
    }
    cutune_registry_free(&reg);
    unsetenv("CUTUNE_SPACE_PATH");
    setenv("CUTUNE_PLUGIN_PATH", real_dir, 1);
}

/* A C variant plugin's element types and layouts come from [variant] dtypes and layouts of
 * its space file, checked as a data variant's: a name that is none is refused with the file
 * and the line; the shipped cuBLASLt variant, a library variant, takes every kind. */
static void variant_plugin_kinds(void)
{
    const char *faulty = getenv("CUTUNE_TEST_FAULTY_PLUGIN");
    char tmp[] = "/tmp/cutune-kinds-XXXXXX", ini[PATH_MAX], env[2 * PATH_MAX];
    CHECK(faulty != NULL && mkdtemp(tmp) != NULL);
    if (!faulty)
        return;
    snprintf(ini, sizeof ini, "%s/matmul_faulty.ini", tmp);
    snprintf(env, sizeof env, "%s:%s", real_dir, faulty);
    setenv("CUTUNE_PLUGIN_PATH", env, 1);
    setenv("CUTUNE_SPACE_PATH", tmp, 1);
    static const char *const lists[] = {"dtypes = bf16, fp8\n",
                                        "dtypes = fp16, bf16\nlayouts = nt\n",
                                        "dtypes = bf16\nepilogues = none, relu\n",
                                        "dtypes = bf16\nlayouts = nt\nepilogues = bias\n"};
    for (int k = 0; k < 4; k++) {
        FILE *f = fopen(ini, "w");
        CHECK(f != NULL);
        if (f) {
            fprintf(f, "[variant]\nname = matmul_faulty\n%s[param.FAULT]\nvalues = 4\n", lists[k]);
            fclose(f);
        }
        CutuneRegistry reg;
        CutuneError err = {0};
        CHECK_MSG(cutune_registry_load(&reg, &err) == 0, "%s", err.msg);
        const CutuneVariantDef *v = cutune_registry_find(&reg, "matmul_faulty");
        if (k == 0) {
            CHECK(v == NULL);
            int seen = 0;
            for (size_t i = 0; i < reg.nrejected; i++)
                seen |= strstr(reg.rejected[i].text, "matmul_faulty.ini:3: dtypes 'fp8' is not an "
                                                     "element type") != NULL;
            CHECK_MSG(seen, "a C plugin's space with dtypes fp8 was not refused by its line");
        } else if (k == 2) {
            CHECK(v == NULL);
            int seen = 0;
            for (size_t i = 0; i < reg.nrejected; i++)
                seen |= strstr(reg.rejected[i].text, "matmul_faulty.ini:4: epilogues 'relu' is not "
                                                     "an epilogue (none, bias)") != NULL;
            CHECK_MSG(seen, "a C plugin's space with epilogues relu was not refused by its line");
        } else if (k == 3) { /* the bias alone: a problem without it is not the variant's */
            CHECK(v && v->epilogues && !strcmp(v->epilogues, "bias"));
            CutuneProblem bias = {.ndims = 3,
                                  .dim = {8, 8, 8},
                                  .dtype = CUTUNE_DTYPE_BF16,
                                  .layout = CUTUNE_LAYOUT_NT,
                                  .epilogue = CUTUNE_EPILOGUE_BIAS};
            CutuneProblem none = bias;
            none.epilogue = CUTUNE_EPILOGUE_NONE;
            CHECK(v && cutune_variant_takes(v, &bias) && !cutune_variant_takes(v, &none));
        } else {
            CHECK(v && v->dtypes && !strcmp(v->dtypes, "fp16, bf16") && v->layouts &&
                  !strcmp(v->layouts, "nt") && v->epilogues == NULL);
            CutuneProblem nt = {.ndims = 3,
                                .dim = {8, 8, 8},
                                .dtype = CUTUNE_DTYPE_BF16,
                                .layout = CUTUNE_LAYOUT_NT};
            CutuneProblem nn = nt;
            nn.layout = CUTUNE_LAYOUT_NN;
            CHECK(v && cutune_variant_takes(v, &nt) && !cutune_variant_takes(v, &nn));
        }
        const CutuneVariantDef *lt = cutune_registry_find(&reg, "matmul_cublaslt");
        CHECK(lt && cutune_variant_library(lt) && lt->source == NULL && lt->dtypes &&
              !strcmp(lt->dtypes, "fp32, tf32, fp16, bf16") && !strcmp(lt->layouts, "nn, nt") &&
              lt->epilogues && !strcmp(lt->epilogues, "none, bias"));
        cutune_registry_free(&reg);
    }
    unlink(ini);
    rmdir(tmp);
    unsetenv("CUTUNE_SPACE_PATH");
    setenv("CUTUNE_PLUGIN_PATH", real_dir, 1);
}

int main(void)
{
    const char *b = getenv("CUTUNE_TEST_BROKEN_PLUGINS"), *r = getenv("CUTUNE_PLUGIN_PATH");
    CHECK(b && r);
    if (!b || !r)
        return check_result("plugins");
    if (strlen(b) >= sizeof broken_dir || strlen(r) >= sizeof real_dir)
        return 1;
    strcpy(broken_dir, b);
    strcpy(real_dir, r);
    refused_one_by_one();
    op_rules();
    op_plugin_and_data_variant_load();
    space_lookup();
    geometry();
    geometry_division_by_zero();
    data_variant_errors();
    variant_plugin_of_an_op();
    variant_plugin_kinds();
    registry_keeps_going();
    odd_files();
    return check_result("plugins");
}
