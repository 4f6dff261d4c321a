/* Deliberately broken plugins for the loader tests: one source, built once per defect
 * (BROKEN = 1..9, see tests/plugins/meson.build). */
#include <stddef.h>

#include "cutune/plugin.h"
#include "../stub_hooks.h"

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
    .launch_geometry = stub_geometry,
    STUB_CONTRACT,
#if BROKEN == 8 /* a library variant that also sets a kernel */
    .library_prepare = stub_library_prepare,
    .library_run = stub_library_run,
    .library_release = stub_library_release,
#elif BROKEN == 9 /* a library variant without library_prepare */
    .library_run = stub_library_run,
    .library_release = stub_library_release,
#endif
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
