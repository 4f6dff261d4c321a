/* Small utilities shared inside the core: hashing, paths, time, problem sizes. */
#ifndef CUTUNE_UTIL_H
#define CUTUNE_UTIL_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "cutune/cutune.h"
#include "cutune/plugin.h"

/* A 128-bit content hash (two independent 64-bit FNV-1a lanes with a final mix), written
 * as 32 hex digits. Not cryptographic: it keys caches and identifies kernel sources. */
typedef struct CutuneHash {
    uint64_t a, b;
} CutuneHash;
void cutune_hash_init(CutuneHash *h);
void cutune_hash_update(CutuneHash *h, const void *data, size_t len);
/* Adds the string and its terminating NUL, so that ("ab","c") and ("a","bc") differ. */
void cutune_hash_str(CutuneHash *h, const char *s);
void cutune_hash_hex(const CutuneHash *h, char out[33]);

/* Folder of libcutune (build/core/ or <libdir>/), also from a program that has the library
 * linked in (the cutune command, the worker): the worker, plugins and spaces are found from it. */
int cutune_lib_dir(char *buf, size_t len);
/* Kernel cache folder: $CUTUNE_CACHE_DIR, else $XDG_CACHE_HOME/cutune, else
 * $HOME/.cache/cutune. */
int cutune_cache_dir(char *buf, size_t len, CutuneError *err);
/* mkdir -p with mode 0755. */
int cutune_mkdir_p(const char *path, CutuneError *err);
/* Seconds on a monotonic clock. */
double cutune_now(void);

/* Parse "4096x4096x4096" (1 to CUTUNE_MAX_DIMS positive integers separated by 'x', each
 * at most 2^31-1). Errors say what is wrong with the text. */
int cutune_problem_parse(const char *text, CutuneProblem *p, CutuneError *err);
/* Canonical text of a problem ("4096x4096x4096"). */
void cutune_problem_format(const CutuneProblem *p, char *buf, size_t len);

/* ---- checked sizes: every allocation whose size comes from input is computed here -- */

/* *out = a * b; returns 0, or -1 (and *out = SIZE_MAX) when the product overflows. */
static inline int cutune_size_mul(size_t a, size_t b, size_t *out)
{
    if (__builtin_mul_overflow(a, b, out)) {
        *out = SIZE_MAX;
        return -1;
    }
    return 0;
}

/* malloc(n * size), NULL (errno ENOMEM) when the product overflows. n == 0 allocates
 * one element, so that NULL always means failure. */
static inline void *cutune_malloc_array(size_t n, size_t size)
{
    size_t bytes;
    if (cutune_size_mul(n ? n : 1, size ? size : 1, &bytes)) {
        errno = ENOMEM;
        return NULL;
    }
    return malloc(bytes);
}

/* realloc(p, n * size) with the same check; on failure p is left as it was. */
static inline void *cutune_realloc_array(void *p, size_t n, size_t size)
{
    size_t bytes;
    if (cutune_size_mul(n ? n : 1, size ? size : 1, &bytes)) {
        errno = ENOMEM;
        return NULL;
    }
    return realloc(p, bytes);
}

#endif
