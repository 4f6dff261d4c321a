/* Small utilities shared inside the core: hashing, paths, time, problem sizes, text, the
 * seeded generator and the comparator of doubles. */
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
/* cutune_hash_str of s[0], ..., s[n - 1] in turn: a cache key's parts. */
void cutune_hash_strs(CutuneHash *h, const char *const *s, size_t n);
void cutune_hash_hex(const CutuneHash *h, char out[33]);

/* Folder of libcutune (build/core/ or <libdir>/), also from a program that has the library
 * linked in (the cutune command, the worker): the worker, plugins and spaces are found from it. */
int cutune_lib_dir(char *buf, size_t len);
/* The one place that reads the XDG base directories: $var when it is set and not empty (var
 * may be NULL: none); else cutune's file or folder `sub` ("" for the folder itself) under
 * $XDG_DATA_HOME/cutune (CUTUNE_XDG_DATA) or $XDG_CACHE_HOME/cutune (CUTUNE_XDG_CACHE), when
 * the variable holds an absolute path (the XDG spec ignores a relative one); else under
 * $HOME/.local/share/cutune or $HOME/.cache/cutune. 0; CUTUNE_ERR_NOT_FOUND when HOME is not
 * set either; CUTUNE_ERR_RANGE when buf is too short. No message: the caller says what the
 * path was for. */
typedef enum { CUTUNE_XDG_DATA, CUTUNE_XDG_CACHE } CutuneXdgBase;
int cutune_xdg_path(const char *var, CutuneXdgBase base, const char *sub, char *buf, size_t len);
/* Kernel cache folder: cutune_xdg_path("CUTUNE_CACHE_DIR", CUTUNE_XDG_CACHE, ""). */
int cutune_cache_dir(char *buf, size_t len, CutuneError *err);
struct stat;
/* 0 when st (of an existing path) is a regular file, checked before the file is opened: a
 * FIFO would hang the open, and a device or a folder holds no data to read. Else `code`,
 * with "PATH is not WHAT (it is a FIFO); FIX". */
int cutune_check_regular(const char *path, const struct stat *st, int code, const char *what,
                         const char *fix, CutuneError *err);
/* mkdir -p with mode 0755. An error names the folder that could not be made. */
int cutune_mkdir_p(const char *path, CutuneError *err);
/* Seconds on a monotonic clock. */
double cutune_now(void);

/* Parse "4096x4096x4096" (1 to CUTUNE_MAX_DIMS positive integers separated by 'x', each
 * at most 2^31-1), optionally followed by an element type and a layout, "-bf16-nt" (the
 * names of cutune/op.h). Errors say what is wrong with the text. */
int cutune_problem_parse(const char *text, CutuneProblem *p, CutuneError *err);
/* Canonical text of a problem ("4096x4096x4096", "4096x4096x4096-bf16-nt": the type and
 * the layout only where they are not fp32 and nn). */
void cutune_problem_format(const CutuneProblem *p, char *buf, size_t len);

/* ---- text (text.c) ------------------------------------------------------------------ */

/* Move *s and shrink *len past leading and trailing white space. */
void cutune_trim(const char **s, size_t *len);
/* The same on a NUL-terminated string: cuts the trailing space, returns the first non-space. */
char *cutune_trim_in_place(char *s);

/* The results of cutune_parse_i64 besides 0. */
enum { CUTUNE_I64_NOT_INTEGER = -1, CUTUNE_I64_RANGE = -2 };
/* Strict decimal int64 of the len bytes at s: an optional sign, then digits only, nothing
 * else (no space). 0 and *out set; CUTUNE_I64_NOT_INTEGER when any byte is not part of an
 * integer (also when the digits overflow too); CUTUNE_I64_RANGE for an integer outside
 * int64. *out is untouched on failure. */
int cutune_parse_i64(const char *s, size_t len, int64_t *out);
/* The same grammar as sign and magnitude, for callers with their own range (the CLI's
 * unsigned options): 0 with *neg (never set for 0) and *mag; CUTUNE_I64_NOT_INTEGER as
 * above; CUTUNE_I64_RANGE for a magnitude over UINT64_MAX. */
int cutune_parse_whole(const char *s, size_t len, int *neg, uint64_t *mag);

/* Copy src (NULL: "") into dst[len], cut to fit and always terminated (len > 0). */
void cutune_copy_str(char *dst, size_t len, const char *src);

/* ---- order and randomness ------------------------------------------------------------ */

/* qsort comparator of doubles, ascending (NaN compares equal to everything). */
static inline int cutune_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* splitmix64's finaliser: spreads every input bit over the output. */
static inline uint64_t cutune_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* splitmix64: the one seeded generator of the core. Advances *state, returns 64 bits. */
static inline uint64_t cutune_splitmix64(uint64_t *state)
{
    return cutune_mix64(*state += 0x9e3779b97f4a7c15ULL);
}

/* Uniform in [0, n) from splitmix64, unbiased (rejection); n > 0. */
static inline uint64_t cutune_splitmix64_below(uint64_t *state, uint64_t n)
{
    uint64_t limit = UINT64_MAX - UINT64_MAX % n, x;
    do
        x = cutune_splitmix64(state);
    while (x >= limit);
    return x % n;
}

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
