/* C variant plugins, and what closes and hashes any variant (variant_plugin.c). */
#ifndef CUTUNE_VARIANT_PLUGIN_H
#define CUTUNE_VARIANT_PLUGIN_H

#include "registry_defs.h"

/* A C variant plugin: dlopen, the ABI and the fields every variant plugin must set. Its
 * op is resolved by the registry (out->op is NULL here). */
int cutune_variant_plugin_open(const char *path, CutuneVariantDef *out, CutuneError *err);
void cutune_variant_close(CutuneVariantDef *v);
/* v->source_hash from its source and kernel name: what trials and the database key on. */
void cutune_variant_hash(CutuneVariantDef *v);

/* The descriptor of a library variant (cutune/plugin.h, ABI 1.5: its configs are calls
 * through library_prepare and library_run, and it has no kernel to compile), or NULL for a
 * variant that launches a kernel. */
const CutuneVariant *cutune_variant_library(const CutuneVariantDef *v);
/* 1 when a descriptor sets the library fields (within its ABI minor and struct_size). */
int cutune_plugin_is_library(const CutuneVariant *v);

/* A C plugin's launch_geometry of cfg for p, the device's SM count and compute capability
 * (e.g. 90) passed as the pseudo-parameters SM_COUNT and CC after cfg's own (ABI 1.2).
 * Returns the callback's result, -1 out of memory. */
int cutune_plugin_geometry(const CutuneVariant *v, const CutuneConfig *cfg, const CutuneProblem *p,
                           int sm_count, int cc, CutuneLaunch *out);

#endif
