/* topk_filter: per-block threshold selection with bitonic compaction, last-block merge. */
#include "../common/memop.h"
#include "../common/topk_op.h"

extern const char topk_filter_cu[]; /* topk_filter.cu, embedded at build time */

static int geometry(const CutuneConfig *cfg, const CutuneProblem *p, CutuneLaunch *out)
{
    int64_t block = cutune_config_get(cfg, "BLOCK", 256), items = cutune_config_get(cfg, "ITEMS", 4);
    int64_t per_sm = cutune_config_get(cfg, "BLOCKS_PER_SM", 2);
    if (block < 32 || items < 1 || per_sm < 1)
        return -1;
    int64_t tile = block * items, cap = tile <= 1024 ? 4096 : 4 * tile; /* the kernel's CAP */
    if (cap < TOPK_MAX_K + tile + 2048)
        return -1;
    int64_t grid = per_sm * memop_sms(cfg), need = memop_ceil_div(p->dim[0], tile);
    grid = grid < need ? grid : need;
    if (grid > TOPK_MAX_BLOCKS)
        return -1;
    *out = (CutuneLaunch){{(unsigned)grid, 1, 1}, {(unsigned)block, 1, 1}, (size_t)cap * 8};
    return 0;
}

static const CutuneVariant variant = {
    TOPK_OP_FIELDS,
    .name = "topk_filter",
    .version = "1",
    .summary = "per-block selection above a rising threshold (bitonic compaction), last-block merge",
    .kernel_source = topk_filter_cu,
    .kernel_name = "topk_filter",
    .launch_geometry = geometry,
};

CUTUNE_PLUGIN_EXPORT const CutuneVariant *cutune_plugin_variant(void)
{
    return &variant;
}
