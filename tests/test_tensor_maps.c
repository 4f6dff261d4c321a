/* TMA tensor maps of variants as data ([tensor_map.NAME] and [tensor_map.NAME.LAYOUT]):
 * evaluated with the launch geometry for a config and a problem (each map's argument, the
 * section of the problem's layout, dims, box, swizzle, `when`); a config whose map TMA
 * cannot take is refused as one that cannot run (CUTUNE_ERR_RESOURCES, which a run records
 * skipped_resources) with the file, line and section; a variant file that gets a map wrong is
 * refused with its line; what encoding refuses before it asks the driver (an unaligned
 * buffer) is said with the argument's name, and maps that are off are zero bytes after the
 * op's arguments. The fixtures are tests/data/tensor_maps/. Needs no GPU; the encoding part
 * runs where the CUDA runtime may not load (CUTUNE_CUDADL_FORBID): a map that is on needs the
 * driver. */
#include "check.h"
#include "registry.h"
#include "tensor_map.h"
#include "tmpdir.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static CutuneLimits lim;

/* Evaluate config `values` of v (parameters `names`) at problem p into *maps. */
static int eval(const CutuneVariantDef *v, const char *const *names, size_t n,
                const int64_t *values, const CutuneProblem *p, CutuneTensorMaps *maps, char *why,
                size_t len)
{
    CutuneGeometry *g = NULL;
    CutuneError err = {0};
    int rc = cutune_geometry_open(v, names, n, &g, &err);
    CHECK_MSG(rc == 0, "%s", err.msg);
    if (rc)
        return rc;
    CutuneLaunch l;
    memset(maps, 0xff, sizeof *maps); /* what the call leaves unset shows */
    rc = cutune_geometry_eval(g, values, p, &lim, &l, maps, why, len);
    cutune_geometry_free(&g);
    return rc;
}

static void check_map(const CutuneTensorMap *m, const char *name, int arg, int enabled, int rank,
                      int dtype, int64_t d0, int64_t d1, uint32_t b0, uint32_t b1, int swizzle)
{
    CHECK_MSG(!strcmp(m->name, name), "map %s, expected %s", m->name, name);
    CHECK_EQ_INT(m->arg, arg);
    CHECK_EQ_INT(m->enabled, enabled);
    CHECK_EQ_INT(m->rank, rank);
    CHECK_EQ_INT(m->dtype, dtype);
    if (!enabled)
        return;
    CHECK_EQ_INT(m->dims[0], d0);
    CHECK_EQ_INT(m->dims[1], d1);
    CHECK_EQ_INT(m->box[0], b0);
    CHECK_EQ_INT(m->box[1], b1);
    CHECK_EQ_INT(m->swizzle, swizzle);
}

