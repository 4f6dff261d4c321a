/* The memory services of a host table whose "device" memory is host memory, and a fail that
 * keeps its message, for CPU tests of ops' code (cutune/op.h): the rest of the table
 * (reference kernels, comparisons) each test emulates itself. */
#ifndef CUTUNE_TESTS_FAKE_HOST_H
#define CUTUNE_TESTS_FAKE_HOST_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutune/op.h"

static inline int fake_alloc(void *ctx, size_t bytes, void **p)
{
    (void)ctx;
    *p = calloc(1, bytes ? bytes : 1);
    return *p ? 0 : CUTUNE_ERR_NOMEM;
}

static inline void fake_free(void *ctx, void *p)
{
    (void)ctx;
    free(p);
}

static inline int fake_copy(void *ctx, void *dst, const void *src, size_t bytes)
{
    (void)ctx;
    memmove(dst, src, bytes);
    return 0;
}

static inline int fake_memset(void *ctx, void *p, int byte, size_t bytes)
{
    (void)ctx;
    memset(p, byte, bytes);
    return 0;
}

/* The message of the last host->fail through fake_fail. */
static char fake_failure[512];

static inline int fake_fail(void *ctx, int code, const char *fmt, ...)
{
    (void)ctx;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(fake_failure, sizeof fake_failure, fmt, ap);
    va_end(ap);
    return code;
}

/* A table with those services and the seeded generator (host.h); the caller adds the rest. */
#define FAKE_HOST_MEMORY \
    .abi_major = CUTUNE_ABI_MAJOR, .abi_minor = CUTUNE_ABI_MINOR, \
    .struct_size = sizeof(CutuneHost), .dev_alloc = fake_alloc, .dev_free = fake_free, \
    .copy_to_device = fake_copy, .copy_to_host = fake_copy, .dev_memset = fake_memset, \
    .random_uniform = cutune_random_uniform

#endif
