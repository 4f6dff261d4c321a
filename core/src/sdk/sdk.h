/* The op SDK: the host services of cutune/op.h that ops share (comparisons on the device,
 * the cudaMemcpy yardstick). host.c puts them in the CutuneHost table; they use only the
 * table's own services, so they run wherever a host table does. */
#ifndef CUTUNE_SDK_H
#define CUTUNE_SDK_H

#include "cutune/op.h"

int cutune_sdk_compare_f32(const CutuneHost *host, const CutuneCompareF32 *spec,
                           CutuneCheck *verdict);
int cutune_sdk_compare_exact(const CutuneHost *host, const void *out, const void *ref, size_t n,
                             size_t *bad, size_t *first);
/* cudaMemcpy device-to-device of bytes / 2 bytes between two buffers it allocates (freed
 * by out->close). */
int cutune_sdk_memcpy_yardstick(const CutuneHost *host, double bytes, CutuneYardstick *out);

#endif