/* tma_fixture: B's section per layout, A's for all (off where TMA is 0), C's for nn only. */
static void per_layout(const CutuneRegistry *reg)
{
    const CutuneVariantDef *v = cutune_registry_find(reg, "tma_fixture");
    CHECK_MSG(v != NULL, "%s", reg->nrejected ? reg->rejected[0].text : "tma_fixture not loaded");
    if (!v)
        return;
    const char *names[] = {"BM", "BK", "TMA"};
    const int64_t on[] = {128, 32, 1}, off[] = {128, 32, 0};
    CutuneProblem nn = {.ndims = 3, .dim = {256, 512, 1024}};
    CutuneTensorMaps m;
    char why[512] = "";
    CHECK_MSG(eval(v, names, 3, on, &nn, &m, why, sizeof why) == 0, "%s", why);
    CHECK_EQ_INT(m.n, 3);
    check_map(&m.map[0], "B", 1, 1, 2, CUTUNE_DTYPE_FP32, 512, 1024, 64, 32, 0);
    check_map(&m.map[1], "A", 0, 1, 2, CUTUNE_DTYPE_FP32, 1024, 256, 32, 128, 128);
    check_map(&m.map[2], "C", 2, 1, 2, CUTUNE_DTYPE_FP32, 512, 256, 8, 8, 32);

    /* when = TMA == 1: A is off (the kernel gets zero bytes), the others do not change */
    CHECK_MSG(eval(v, names, 3, off, &nn, &m, why, sizeof why) == 0, "%s", why);
    CHECK_EQ_INT(m.n, 3);
    check_map(&m.map[1], "A", 0, 0, 0, CUTUNE_DTYPE_FP32, 0, 0, 0, 0, 0);
    check_map(&m.map[0], "B", 1, 1, 2, CUTUNE_DTYPE_FP32, 512, 1024, 64, 32, 0);

    /* nt in bf16: B's nt section, A's own, C none (no nt section, no section for all) */
    CutuneProblem nt = nn;
    nt.dtype = CUTUNE_DTYPE_BF16;
    nt.layout = CUTUNE_LAYOUT_NT;
    CHECK_MSG(eval(v, names, 3, on, &nt, &m, why, sizeof why) == 0, "%s", why);
    CHECK_EQ_INT(m.n, 3);
    check_map(&m.map[0], "B", 1, 1, 2, CUTUNE_DTYPE_BF16, 1024, 512, 32, 128, 128);
    check_map(&m.map[1], "A", 0, 1, 2, CUTUNE_DTYPE_BF16, 1024, 256, 32, 128, 128);
    check_map(&m.map[2], "C", 2, 0, 0, CUTUNE_DTYPE_BF16, 0, 0, 0, 0, 0);

    /* BK 64 in fp32: A's rows are 256 bytes, past its 128-byte swizzle; in bf16 they fit */
    const int64_t wide[] = {128, 64, 1};
    CHECK(eval(v, names, 3, wide, &nn, &m, why, sizeof why) == CUTUNE_ERR_RESOURCES);
    CHECK_STR_CONTAINS(why, "tma_fixture.ini:26: [tensor_map.A] box[0] of 64 elements is 256 "
                            "bytes, more than the 128-byte swizzle");
    CHECK_MSG(eval(v, names, 3, wide, &nt, &m, why, sizeof why) == 0, "%s", why);
    /* with TMA 0, A is not evaluated: nothing to refuse */
    const int64_t wide_off[] = {128, 64, 0};
    CHECK_MSG(eval(v, names, 3, wide_off, &nn, &m, why, sizeof why) == 0, "%s", why);

    /* K = 1001 floats: A's rows are 4004 bytes apart, not a multiple of 16 */
    CutuneProblem odd = nn;
    odd.dim[2] = 1001;
    CHECK(eval(v, names, 3, on, &odd, &m, why, sizeof why) == CUTUNE_ERR_RESOURCES);
    CHECK_STR_CONTAINS(why, "tma_fixture.ini:24: [tensor_map.A] the byte stride of dims[1] is "
                            "4004, which TMA needs a multiple of 16");
    /* a NULL out still evaluates, and refuses the same */
    CutuneGeometry *g = NULL;
    CutuneError err = {0};
    CutuneLaunch l;
    CHECK(cutune_geometry_open(v, names, 3, &g, &err) == 0);
    CHECK(g && cutune_geometry_eval(g, on, &odd, &lim, &l, NULL, why, sizeof why) ==
                   CUTUNE_ERR_RESOURCES);
    cutune_geometry_free(&g);
}

/* tma_limits: one value at a time out of what TMA takes; each a config that cannot run, the
 * reason with its file, line and section. */
