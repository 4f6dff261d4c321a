/* The faulting matmul variant (tests only): see matmul_faulty.cu. */
#include "../../plugins/common/matmul_op.h"

extern const char matmul_faulty_cu[];

static int geometry(const CutuneConfig *cfg, const CutuneProblem *p, CutuneLaunch *out)
{
    int64_t fault = cutune_config_get(cfg, "FAULT", 4);
    unsigned bx = fault == 5 ? 32 : fault == 6 ? 8 : 16, by = fault == 5 ? 8 : fault == 6 ? 8 : 16;
    *out = (CutuneLaunch){{matmul_ceil_div(p->dim[1], bx), matmul_ceil_div(p->dim[0], by), 1},
                          {bx, by, 1}, 0};
    return 0;
}

static const CutuneVariant variant = {
    MATMUL_OP_FIELDS,
    .name = "matmul_faulty",
    .version = "1",
    .summary = "test only: configs that fault, hang or are wrong",
    .kernel_source = matmul_faulty_cu,
    .kernel_name = "matmul_faulty",
    .launch_geometry = geometry,
};

CUTUNE_PLUGIN_EXPORT const CutuneVariant *cutune_plugin_variant(void)
{
    return &variant;
}
