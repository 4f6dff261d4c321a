/* The lookup cache (see lookup_cache.h). */
#include "lookup_cache.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* FNV-1a, 64 bits: keys are short texts, and the table is rebuilt when it grows. */
static uint64_t key_hash(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
    return h;
}

size_t cutune_lookup_cache_key(char *buf, size_t len, const char *uuid, const char *op,
                               const char *size)
{
    int n = snprintf(buf, len, "%s\x1f%s\x1f%s", uuid, op, size);
    return n < 0 || (size_t)n >= len ? 0 : (size_t)n;
}

static CutuneLookupCacheEntry *find_slot(CutuneLookupCacheEntry *slots, size_t cap, const char *key)
{
    size_t i = (size_t)key_hash(key) & (cap - 1);
    while (slots[i].key && strcmp(slots[i].key, key) != 0)
        i = (i + 1) & (cap - 1);
    return &slots[i];
}

const CutuneLookupCacheEntry *cutune_lookup_cache_get(const CutuneLookupCache *c, const char *key)
{
    if (c->cap == 0)
        return NULL;
    const CutuneLookupCacheEntry *e = find_slot(c->slots, c->cap, key);
    return e->key ? e : NULL;
}

/* Double the table (or make the first one) and move every entry over. */
static int grow(CutuneLookupCache *c)
{
    size_t cap = c->cap ? 2 * c->cap : 64;
    CutuneLookupCacheEntry *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return CUTUNE_ERR_NOMEM;
    for (size_t i = 0; i < c->cap; i++)
        if (c->slots[i].key)
            *find_slot(slots, cap, c->slots[i].key) = c->slots[i];
    free(c->slots);
    c->slots = slots;
    c->cap = cap;
    return 0;
}

int cutune_lookup_cache_put(CutuneLookupCache *c, const char *key, int rc,
                            const CutuneLookupResult *r)
{
    if (2 * (c->count + 1) > c->cap && grow(c) != 0) /* load factor at most 1/2 */
        return CUTUNE_ERR_NOMEM;
    CutuneLookupCacheEntry *e = find_slot(c->slots, c->cap, key);
    if (!e->key) {
        if (!(e->key = strdup(key)))
            return CUTUNE_ERR_NOMEM;
        c->count++;
    }
    e->rc = rc;
    e->result = *r;
    return 0;
}

void cutune_lookup_cache_free(CutuneLookupCache *c)
{
    for (size_t i = 0; i < c->cap; i++)
        free(c->slots[i].key);
    free(c->slots);
    memset(c, 0, sizeof *c);
}
