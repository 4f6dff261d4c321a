/* The lookup cache: an in-memory map from a lookup key (device UUID, op, size) to its
 * answer, misses included. Open addressing with linear probing; it only grows (entries
 * live as long as the handle: see cutune/lookup.h on invalidation). Not thread-safe: the
 * lookup handle's mutex guards it. */
#ifndef CUTUNE_LCACHE_H
#define CUTUNE_LCACHE_H

#include <stddef.h>

#include "cutune/lookup.h"

typedef struct CutuneLookupCacheEntry {
    char *key; /* NULL: empty slot */
    int rc;    /* 0 or CUTUNE_ERR_NOT_FOUND */
    CutuneLookupResult result;
} CutuneLookupCacheEntry;

typedef struct CutuneLookupCache {
    CutuneLookupCacheEntry *slots;
    size_t cap, count; /* cap is 0 or a power of two */
} CutuneLookupCache;

/* Write the key of (uuid, op, size) into buf; fields are joined by '\x1f' (never in a UUID,
 * an op name or a size). Returns its length, or 0 if it does not fit. */
size_t cutune_lookup_cache_key(char *buf, size_t len, const char *uuid, const char *op,
                               const char *size);
/* The entry for key, or NULL. */
const CutuneLookupCacheEntry *cutune_lookup_cache_get(const CutuneLookupCache *c, const char *key);
/* Insert (or replace) the entry for key; copies key and result. CUTUNE_ERR_NOMEM on failure. */
int cutune_lookup_cache_put(CutuneLookupCache *c, const char *key, int rc,
                            const CutuneLookupResult *r);
void cutune_lookup_cache_free(CutuneLookupCache *c);

#endif
