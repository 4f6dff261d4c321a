/* reduce_interleaved: interleaved pairs, unrolled data blocks, unrolled last warp. */
#include "../common/memop.h"
#include "../common/reduce_op.h"

extern const char reduce_interleaved_cu[]; /* reduce_interleaved.cu, embedded at build time */

static int geometry(const CutuneConfig *cfg, const CutuneProblem *p, CutuneLaunch *out)
{
    int64_t block = cutune_config_get(cfg, "BLOCK", 256), unroll = cutune_config_get(cfg, "UNROLL", 1);
    if (block < 64 || unroll < 1)
        return -1;
    int64_t grid = memop_ceil_div(p->dim[0], block * unroll);
    if (grid > reduce_max_blocks(p->dim[0]) || grid > 0x7fffffff)
        return -1;
    *out = (CutuneLaunch){{(unsigned)grid, 1, 1}, {(unsigned)block, 1, 1}, 0};
    return 0;
}

static const CutuneVariant variant = {
    REDUCE_OP_FIELDS,
    .name = "reduce_interleaved",
    .version = "1",
    .summary = "interleaved pairs; 1-16 data blocks per thread block, unrolled last warp and tree",
    .kernel_source = reduce_interleaved_cu,
    .kernel_name = "reduce_interleaved",
    .launch_geometry = geometry,
};

CUTUNE_PLUGIN_EXPORT const CutuneVariant *cutune_plugin_variant(void)
{
    return &variant;
}
