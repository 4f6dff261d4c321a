/* The on-disk cache of compiled kernels: <cache_dir>/kernels/<key>.cubin. Writes go to a
 * temporary file renamed into place, so concurrent tuners never read a partial file. */
#ifndef CUTUNE_KCACHE_H
#define CUTUNE_KCACHE_H

#include <stddef.h>

/* Read the entry for key (32 hex digits); 0 and a malloc'd buffer, or -1 if absent. */
int cutune_kernel_cache_get(const char *cache_dir, const char *key, void **data, size_t *size);
/* 1 when the entry for key is there (a file, not read), else 0. */
int cutune_kernel_cache_has(const char *cache_dir, const char *key);
/* Store an entry; failures are not errors for the caller (the cache is an optimisation),
 * but return -1 so tests can see them. */
int cutune_kernel_cache_put(const char *cache_dir, const char *key, const void *data, size_t size);

#endif
