/* The faulting matmul variant (tests only): see matmul_faulty.cu. It is a C variant plugin
 * of the matmul op, as an author writes one when [launch] expressions cannot say the
 * geometry: it sets the kernel and launch_geometry and leaves the contract (setup, check,
 * arguments, counts) to the matmul op plugin, which the core finds by the op's name. */
#include "cutune/plugin.h"

extern const char matmul_faulty_cu[];

static int geometry(const CutuneConfig *cfg, const CutuneProblem *p, CutuneLaunch *out)
{
    int64_t fault = cutune_config_get(cfg, "FAULT", 4);
    unsigned bx = fault == 5 ? 32 : fault == 6 ? 8 : 16, by = fault == 5 ? 8 : fault == 6 ? 8 : 16;
    *out = (CutuneLaunch){{(unsigned)cutune_ceil_div(p->dim[1], bx),
                           (unsigned)cutune_ceil_div(p->dim[0], by), 1},
                          {bx, by, 1},
                          0};
    return 0;
}

static const CutuneVariant variant = {
    .abi_major = CUTUNE_PLUGIN_ABI_MAJOR,
    .abi_minor = CUTUNE_PLUGIN_ABI_MINOR,
    .struct_size = sizeof(CutuneVariant),
    .op = "matmul",
    .name = "matmul_faulty",
    .version = "1",
    .summary = "test only: configs that fault, hang or are wrong",
    .dim_names = "M,N,K",
    .kernel_source = matmul_faulty_cu,
    .kernel_name = "matmul_faulty",
    .launch_geometry = geometry,
};

CUTUNE_PLUGIN_EXPORT const CutuneVariant *cutune_plugin_variant(void)
{
    return &variant;
}