static void limits(const CutuneRegistry *reg)
{
    const CutuneVariantDef *v = cutune_registry_find(reg, "tma_limits");
    CHECK_MSG(v != NULL, "%s", reg->nrejected ? reg->rejected[0].text : "tma_limits not loaded");
    if (!v)
        return;
    const char *names[] = {"BOX", "SW", "D", "S", "Z"};
    const CutuneProblem p = {.ndims = 3, .dim = {64, 64, 1024}};
    static const struct {
        int64_t values[5];
        const char *why; /* NULL: it can run */
    } cases[] = {
        {{4, 0, 1, 1, 1}, NULL},
        {{16, 128, 1, 1, 1}, NULL},
        {{4, 0, 1, 1, 0}, "tma_limits.ini:29: [tensor_map.B] when: division by zero"},
        {{0, 0, 1, 1, 1}, "tma_limits.ini:32: [tensor_map.A] box[0] = 0, outside TMA's 1..256"},
        {{300, 0, 1, 1, 1},
         "tma_limits.ini:32: [tensor_map.A] box[0] = 300, outside TMA's "
         "1..256"},
        {{2, 0, 1, 1, 1},
         "tma_limits.ini:32: [tensor_map.A] box[0] of 2 elements is 8 bytes, "
         "which TMA needs a multiple of 16"},
        {{4, 48, 1, 1, 1},
         "tma_limits.ini:33: [tensor_map.A] swizzle = 48; TMA swizzles 0, 32, "
         "64 or 128 bytes"},
        {{16, 32, 1, 1, 1},
         "tma_limits.ini:32: [tensor_map.A] box[0] of 16 elements is 64 "
         "bytes, more than the 32-byte swizzle"},
        {{4, 0, 0, 1, 1}, "tma_limits.ini:31: [tensor_map.A] dims[1] = 0, outside TMA's 1..2^32"},
        {{4, 0, 1, 16777216, 1},
         "tma_limits.ini:31: [tensor_map.A] the byte stride of dims[3] "
         "is at least 1099511627776, which TMA needs a multiple of 16 "
         "below 2^40"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CutuneTensorMaps m;
        char why[512] = "";
        int rc = eval(v, names, 5, cases[i].values, &p, &m, why, sizeof why);
        if (!cases[i].why) {
            CHECK_MSG(rc == 0, "case %zu: %s", i, why);
            CHECK(m.n == 2 && m.map[1].enabled && m.map[1].rank == 4 && m.map[1].dims[3] == 2);
            continue;
        }
        CHECK_MSG(rc == CUTUNE_ERR_RESOURCES, "case %zu: rc %d", i, rc);
        CHECK_STR_CONTAINS(why, cases[i].why);
    }
}

/* Variant files with one mistake each in their maps: refused, with the line and a fix. */
static void load_errors(void)
{
    char tmp[] = "/tmp/cutune-tmaps-XXXXXX", path[PATH_MAX];
    CHECK(mkdtemp(tmp) != NULL);
#define HEAD(name) \
    "[variant]\nname = " name "\nop = matmul\nversion = 1\nsource = k.cu\nkernel = k\n" \
    "[launch]\ngrid = 1\nblock = 32\n"
    /* line 10 is the first after HEAD */
    static const struct {
        const char *name, *ini, *phrase;
    } cases[] = {
        {"t_key",
         HEAD("t_key") "[tensor_map.A]\ndims = K, M\nbox = 8, 8\nswizzle = 0\nstride = 1\n",
         "t_key.ini:14: unknown key 'stride' in [tensor_map.A]; the keys are dims, box, swizzle "
         "and when"},
        {"t_no_swizzle", HEAD("t_no_swizzle") "[tensor_map.A]\ndims = K, M\nbox = 8, 8\n",
         "t_no_swizzle.ini:10: [tensor_map.A] has no swizzle"},
        {"t_no_dims", HEAD("t_no_dims") "[tensor_map.A.nt]\nbox = 8, 8\nswizzle = 0\n",
         "t_no_dims.ini:10: [tensor_map.A.nt] has no dims"},
        {"t_counts", HEAD("t_counts") "[tensor_map.A]\ndims = K, M\nbox = 8\nswizzle = 0\n",
         "t_counts.ini:12: [tensor_map.A] box has 1 expressions but dims 2"},
        {"t_rank", HEAD("t_rank") "[tensor_map.A]\ndims = K, M, 1, 1, 1, 1\nbox = 8\nswizzle = 0\n",
         "t_rank.ini:11: [tensor_map.A] dims takes 1 to 5 expressions"},
        {"t_not_pointer", HEAD("t_not_pointer") "[tensor_map.M]\ndims = K\nbox = 8\nswizzle = 0\n",
         "t_not_pointer.ini:10: [tensor_map.M] names no pointer parameter of op matmul"},
        {"t_no_param", HEAD("t_no_param") "[tensor_map.D]\ndims = K\nbox = 8\nswizzle = 0\n",
         "name one of A, B, C"},
        {"t_layout", HEAD("t_layout") "[tensor_map.A.tn]\ndims = K\nbox = 8\nswizzle = 0\n",
         "t_layout.ini:10: [tensor_map.A.tn]: 'tn' is not a layout"},
        {"t_expr", HEAD("t_expr") "[tensor_map.A]\ndims = K\nbox = BQ\nswizzle = 0\n",
         "t_expr.ini:12: [tensor_map.A] box[0]: unknown name 'BQ'"},
        {"t_twice",
         HEAD("t_twice") "[tensor_map.A]\ndims = K\nbox = 8\nswizzle = 0\n"
                         "[tensor_map.A]\n",
         "t_twice.ini:14: section [tensor_map.A] appears twice (first at line 10)"},
        {"t_section", HEAD("t_section") "[tensor_map.A.nt.x]\n",
         "t_section.ini:10: section [tensor_map.A.nt.x] does not name an argument"},
        {"t_bare", HEAD("t_bare") "[tensor_map]\n",
         "t_bare.ini:10: section [tensor_map] names "
         "no argument"},
        {"t_when", HEAD("t_when") "[tensor_map.A]\ndims = K\nbox = 8\nswizzle = 0\nwhen = 1, 2\n",
         "t_when.ini:14: [tensor_map.A] when takes one expression"},
    };
#undef HEAD
    snprintf(path, sizeof path, "%s/k.cu", tmp);
    CHECK(write_text(path, "%s", "extern \"C\" __global__ void k(const float *A) {}\n") == 0);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(path, sizeof path, "%s/%s.ini", tmp, cases[i].name);
        CHECK(write_text(path, "%s", cases[i].ini) == 0);
    }
    setenv("CUTUNE_SPACE_PATH", tmp, 1);
    CutuneRegistry reg;
    CutuneError err = {0};
    CHECK_MSG(cutune_registry_load(&reg, &err) == 0, "%s", err.msg);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const CutuneRegistryNote *note = cutune_registry_refusal(&reg, cases[i].name);
        CHECK_MSG(note && strstr(note->text, cases[i].phrase), "%s: refused with '%s', not '%s'",
                  cases[i].name, note ? note->text : "(loaded)", cases[i].phrase);
        CHECK(cutune_registry_find(&reg, cases[i].name) == NULL);
    }
    cutune_registry_free(&reg);
    unsetenv("CUTUNE_SPACE_PATH");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(path, sizeof path, "%s/%s.ini", tmp, cases[i].name);
        unlink(path);
    }
    snprintf(path, sizeof path, "%s/k.cu", tmp);
    unlink(path);
    rmdir(tmp);
}

