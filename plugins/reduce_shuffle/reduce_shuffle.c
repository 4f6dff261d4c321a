/* reduce_shuffle: grid-stride loads in flight, warp-shuffle reduction, resident grid. */
#include "../common/memop.h"
#include "../common/reduce_op.h"

extern const char reduce_shuffle_cu[]; /* reduce_shuffle.cu, embedded at build time */

static int geometry(const CutuneConfig *cfg, const CutuneProblem *p, CutuneLaunch *out)
{
    int64_t block = cutune_config_get(cfg, "BLOCK", 256), vec = cutune_config_get(cfg, "VEC", 1);
    int64_t per_sm = cutune_config_get(cfg, "BLOCKS_PER_SM", 2);
    if (block < 32 || vec < 1 || per_sm < 1)
        return -1;
    /* a resident grid, but no more blocks than there are vectors to load */
    int64_t grid = per_sm * memop_sms(cfg), need = memop_ceil_div(p->dim[0], block * vec);
    grid = grid < need ? grid : need;
    if (grid > reduce_max_blocks(p->dim[0]))
        return -1;
    *out = (CutuneLaunch){{(unsigned)grid, 1, 1}, {(unsigned)block, 1, 1}, 0};
    return 0;
}

static const CutuneVariant variant = {
    REDUCE_OP_FIELDS,
    .name = "reduce_shuffle",
    .version = "1",
    .summary = "grid-stride loads in flight (float or float4), warp-shuffle reduction",
    .kernel_source = reduce_shuffle_cu,
    .kernel_name = "reduce_shuffle",
    .launch_geometry = geometry,
};

CUTUNE_PLUGIN_EXPORT const CutuneVariant *cutune_plugin_variant(void)
{
    return &variant;
}
