/* histogram_global: one global atomicAdd per element. */
#include "../common/histogram_op.h"
#include "../common/memop.h"

extern const char histogram_global_cu[]; /* histogram_global.cu, embedded at build time */

static int geometry(const CutuneConfig *cfg, const CutuneProblem *p, CutuneLaunch *out)
{
    int64_t block = cutune_config_get(cfg, "BLOCK", 256), per_sm = cutune_config_get(cfg, "BLOCKS_PER_SM", 4);
    if (block < 32 || per_sm < 1)
        return -1;
    /* a resident grid, but no more blocks than 16-byte steps */
    int64_t grid = per_sm * memop_sms(cfg), need = memop_ceil_div(p->dim[0] * p->dim[1], 16 * block);
    grid = grid < need ? grid : need;
    *out = (CutuneLaunch){{(unsigned)grid, 1, 1}, {(unsigned)block, 1, 1}, 0};
    return 0;
}

static const CutuneVariant variant = {
    HISTOGRAM_OP_FIELDS,
    .name = "histogram_global",
    .version = "1",
    .summary = "one atomicAdd per element on the bins in global memory",
    .kernel_source = histogram_global_cu,
    .kernel_name = "histogram_global",
    .launch_geometry = geometry,
};

CUTUNE_PLUGIN_EXPORT const CutuneVariant *cutune_plugin_variant(void)
{
    return &variant;
}
