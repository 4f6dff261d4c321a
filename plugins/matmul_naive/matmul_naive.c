/* matmul_naive: the baseline every other matmul variant must beat. */
#include "../common/matmul_op.h"

extern const char matmul_naive_cu[]; /* matmul_naive.cu, embedded at build time */

static int geometry(const CutuneConfig *cfg, const CutuneProblem *p, CutuneLaunch *out)
{
    int64_t bx = cutune_config_get(cfg, "BLOCK_X", 16), by = cutune_config_get(cfg, "BLOCK_Y", 16);
    int64_t M = p->dim[0], N = p->dim[1];
    *out = (CutuneLaunch){{1, 1, 1}, {1, 1, 1}, 0};
    if (cutune_config_get(cfg, "INDEXING", 0) == 0) {
        if (matmul_ceil_div(M, by) > 65535)
            return -1; /* grid.y limit */
        out->grid[0] = matmul_ceil_div(N, bx);
        out->grid[1] = matmul_ceil_div(M, by);
        out->block[0] = (unsigned)bx;
        out->block[1] = (unsigned)by;
    } else {
        out->grid[0] = matmul_ceil_div(M * N, bx * by);
        out->block[0] = (unsigned)(bx * by);
    }
    return 0;
}

static const CutuneVariant variant = {
    MATMUL_OP_FIELDS,
    .name = "matmul_naive",
    .version = "1",
    .summary = "one thread per element of C from global memory (2-D or 1-D indexing)",
    .kernel_source = matmul_naive_cu,
    .kernel_name = "matmul_naive",
    .launch_geometry = geometry,
};

CUTUNE_PLUGIN_EXPORT const CutuneVariant *cutune_plugin_variant(void)
{
    return &variant;
}
