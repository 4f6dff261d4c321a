/* reduce_neighbored: one element per thread, a neighbored-pairs tree in shared memory. */
#include "../common/memop.h"
#include "../common/reduce_op.h"

extern const char reduce_neighbored_cu[]; /* reduce_neighbored.cu, embedded at build time */

static int geometry(const CutuneConfig *cfg, const CutuneProblem *p, CutuneLaunch *out)
{
    int64_t block = cutune_config_get(cfg, "BLOCK", 256);
    int64_t grid = memop_ceil_div(p->dim[0], block);
    if (block < 32 || grid > reduce_max_blocks(p->dim[0]) || grid > 0x7fffffff)
        return -1;
    *out = (CutuneLaunch){{(unsigned)grid, 1, 1}, {(unsigned)block, 1, 1}, 0};
    return 0;
}

static const CutuneVariant variant = {
    REDUCE_OP_FIELDS,
    .name = "reduce_neighbored",
    .version = "1",
    .summary = "one element per thread, neighbored pairs in shared memory, optionally less divergent",
    .kernel_source = reduce_neighbored_cu,
    .kernel_name = "reduce_neighbored",
    .launch_geometry = geometry,
};

CUTUNE_PLUGIN_EXPORT const CutuneVariant *cutune_plugin_variant(void)
{
    return &variant;
}
