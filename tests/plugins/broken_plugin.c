/* Deliberately broken plugins for the loader tests: one source, built once per defect
 * (BROKEN = 1..7, see tests/plugins/meson.build). */
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

__attribute__((unused)) static const CutuneVariant variant = {
#if BROKEN == 1
    .abi_major = 99, /* wrong major */
#else
    .abi_major = CUTUNE_PLUGIN_ABI_MAJOR,
#endif
#if BROKEN == 2
    .abi_minor = 99, /* newer minor than the host */
#else
    .abi_minor = CUTUNE_PLUGIN_ABI_MINOR,
#endif
#if BROKEN == 3
    .struct_size = 16, /* short struct */
#else
    .struct_size = sizeof(CutuneVariant),
#endif
#if BROKEN == 7
    .op = "matmul", /* a variant of the shipped op that claims other dimensions */
    .dim_names = "M,N",
#else
    .op = "broken",
    .dim_names = "n",
#endif
    .name = "broken" BROKEN_NAME,
    .version = "1",
    .summary = "a deliberately broken plugin",
#if BROKEN != 4
    .kernel_source = "extern \"C\" __global__ void k() {}", /* BROKEN 4: missing field */
#endif
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

#if BROKEN == 5
/* the wrong symbol name: the loader finds no cutune_plugin_variant */
CUTUNE_PLUGIN_EXPORT const CutuneVariant *cutune_plugin_varient(void)
{
    return &variant;
}
#elif BROKEN == 6
CUTUNE_PLUGIN_EXPORT const CutuneVariant *cutune_plugin_variant(void)
{
    return NULL;
}
#else
CUTUNE_PLUGIN_EXPORT const CutuneVariant *cutune_plugin_variant(void)
{
    return &variant;
}
#endif
