/* matmul_reg1d: 1-D register blocking (TM outputs of one column a thread). */
#include "../common/matmul_op.h"

extern const char matmul_reg1d_cu[]; /* common/matmul_tiles.cuh + matmul_reg1d.cu */

static int geometry(const CutuneConfig *cfg, const CutuneProblem *p, CutuneLaunch *out)
{
    int64_t bm = cutune_config_get(cfg, "BM", 64), bn = cutune_config_get(cfg, "BN", 64);
    int64_t tm = cutune_config_get(cfg, "TM", 8);
    if (bm <= 0 || bn <= 0 || tm <= 0 || bm % tm || matmul_ceil_div(p->dim[0], bm) > 65535)
        return -1;
    *out = (CutuneLaunch){{matmul_ceil_div(p->dim[1], bn), matmul_ceil_div(p->dim[0], bm), 1},
                          {(unsigned)(bm * bn / tm), 1, 1}, 0};
    return 0;
}

static const CutuneVariant variant = {
    MATMUL_OP_FIELDS,
    .name = "matmul_reg1d",
    .version = "1",
    .summary = "1-D register blocking: each thread computes TM outputs of a column",
    .kernel_source = matmul_reg1d_cu,
    .kernel_name = "matmul_reg1d",
    .launch_geometry = geometry,
};

CUTUNE_PLUGIN_EXPORT const CutuneVariant *cutune_plugin_variant(void)
{
    return &variant;
}
