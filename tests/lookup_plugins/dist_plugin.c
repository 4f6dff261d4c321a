/* Plugins for the lookup tests, one source built twice (tests/lookup_plugins/meson.build):
 *   ABI11 = 1  op "dist_op" with its own problem_distance: |a_0 - b_0| (linear, so that
 *              the nearest tuned size differs from the one the log distance picks);
 *   ABI11 = 0  an ABI 1.0 plugin (short descriptor): it must still load. */
#include <stddef.h>

#include "cutune/plugin.h"
#include "../stub_hooks.h"

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
    .launch_geometry = stub_geometry,
    STUB_CONTRACT,
};

CUTUNE_PLUGIN_EXPORT const CutuneVariant *cutune_plugin_variant(void)
{
    return &variant;
}
