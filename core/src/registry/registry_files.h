/* Finding and opening the registry's files (registry_files.c): the space path and dlopen. */
#ifndef CUTUNE_REGISTRY_FILES_H
#define CUTUNE_REGISTRY_FILES_H

#include <stddef.h>

#include "cutune/cutune.h"

/* The folders of the plugin path, in order (registry.h); free them with
 * cutune_path_list_free. 0, or CUTUNE_ERR_NOMEM. */
int cutune_plugin_dirs(char ***dirs, size_t *n);
/* The folders of the space path, in order (registry.h); *dirs is malloc'd, free it with
 * cutune_path_list_free. */
int cutune_space_dirs(char ***dirs, size_t *n, CutuneError *err);
void cutune_path_list_free(char **dirs, size_t n);
/* The space file of a C variant plugin, <variant>.ini on the space path. */
int cutune_space_path(const char *variant, char *buf, size_t len, CutuneError *err);

/* dlopen path (RTLD_NOW | RTLD_LOCAL) and look up symbol: 0 with *handle set and *entry the
 * function it exports under that name (NULL when it exports none), or CUTUNE_ERR_PLUGIN
 * ("PATH: cannot load: ...") with both NULL. */
int cutune_plugin_dlopen(const char *path, const char *symbol, void **handle, void (**entry)(void),
                         CutuneError *err);

#endif
