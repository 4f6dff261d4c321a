/* matmul_async: warp tiling fed by a multi-stage cp.async pipeline, optional split of K. */
#include "../common/matmul_op.h"

extern const char matmul_async_cu[]; /* common/matmul_tiles.cuh + matmul_warp.cuh + matmul_async.cu */

enum { SPLITK_TILES = 65536 }; /* the kernel's per-tile counters (SPLITK_TILES there) */

static int geometry(const CutuneConfig *cfg, const CutuneProblem *p, CutuneLaunch *out)
{
    int64_t bm = cutune_config_get(cfg, "BM", 128), bn = cutune_config_get(cfg, "BN", 128);
    int64_t bk = cutune_config_get(cfg, "BK", 8), wm = cutune_config_get(cfg, "WM", 64);
    int64_t wn = cutune_config_get(cfg, "WN", 32), pad = cutune_config_get(cfg, "PAD", 0);
    int64_t stages = cutune_config_get(cfg, "STAGES", 3), splitk = cutune_config_get(cfg, "SPLITK", 1);
    int64_t wk = cutune_config_get(cfg, "WK", 1);
    if (bm <= 0 || bn <= 0 || wm <= 0 || wn <= 0 || bm % wm || bn % wn || stages < 2 || wk < 1 ||
        splitk < 1 || splitk > 65535 || matmul_ceil_div(p->dim[0], bm) > 65535)
        return -1;
    unsigned gx = matmul_ceil_div(p->dim[1], bn), gy = matmul_ceil_div(p->dim[0], bm);
    if (splitk > 1 && (uint64_t)gx * gy > SPLITK_TILES)
        return -1;
    /* must match the kernel: STAGES copies of the A (transposed, padded) and B tiles, or
     * the sums of warp groups 1 .. WK - 1 at the end, whichever is larger */
    size_t stage_floats = (size_t)(bk * (bm + pad) + bk * bn);
    size_t floats = (size_t)stages * stage_floats;
    if ((size_t)((wk - 1) * bm * bn) > floats)
        floats = (size_t)((wk - 1) * bm * bn);
    *out = (CutuneLaunch){{gx, gy, (unsigned)splitk},
                          {(unsigned)((bm / wm) * (bn / wn) * 32 * wk), 1, 1},
                          floats * sizeof(float)};
    return 0;
}

static const CutuneVariant variant = {
    MATMUL_OP_FIELDS,
    .name = "matmul_async",
    .version = "8", /* 2: copy sources worked out once, no pointer selects; 3 (AROW) was
                       withdrawn; 4: unchecked copies for interior blocks; 5: A's row check
                       by count, not a 32-bit mask (wrong past 32 copies a thread); 6:
                       split-K adds by 16-byte reductions (sm_90), interior blocks copy
                       B unchecked also when N % 4 != 0; 7: the KUNROLL parameter; 8:
                       one main loop, fragments a row ahead, the barrier before a step's
                       last row, copies without branches (KUNROLL dropped), warp groups
                       sharing a step's rows (WK) */
    .summary = "warp tiling, multi-stage cp.async pipeline, warp groups over K, optional split-K",
    .kernel_source = matmul_async_cu,
    .kernel_name = "matmul_async",
    .launch_geometry = geometry,
};

CUTUNE_PLUGIN_EXPORT const CutuneVariant *cutune_plugin_variant(void)
{
    return &variant;
}
