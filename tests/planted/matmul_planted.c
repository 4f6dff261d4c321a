/* The planted-bug matmul variant (tests only): see matmul_planted.cu. */
#include "../../plugins/common/matmul_op.h"

extern const char matmul_planted_cu[];

static int geometry(const CutuneConfig *cfg, const CutuneProblem *p, CutuneLaunch *out)
{
    unsigned by = cutune_config_get(cfg, "BUG", 0) == 4 ? 128 : 16; /* 16 x 128 = 2048 threads */
    *out = (CutuneLaunch){{matmul_ceil_div(p->dim[1], 16), matmul_ceil_div(p->dim[0], 16), 1},
                          {16, by, 1}, 0};
    return 0;
}

static const CutuneVariant variant = {
    MATMUL_OP_FIELDS,
    .name = "matmul_planted",
    .version = "1",
    .summary = "test only: configs with planted bugs",
    .kernel_source = matmul_planted_cu,
    .kernel_name = "matmul_planted",
    .launch_geometry = geometry,
};

CUTUNE_PLUGIN_EXPORT const CutuneVariant *cutune_plugin_variant(void)
{
    return &variant;
}
