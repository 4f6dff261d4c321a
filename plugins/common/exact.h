/* Exact device-side checks for outputs that must be bit-identical to a reference computed
 * on the device (exact.cu): transpose and matadd. Plugin-side code. */
#ifndef CUTUNE_PLUGINS_EXACT_H
#define CUTUNE_PLUGINS_EXACT_H

#include <stddef.h>

#include "cutune/plugin.h"

/* Launch one of exact.cu's reference kernels (by name) over `n` elements with args. */
int exact_run_reference(const CutuneHost *host, const char *kernel, size_t n, void **args);

/* Compare n 32-bit words of out and ref on the device. *bad receives the number that
 * differ and *first the lowest differing index (n when none). */
int exact_compare(const CutuneHost *host, const void *out, const void *ref, size_t n, size_t *bad,
                  size_t *first);

#endif
