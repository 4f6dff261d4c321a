/* What the two passes of `cutune check` share (variant_check_util.h). */
#include "variant_check_util.h"
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cutune_check_defaults(CutuneCheckOptions *o)
{
    memset(o, 0, sizeof *o);
    o->sample = 64;
    o->seed = 1;
    o->arch = 90;
    o->run_configs = 4;
    o->run_timeout_s = 120;
}

void cutune_check_say(const CutuneCheckOptions *o, const char *fmt, ...)
{
    if (!o->out)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(o->out, fmt, ap);
    va_end(ap);
}

int cutune_check_geometry(const CutuneVariantDef *v, const CutuneSpace *sp, CutuneCheckGeometry *cg,
                          CutuneError *err)
{
    cutune_limits_sm90(&cg->lim);
    cg->g = NULL;
    if (!(cg->names = cutune_space_symbol_names(sp)))
        return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
    int rc = cutune_geometry_open(v, cg->names, sp->nparams, &cg->g, err);
    if (rc)
        cutune_check_geometry_free(cg);
    return rc;
}

void cutune_check_geometry_free(CutuneCheckGeometry *cg)
{
    cutune_geometry_free(&cg->g);
    free(cg->names);
    cg->names = NULL;
}

size_t cutune_check_pick(size_t nvalid, size_t sample, uint64_t seed, size_t *out)
{
    size_t n = sample == 0 || nvalid <= sample ? nvalid : sample;
    if (n == nvalid) {
        for (size_t i = 0; i < n; i++)
            out[i] = i;
        return n;
    }
    unsigned char *taken = calloc(nvalid, 1);
    uint64_t x = seed;
    size_t k = 0;
    out[k++] = 0;
    if (n > 1) /* a sample of one is the first config alone */
        out[k++] = nvalid - 1;
    if (taken) {
        taken[0] = taken[nvalid - 1] = 1;
        while (k < n) {
            size_t i = (size_t)cutune_splitmix64_below(&x, nvalid);
            if (!taken[i]) {
                taken[i] = 1;
                out[k++] = i;
            }
        }
    }
    free(taken);
    return k;
}
