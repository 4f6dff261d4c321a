/* Content hashing for cache keys and source identities. */
#include "util.h"

#include <stdio.h>
#include <string.h>

#define FNV_PRIME 0x100000001b3ULL

void cutune_hash_init(CutuneHash *h)
{
    h->a = 0xcbf29ce484222325ULL; /* the FNV-1a offset basis */
    h->b = 0x84222325cbf29ce4ULL; /* a second lane with another basis */
}

void cutune_hash_update(CutuneHash *h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) {
        h->a = (h->a ^ p[i]) * FNV_PRIME;
        h->b = (h->b ^ (unsigned char)(p[i] + 0x5b)) * FNV_PRIME;
    }
}

void cutune_hash_str(CutuneHash *h, const char *s)
{
    cutune_hash_update(h, s, strlen(s) + 1);
}

void cutune_hash_strs(CutuneHash *h, const char *const *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        cutune_hash_str(h, s[i]);
}

void cutune_hash_hex(const CutuneHash *h, char out[33])
{
    snprintf(out, 33, "%016llx%016llx", (unsigned long long)cutune_mix64(h->a ^ (h->b << 1)),
             (unsigned long long)cutune_mix64(h->b ^ (h->a >> 1)));
}
