/* Re-evaluating one config in-process (reeval.h). */
#include "reeval.h"
#include "compile.h"
#include "host.h"
#include "space_limits.h"
#include "space.h"
#include "util.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>


int cutune_reevaluate(const CutuneVariantDef *v, const CutuneDeviceInfo *dev,
                      const char *config_text, const CutuneProblem *prob, uint64_t seed,
                      const CutuneMeasureSettings *ms, int times, CutuneEvalResult *results,
                      CutuneError *err)
{
    if (times < 1 || times > 8)
        return cutune_error(err, CUTUNE_ERR_INVALID,
                            "cutune_reevaluate: times must be 1..8, got %d", times);
    char cache[PATH_MAX], why[512];
    CutuneSpace *sp = NULL;
    CutuneGeometry *geo = NULL;
    CutuneKernelBinary bin = {0};
    CutuneLaunch launch;
    CutuneTensorMaps maps;
    CutuneLimits lim;
    int rc;
    if ((rc = cutune_variant_load_space(v, &sp, err)) ||
        (rc = cutune_cache_dir(cache, sizeof cache, err)))
        goto out;
    if (sp->nparams > CUTUNE_MAX_PARAMS) {
        rc = cutune_error(err, CUTUNE_ERR_RANGE, "%s: more than %d parameters", sp->path,
                          CUTUNE_MAX_PARAMS);
        goto out;
    }
    int64_t values[CUTUNE_MAX_PARAMS];
    char defs[CUTUNE_MAX_PARAMS][96];
    const char *defp[CUTUNE_MAX_PARAMS], *names[CUTUNE_MAX_PARAMS];
    if ((rc = cutune_config_parse(sp, config_text, values, err)))
        goto out;
    for (size_t i = 0; i < sp->nparams; i++) {
        snprintf(defs[i], sizeof defs[i], "%s=%lld", sp->params[i].name, (long long)values[i]);
        defp[i] = defs[i];
        names[i] = sp->params[i].name;
    }
    cutune_limits_from_device(dev, &lim);
    if ((rc = cutune_geometry_open(v, names, sp->nparams, &geo, err)))
        goto out;
    if ((rc = cutune_geometry_eval(geo, values, prob, &lim, &launch, &maps, why, sizeof why))) {
        rc = cutune_error(err, rc, "%s %s: no launch on this device: %s", v->name, config_text,
                          why);
        goto out;
    }
    int arch = 10 * dev->cc_major + dev->cc_minor;
    const CutuneVariant *library = cutune_variant_library(v); /* nothing to compile */
    if (!library && (rc = cutune_nvrtc_compile(v->source, v->kernel_name, defp, sp->nparams, arch,
                                               cache, &bin, err)))
        goto out;
    CutuneHostCtx hc;
    cutune_host_init(&hc, arch, cache, err);
    void *state = NULL;
    CutuneProblem p = *prob;
    int lost = 0;
    const CutuneOp *op = v->op->op;
    if ((rc = op->setup(&hc.host, &p, seed, &state)) == 0) {
        CutuneConfig cfg = {sp->nparams, names, values};
        for (int t = 0; t < times && !lost; t++) {
            CutuneEvalInput in = {
                .op = op,
                .host = &hc.host,
                .state = state,
                .problem = &p,
                .config = &cfg,
                .cubin = bin.cubin,
                .kernel_name = v->kernel_name,
                .launch = &launch,
                .maps = &maps,
                .device = dev,
                .best_ms = 0,
                .library = library,
            };
            if (cutune_evaluate(&in, ms, &results[t]) != 0) {
                lost = 1;
                rc = cutune_error(err, CUTUNE_ERR_CUDA, "%s %s: the CUDA context was lost: %s",
                                  v->name, config_text, results[t].message);
            }
        }
        if (!lost)
            op->teardown(&hc.host, state);
    }
    if (!lost)
        cutune_host_release(&hc);
    else
        free(hc.allocs); /* the device memory went with the context */
out:
    cutune_kernel_binary_free(&bin);
    cutune_geometry_free(&geo);
    cutune_space_free(sp);
    return rc;
}
