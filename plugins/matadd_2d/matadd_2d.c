/* matadd_2d: C = A + B with 2-D thread blocks; the block shape is what is tuned. */
#include "../common/matadd_op.h"
#include "../common/memop.h"

extern const char matadd_2d_cu[]; /* matadd_2d.cu, embedded at build time */

static int geometry(const CutuneConfig *cfg, const CutuneProblem *p, CutuneLaunch *out)
{
    int64_t bx = cutune_config_get(cfg, "BLOCK_X", 32), by = cutune_config_get(cfg, "BLOCK_Y", 8);
    int64_t vec = cutune_config_get(cfg, "VEC", 1);
    if (bx <= 0 || by <= 0 || vec <= 0)
        return -1;
    int64_t gx = memop_ceil_div(p->dim[1], bx * vec), gy = memop_ceil_div(p->dim[0], by);
    if (gx > 0x7fffffff)
        return -1;
    *out = (CutuneLaunch){
        .grid = {(unsigned)gx, (unsigned)(gy > 65535 ? 65535 : gy), 1}, /* the kernel loops over the rest */
        .block = {(unsigned)bx, (unsigned)by, 1},
        .shared_bytes = 0,
    };
    return 0;
}

static const CutuneVariant variant = {
    MATADD_OP_FIELDS,
    .name = "matadd_2d",
    .version = "1",
    .summary = "C = A + B with 2-D thread blocks of every shape, optionally float4 per thread",
    .kernel_source = matadd_2d_cu,
    .kernel_name = "matadd_2d",
    .launch_geometry = geometry,
};

CUTUNE_PLUGIN_EXPORT const CutuneVariant *cutune_plugin_variant(void)
{
    return &variant;
}
