/* transpose_tiled: shared-memory tiles, optional padding and vector accesses. */
#include "../common/memop.h"
#include "../common/transpose_op.h"

extern const char transpose_tiled_cu[]; /* transpose_tiled.cu, embedded at build time */

static int geometry(const CutuneConfig *cfg, const CutuneProblem *p, CutuneLaunch *out)
{
    int64_t tile = cutune_config_get(cfg, "TILE", 32), rows = cutune_config_get(cfg, "ROWS", 8);
    int64_t vec = cutune_config_get(cfg, "VEC", 1);
    if (tile <= 0 || rows <= 0 || vec <= 0 || tile % vec)
        return -1;
    int64_t gy = memop_ceil_div(p->dim[0], tile);
    *out = (CutuneLaunch){
        .grid = {(unsigned)memop_ceil_div(p->dim[1], tile), (unsigned)(gy > 65535 ? 65535 : gy), 1},
        .block = {(unsigned)(tile / vec), (unsigned)rows, 1},
        .shared_bytes = 0, /* the tile is static shared memory */
    };
    return 0;
}

static const CutuneVariant variant = {
    TRANSPOSE_OP_FIELDS,
    .name = "transpose_tiled",
    .version = "1",
    .summary = "shared-memory tile, padding against bank conflicts, scalar or vector accesses",
    .kernel_source = transpose_tiled_cu,
    .kernel_name = "transpose_tiled",
    .launch_geometry = geometry,
};

CUTUNE_PLUGIN_EXPORT const CutuneVariant *cutune_plugin_variant(void)
{
    return &variant;
}