/* A space file without op = (a C variant plugin's) takes no map: its plugin passes the
 * kernel's arguments. */
static void plugin_space(void)
{
    char tmp[] = "/tmp/cutune-tmaps-XXXXXX", path[PATH_MAX];
    CHECK(mkdtemp(tmp) != NULL);
    snprintf(path, sizeof path, "%s/p.ini", tmp);
    CHECK(
        write_text(path, "%s",
                   "[variant]\nname = p\n[param.T]\nvalues = 1\n[tensor_map.A]\ndims = 8\nbox = 8\n"
                   "swizzle = 0\n") == 0);
    CutuneSpace *sp = NULL;
    CutuneError err = {0};
    CHECK(cutune_space_load(path, "M,N,K", &sp, &err) == CUTUNE_ERR_PARSE && !sp);
    CHECK_STR_CONTAINS(err.msg, "p.ini:5: [tensor_map.A] is for variants as data");
    cutune_space_free(sp);
    unlink(path);
    rmdir(tmp);
}

/* An op whose kernel has 14 parameters leaves room for 2 maps: a third is refused. */
static void too_many(void)
{
    char tmp[] = "/tmp/cutune-tmaps-XXXXXX", path[PATH_MAX];
    CHECK(mkdtemp(tmp) != NULL);
    snprintf(path, sizeof path, "%s/many.ini", tmp);
    CHECK(write_text(path, "%s",
                     "[variant]\nname = many\nop = wide\n[param.T]\nvalues = 1\n"
                     "[tensor_map.a]\ndims = n\nbox = 8\nswizzle = 0\n"
                     "[tensor_map.b]\ndims = n\nbox = 8\nswizzle = 0\n"
                     "[tensor_map.c]\ndims = n\nbox = 8\nswizzle = 0\n") == 0);
    CutuneOp op;
    memset(&op, 0, sizeof op);
    op.name = "wide";
    op.signature = "const float *a, const float* b, float * c, float *d, int n, int x5, int x6, "
                   "int x7, int x8, int x9, int x10, int x11, int x12, int x13";
    op.nargs = 14;
    CutuneSpace *sp = NULL;
    CutuneError err = {0};
    CHECK_MSG(cutune_space_load(path, "n", &sp, &err) == 0, "%s", err.msg);
    CutuneTensorMapSpecs *specs = NULL;
    CHECK(sp && cutune_tensor_maps_open(sp, &op, &specs, &err) == CUTUNE_ERR_PARSE && !specs);
    CHECK_STR_CONTAINS(err.msg, "many.ini:14: [tensor_map.c] is map 3, but a kernel of op wide "
                                "has room for 2");
    /* with room for all, the same file compiles; maps b and c find "float* b" and "float * c" */
    op.nargs = 5;
    cutune_error_clear(&err);
    CHECK_MSG(sp && cutune_tensor_maps_open(sp, &op, &specs, &err) == 0 && specs, "%s", err.msg);
    CutuneTensorMaps m;
    char why[256] = "";
    int64_t vals[16] = {1, 64}; /* T, n, then the limits */
    CutuneProblem p = {.ndims = 1, .dim = {64}};
    CHECK_MSG(specs && cutune_tensor_maps_eval(specs, vals, &p, &m, why, sizeof why) == 0, "%s",
              why);
    CHECK(m.n == 3 && m.map[1].arg == 1 && m.map[2].arg == 2 && m.map[2].dims[0] == 64);
    cutune_tensor_maps_free(&specs);
    cutune_space_free(sp);
    unlink(path);
    rmdir(tmp);
}

