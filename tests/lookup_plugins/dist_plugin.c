/* Plugins for the lookup tests, one source built twice (tests/lookup_plugins/meson.build):
 *   ABI11 = 1  op "dist_op" with its own problem_distance: |a_0 - b_0| (linear, so that
 *              the nearest tuned size differs from the one the log distance picks);
 *   ABI11 = 0  an ABI 1.0 plugin (short descriptor): it must still load. */
#include <stddef.h>

#include "cutune/plugin.h"

static int check_problem(CutuneProblem *p, char *e, size_t n)
{
    (void)p, (void)e, (void)n;
    return 0;
}
static int geometry(const CutuneConfig *c, const CutuneProblem *p, CutuneLaunch *l)
{
    (void)c, (void)p, (void)l;
    return 0;
}
static int setup(const CutuneHost *h, const CutuneProblem *p, uint64_t s, void **st)
{
    (void)h, (void)p, (void)s, (void)st;
    return 0;
}
static int args(void *s, const CutuneConfig *c, void **a, int m)
{
    (void)s, (void)c, (void)a, (void)m;
    return 0;
}
static int poison(const CutuneHost *h, void *s)
{
    (void)h, (void)s;
    return 0;
}
static int check(const CutuneHost *h, void *s, CutuneCheck *o)
{
    (void)h, (void)s, (void)o;
    return 0;
}
static void teardown(const CutuneHost *h, void *s)
{
    (void)h, (void)s;
}
static double zero(const CutuneProblem *p)
{
    (void)p;
    return 0;
}

#if ABI11
static double linear(const CutuneProblem *a, const CutuneProblem *b)
{
    double d = (double)a->dim[0] - (double)b->dim[0];
    return d < 0 ? -d : d;
}
#endif

static const CutuneVariant variant = {
    .abi_major = CUTUNE_PLUGIN_ABI_MAJOR,
#if ABI11
    .abi_minor = 1,
    .struct_size = sizeof(CutuneVariant),
    .op = "dist_op",
    .name = "dist_variant",
    .problem_distance = linear,
#else
    .abi_minor = 0,
    .struct_size = offsetof(CutuneVariant, bytes) + sizeof(double (*)(const CutuneProblem *)),
    .op = "old_op",
    .name = "old_abi10",
#endif
    .version = "1",
    .summary = "a plugin for the lookup tests",
    .dim_names = "n",
    .kernel_source = "extern \"C\" __global__ void k() {}",
    .kernel_name = "k",
    .check_problem = check_problem,
    .launch_geometry = geometry,
    .setup = setup,
    .kernel_args = args,
    .poison_output = poison,
    .check = check,
    .teardown = teardown,
    .flops = zero,
    .bytes = zero,
};

CUTUNE_PLUGIN_EXPORT const CutuneVariant *cutune_plugin_variant(void)
{
    return &variant;
}
