/* Device-side comparison of a float output with a double reference (compare.cu), for any
 * op whose output is a float array. Plugin-side code: it uses only the host services. */
#ifndef CUTUNE_PLUGINS_COMPARE_H
#define CUTUNE_PLUGINS_COMPARE_H

#include <stddef.h>

#include "cutune/plugin.h"

/* out, ref, mag: device arrays of n elements. An element passes when
 * |out - ref| <= gamma * mag; the whole output passes when every element does and the
 * relative Frobenius error sqrt(sum (out-ref)^2 / sum ref^2) is at most norm_tol. */
int cutune_compare_f32(const CutuneHost *host, const float *out, const double *ref,
                       const double *mag, size_t n, double gamma, double norm_tol,
                       const char *(*describe)(size_t index, void *user, char *buf, size_t len),
                       void *user, CutuneCheck *result);

#endif
