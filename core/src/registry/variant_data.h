/* Variants as data: an INI with an `op` key and its kernel file (variant_data.c). */
#ifndef CUTUNE_VARIANT_DATA_H
#define CUTUNE_VARIANT_DATA_H

#include "registry_defs.h"

/* A variant as data: the INI at path, whose op is `op` (dims, checks), its sources found
 * beside it, then in space_dirs. The message names the file, the line and a fix. */
int cutune_variant_data_open(const char *path, const CutuneOpDef *op, char *const *space_dirs,
                             size_t nspace_dirs, CutuneVariantDef *out, CutuneError *err);
/* A C variant plugin's element types, layouts and epilogues ([variant] dtypes, layouts and
 * epilogues of its <name>.ini, the first on space_dirs), checked against its op (v->op) as a
 * data variant's are; none given, or no such file: fp32, nn and none. The message names the
 * file and the line. */
int cutune_variant_plugin_kinds(CutuneVariantDef *v, char *const *space_dirs, size_t nspace_dirs,
                                CutuneError *err);
/* The kernel file of a data variant (its `source`, without the headers), found as when it
 * loaded. CUTUNE_ERR_NOT_FOUND for a C plugin or a file gone since. */
int cutune_variant_source_path(const CutuneVariantDef *v, char *const *space_dirs,
                               size_t nspace_dirs, char *buf, size_t len);

#endif
