/* A variant's launch geometry (geometry.c). */
#ifndef CUTUNE_GEOMETRY_H
#define CUTUNE_GEOMETRY_H

#include <stdint.h>

#include "registry_defs.h"
#include "tensor_maps.h"

/* A variant's launch, ready to evaluate for configs with these parameter names (the
 * space's, in its order: the names of a data variant's space must match). A data variant's
 * [tensor_map.*] sections are compiled with it (tensor_maps.h says what is refused). */
typedef struct CutuneGeometry CutuneGeometry;
int cutune_geometry_open(const CutuneVariantDef *v, const char *const *names, size_t nparams,
                         CutuneGeometry **out, CutuneError *err);
/* Grid, block and dynamic shared memory of a config (values in the order of the names)
 * for a problem under the device limits `lim`, and its TMA tensor maps into *maps (may be
 * NULL: they are evaluated and checked all the same; n 0 for a variant without any).
 * Returns 0, or CUTUNE_ERR_RESOURCES with `why` saying which [launch] key, [tensor_map.*]
 * section or limit (a division by zero, a block larger than the device allows, a grid past
 * CUDA's limits, an op buffer too small, a box TMA cannot copy): the config cannot run there
 * and is recorded as skipped_resources. Other codes: out of memory. */
int cutune_geometry_eval(const CutuneGeometry *g, const int64_t *values, const CutuneProblem *p,
                         const CutuneLimits *lim, CutuneLaunch *out, CutuneTensorMaps *maps,
                         char *why, size_t len);
void cutune_geometry_free(CutuneGeometry **g);

#endif