/* Encoding, up to the driver: the maps go after the op's arguments, those off as zero bytes,
 * and those on a buffer not 16-byte aligned too (the driver is not asked); an argument past
 * the op's or too many parameters are refused before the driver is asked. */
static void encode_before_the_driver(void)
{
    CutuneTensorMaps maps;
    memset(&maps, 0, sizeof maps);
    maps.n = 2;
    maps.map[0] = (CutuneTensorMap){.name = "B", .arg = 1, .rank = 1, .dims = {64}, .box = {16}};
    maps.map[1] = (CutuneTensorMap){.name = "A", .arg = 0};
    float *a = (float *)(uintptr_t)0x10000, *b = (float *)(uintptr_t)0x10008;
    int m = 64;
    void *args[CUTUNE_MAX_KERNEL_ARGS] = {&a, &b, &m};
    CUtensorMap out[CUTUNE_MAX_TENSOR_MAPS];
    memset(out, 0xff, sizeof out);
    char why[256] = "";
    /* both off: zero bytes, pointed at by args[3] and args[4] */
    CHECK_MSG(cutune_tensor_maps_encode(&maps, args, 3, out, why, sizeof why) == 0, "%s", why);
    CHECK(args[3] == (void *)&out[0] && args[4] == (void *)&out[1]);
    int zero = 1;
    for (size_t i = 0; i < 2 * sizeof out[0]; i++)
        zero &= ((unsigned char *)out)[i] == 0;
    CHECK_MSG(zero, "a map that is off is not 128 zero bytes");
    /* B on, at 0x10008 (not 16-byte aligned): zero bytes, without asking the driver (which
     * this test forbids to load: asking it would fail) */
    maps.map[0].enabled = 1;
    memset(out, 0xff, sizeof out);
    CHECK_MSG(cutune_tensor_maps_encode(&maps, args, 3, out, why, sizeof why) == 0, "%s", why);
    zero = 1;
    for (size_t i = 0; i < sizeof out[0]; i++)
        zero &= ((unsigned char *)out)[i] == 0;
    CHECK_MSG(zero, "a map on an unaligned buffer is not 128 zero bytes");
    /* an argument the op does not pass */
    maps.map[0].arg = 3;
    CHECK(cutune_tensor_maps_encode(&maps, args, 3, out, why, sizeof why) == CUTUNE_ERR_INVALID);
    CHECK_STR_CONTAINS(why, "the map of argument B names argument 3 of 3");
    /* 15 arguments and 2 maps: past a kernel's 16 parameters */
    CHECK(cutune_tensor_maps_encode(&maps, args, 15, out, why, sizeof why) == CUTUNE_ERR_INVALID);
    CHECK_STR_CONTAINS(why, "2 tensor maps after 15 arguments");
    /* no maps: args untouched */
    maps.n = 0;
    args[3] = NULL;
    CHECK(cutune_tensor_maps_encode(&maps, args, 3, out, why, sizeof why) == 0 && !args[3]);
}

int main(void)
{
    const char *data = getenv("CUTUNE_TEST_DATA");
    CHECK(data != NULL);
    if (!data)
        return check_result("tensor_maps");
    cutune_limits_sm90(&lim);
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/tensor_maps", data);
    setenv("CUTUNE_SPACE_PATH", dir, 1);
    CutuneRegistry reg;
    CutuneError err = {0};
    CHECK_MSG(cutune_registry_load(&reg, &err) == 0, "%s", err.msg);
    for (size_t i = 0; i < reg.nrejected; i++)
        CHECK_MSG(!strstr(reg.rejected[i].path, "tensor_maps"), "refused: %s",
                  reg.rejected[i].text);
    per_layout(&reg);
    limits(&reg);
    cutune_registry_free(&reg);
    unsetenv("CUTUNE_SPACE_PATH");
    load_errors();
    plugin_space();
    too_many();
    setenv("CUTUNE_CUDADL_FORBID", "cudart", 1); /* encoding up to the driver loads no CUDA */
    encode_before_the_driver();
    return check_result("tensor_maps");
}
