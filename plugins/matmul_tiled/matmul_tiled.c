/* matmul_tiled: shared-memory tiles with padding, unrolling and several outputs a thread. */
#include "../common/matmul_op.h"

extern const char matmul_tiled_cu[]; /* matmul_tiled.cu, embedded at build time */

static int geometry(const CutuneConfig *cfg, const CutuneProblem *p, CutuneLaunch *out)
{
    int64_t tile = cutune_config_get(cfg, "TILE", 16), wpt = cutune_config_get(cfg, "WPT", 1);
    if (tile <= 0 || wpt <= 0 || tile % wpt || matmul_ceil_div(p->dim[0], tile) > 65535)
        return -1;
    *out = (CutuneLaunch){
        .grid = {matmul_ceil_div(p->dim[1], tile), matmul_ceil_div(p->dim[0], tile), 1},
        .block = {(unsigned)tile, (unsigned)(tile / wpt), 1},
        .shared_bytes = 0, /* the tiles are static shared memory */
    };
    return 0;
}

static const CutuneVariant variant = {
    MATMUL_OP_FIELDS,
    .name = "matmul_tiled",
    .version = "1",
    .summary = "shared-memory tiles of A and B, padded, several outputs per thread",
    .kernel_source = matmul_tiled_cu,
    .kernel_name = "matmul_tiled",
    .launch_geometry = geometry,
};

CUTUNE_PLUGIN_EXPORT const CutuneVariant *cutune_plugin_variant(void)
{
    return &variant;
}
