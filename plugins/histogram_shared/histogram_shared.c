/* histogram_shared: private histograms in shared memory, merged with one atomic per bin. */
#include "../common/histogram_op.h"
#include "../common/memop.h"

extern const char histogram_shared_cu[]; /* histogram_shared.cu, embedded at build time */

static int geometry(const CutuneConfig *cfg, const CutuneProblem *p, CutuneLaunch *out)
{
    int64_t block = cutune_config_get(cfg, "BLOCK", 256), per_sm = cutune_config_get(cfg, "BLOCKS_PER_SM", 4);
    int64_t items = cutune_config_get(cfg, "ITEMS", 1);
    if (block < 32 || per_sm < 1 || items < 1)
        return -1;
    /* a resident grid, but no more blocks than steps of ITEMS 16-byte loads */
    int64_t grid = per_sm * memop_sms(cfg), need = memop_ceil_div(p->dim[0] * p->dim[1], 16 * block * items);
    grid = grid < need ? grid : need;
    *out = (CutuneLaunch){{(unsigned)grid, 1, 1}, {(unsigned)block, 1, 1}, 0};
    return 0;
}

static const CutuneVariant variant = {
    HISTOGRAM_OP_FIELDS,
    .name = "histogram_shared",
    .version = "1",
    .summary = "private shared-memory histograms (1-32 copies), run merging, one atomic per bin per block",
    .kernel_source = histogram_shared_cu,
    .kernel_name = "histogram_shared",
    .launch_geometry = geometry,
};

CUTUNE_PLUGIN_EXPORT const CutuneVariant *cutune_plugin_variant(void)
{
    return &variant;
}
