/* The plugin loader: good plugins load, each broken one is refused with a message naming
 * its file and its defect, and the others still load. Needs no GPU. */
#include "check.h"
#include "registry.h"

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
    CutunePlugin p;
    CutuneError err = {0};
    int rc = cutune_plugin_open(path, &p, &err);
    CHECK_MSG(rc == CUTUNE_ERR_PLUGIN, "%s: rc %d", file, rc);
    CHECK_STR_CONTAINS(err.msg, file);
    CHECK_STR_CONTAINS(err.msg, phrase);
    if (rc == 0)
        cutune_plugin_close(&p);
}

static void refused_one_by_one(void)
{
    expect_refused("broken_abi_major.so", "plugin ABI 99.2, but this cutune speaks ABI 1.2");
    expect_refused("broken_abi_minor.so", "plugin ABI 1.99 is newer than this cutune's ABI 1.2");
    expect_refused("broken_short_struct.so", "struct_size is 16 bytes");
    expect_refused("broken_missing_field.so", "'kernel_source' is NULL");
    expect_refused("broken_no_symbol.so", "no symbol 'cutune_plugin_variant'");
    expect_refused("broken_returns_null.so", "returned NULL");
    CutunePlugin p;
    CutuneError err = {0};
    CHECK(cutune_plugin_open("/nonexistent/x.so", &p, &err) == CUTUNE_ERR_PLUGIN);
    CHECK_STR_CONTAINS(err.msg, "/nonexistent/x.so: cannot load");
}

static void good_plugin_loads(void)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/matmul_tiled.so", real_dir);
    CutunePlugin p;
    CutuneError err = {0};
    CHECK_MSG(cutune_plugin_open(path, &p, &err) == 0, "%s", err.msg);
    if (!p.v)
        return;
    CHECK(strcmp(p.v->op, "matmul") == 0);
    CHECK(strcmp(p.v->name, "matmul_tiled") == 0);
    CHECK(strlen(p.source_hash) == 32);
    cutune_plugin_close(&p);
}

/* A registry over the broken folder and the real one: 6 refused, the real ones load, and a
 * second copy of a real plugin is refused as a duplicate. */
static void registry_keeps_going(void)
{
    char tmp[] = "/tmp/cutune-plugins-XXXXXX", dup[PATH_MAX], src[PATH_MAX], env[3 * PATH_MAX];
    CHECK(mkdtemp(tmp) != NULL);
    snprintf(dup, sizeof dup, "%s/zz_copy_of_naive.so", tmp);
    snprintf(src, sizeof src, "%s/matmul_naive.so", real_dir);
    CHECK(symlink(src, dup) == 0);
    snprintf(env, sizeof env, "%s:%s:%s", broken_dir, real_dir, tmp);
    setenv("CUTUNE_PLUGIN_PATH", env, 1);
    CutuneRegistry reg;
    CutuneError err = {0};
    CHECK_MSG(cutune_registry_load(&reg, &err) == 0, "%s", err.msg);
    CHECK_EQ_INT(reg.nrejected, 7);
    CHECK(cutune_registry_find(&reg, "matmul_naive") != NULL);
    CHECK(cutune_registry_find(&reg, "matmul_tiled") != NULL);
    CHECK(cutune_registry_find(&reg, "broken1") == NULL);
    int dup_seen = 0;
    for (size_t i = 0; i < reg.nrejected; i++)
        if (strstr(reg.rejected[i].path, "zz_copy_of_naive.so") &&
            strstr(reg.rejected[i].reason, "already provided by"))
            dup_seen = 1;
    CHECK_MSG(dup_seen, "the duplicate plugin was not refused as such");
    cutune_registry_free(&reg);
    unlink(dup);
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

/* launch_geometry sees the device's SM count (ABI 1.2): reduce_shuffle's resident grid is
 * BLOCKS_PER_SM blocks for each SM. */
static void geometry_sees_device(void)
{
    CutuneRegistry reg;
    CutuneError err = {0};
    CHECK_MSG(cutune_registry_load(&reg, &err) == 0, "%s", err.msg);
    const CutunePlugin *pl = cutune_registry_find(&reg, "reduce_shuffle");
    CHECK(pl != NULL);
    if (pl) {
        const char *names[] = {"BLOCK", "ITEMS", "VEC", "BLOCKS_PER_SM"};
        const int64_t values[] = {256, 4, 4, 2};
        const CutuneConfig cfg = {4, names, values};
        const CutuneProblem p = {1, {1 << 28}};
        CutuneLaunch a, b;
        CHECK(cutune_plugin_geometry(pl->v, &cfg, &p, 132, 90, &a) == 0);
        CHECK(cutune_plugin_geometry(pl->v, &cfg, &p, 100, 80, &b) == 0);
        CHECK_EQ_INT(a.grid[0], 264);
        CHECK_EQ_INT(b.grid[0], 200);
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
                strstr(reg.rejected[i].reason, "not a regular file");
    CHECK_MSG(seen, "the FIFO was not refused as such");
    cutune_registry_free(&reg);
    unlink(fifo);
    rmdir(empty);
    rmdir(tmp);
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
    good_plugin_loads();
    space_lookup();
    geometry_sees_device();
    registry_keeps_going();
    odd_files();
    return check_result("plugins");
}
