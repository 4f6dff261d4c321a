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

/* The verdict of an exact check of n floats: passed when every one equals ref; error is
 * the number that differ, and the message names the first as name[row][col] for rows of
 * row_len elements, with its value and the expected one. Returns 0 when the check ran. */
int exact_check_f32(const CutuneHost *host, const float *out, const float *ref, size_t n,
                    const char *name, size_t row_len, CutuneCheck *verdict);

#endif
