/* matmul_reg2d: 2-D register blocking (a TM x TN block a thread), A transposed in shared
 * memory, optional 16-byte shared-memory reads. */
#include "../common/matmul_op.h"

extern const char matmul_reg2d_cu[]; /* common/matmul_tiles.cuh + matmul_reg2d.cu */

static int geometry(const CutuneConfig *cfg, const CutuneProblem *p, CutuneLaunch *out)
{
    int64_t bm = cutune_config_get(cfg, "BM", 64), bn = cutune_config_get(cfg, "BN", 64);
    int64_t tm = cutune_config_get(cfg, "TM", 4), tn = cutune_config_get(cfg, "TN", 4);
    if (bm <= 0 || bn <= 0 || tm <= 0 || tn <= 0 || bm % tm || bn % tn ||
        matmul_ceil_div(p->dim[0], bm) > 65535)
        return -1;
    *out = (CutuneLaunch){{matmul_ceil_div(p->dim[1], bn), matmul_ceil_div(p->dim[0], bm), 1},
                          {(unsigned)((bm / tm) * (bn / tn)), 1, 1}, 0};
    return 0;
}

static const CutuneVariant variant = {
    MATMUL_OP_FIELDS,
    .name = "matmul_reg2d",
    .version = "1",
    .summary = "2-D register blocking, A transposed in shared memory, vectorised loads",
    .kernel_source = matmul_reg2d_cu,
    .kernel_name = "matmul_reg2d",
    .launch_geometry = geometry,
};

CUTUNE_PLUGIN_EXPORT const CutuneVariant *cutune_plugin_variant(void)
{
    return &variant;
}
