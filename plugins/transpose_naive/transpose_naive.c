/* transpose_naive: one thread per element; ORDER picks the coalesced side. */
#include "../common/memop.h"
#include "../common/transpose_op.h"

extern const char transpose_naive_cu[]; /* transpose_naive.cu, embedded at build time */

static int geometry(const CutuneConfig *cfg, const CutuneProblem *p, CutuneLaunch *out)
{
    int64_t bx = cutune_config_get(cfg, "BLOCK_X", 32), by = cutune_config_get(cfg, "BLOCK_Y", 8);
    int64_t order = cutune_config_get(cfg, "ORDER", 0);
    if (bx <= 0 || by <= 0)
        return -1;
    /* x runs along A's columns (ORDER 0) or along A's rows (ORDER 1) */
    int64_t along = order == 0 ? p->dim[1] : p->dim[0], across = order == 0 ? p->dim[0] : p->dim[1];
    int64_t gy = memop_ceil_div(across, by);
    *out = (CutuneLaunch){
        .grid = {(unsigned)memop_ceil_div(along, bx), (unsigned)(gy > 65535 ? 65535 : gy), 1},
        .block = {(unsigned)bx, (unsigned)by, 1},
        .shared_bytes = 0,
    };
    return 0;
}

static const CutuneVariant variant = {
    TRANSPOSE_OP_FIELDS,
    .name = "transpose_naive",
    .version = "1",
    .summary = "one thread per element from global memory; coalesced reads or coalesced writes",
    .kernel_source = transpose_naive_cu,
    .kernel_name = "transpose_naive",
    .launch_geometry = geometry,
};

CUTUNE_PLUGIN_EXPORT const CutuneVariant *cutune_plugin_variant(void)
{
    return &variant;
}
