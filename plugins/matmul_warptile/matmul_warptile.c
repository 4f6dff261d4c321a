/* matmul_warptile: warp tiling, vectorised loads, optional double-buffered shared memory. */
#include "../common/matmul_op.h"

extern const char matmul_warptile_cu[]; /* common/matmul_tiles.cuh + matmul_warptile.cu */

static int geometry(const CutuneConfig *cfg, const CutuneProblem *p, CutuneLaunch *out)
{
    int64_t bm = cutune_config_get(cfg, "BM", 128), bn = cutune_config_get(cfg, "BN", 128);
    int64_t bk = cutune_config_get(cfg, "BK", 16), wm = cutune_config_get(cfg, "WM", 64);
    int64_t wn = cutune_config_get(cfg, "WN", 32), pad = cutune_config_get(cfg, "PAD", 0);
    int64_t dbuf = cutune_config_get(cfg, "DBUF", 1);
    if (bm <= 0 || bn <= 0 || wm <= 0 || wn <= 0 || bm % wm || bn % wn ||
        matmul_ceil_div(p->dim[0], bm) > 65535)
        return -1;
    /* must match the kernel: (DBUF ? 2 : 1) buffers of A (transposed, padded) and B tiles */
    size_t tile_floats = (size_t)(bk * (bm + pad) + bk * bn);
    *out = (CutuneLaunch){{matmul_ceil_div(p->dim[1], bn), matmul_ceil_div(p->dim[0], bm), 1},
                          {(unsigned)((bm / wm) * (bn / wn) * 32), 1, 1},
                          (dbuf ? 2 : 1) * tile_floats * sizeof(float)};
    return 0;
}

static const CutuneVariant variant = {
    MATMUL_OP_FIELDS,
    .name = "matmul_warptile",
    .version = "1",
    .summary = "warp tiling, 16-byte loads, double-buffered shared memory",
    .kernel_source = matmul_warptile_cu,
    .kernel_name = "matmul_warptile",
    .launch_geometry = geometry,
};

CUTUNE_PLUGIN_EXPORT const CutuneVariant *cutune_plugin_variant(void)
{
    return &variant;
}
