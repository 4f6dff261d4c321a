/* Encoding a config's TMA tensor maps (registry/tensor_maps.h) into the CUtensorMap
 * parameters its kernel takes after the op's arguments: the worker's trials (measure.c) and
 * applications' launches (lookup/launch.c). cuTensorMapEncodeTiled is a driver function;
 * cutune links no CUDA library, so it is fetched once through the runtime it opened
 * (cudaGetDriverEntryPointByVersion). */
#ifndef CUTUNE_TENSOR_MAP_H
#define CUTUNE_TENSOR_MAP_H

#include <cuda.h>
#include <stddef.h>

#include "tensor_maps.h"

/* Encode map i of `maps` on the address its argument holds (*(void **)args[map.arg], one
 * of the op's nargs arguments) into out[i], 128 zero bytes for a map not enabled, and point
 * args[nargs + i] at out[i]; args holds CUTUNE_MAX_KERNEL_ARGS pointers. A map on an address
 * not 16-byte aligned cannot be made: it is 128 zero bytes too, and a kernel that takes maps
 * checks its pointers' alignment before it uses one (an application's buffer may be a view at
 * any offset; the kernel then copies without TMA). Returns 0, or with `why` filled:
 * CUTUNE_ERR_INVALID when the maps do not fit the arguments,
 * CUTUNE_ERR_NOT_FOUND when the driver has no cuTensorMapEncodeTiled, CUTUNE_ERR_CUDA when
 * it refuses a map (its CUresult). */
int cutune_tensor_maps_encode(const CutuneTensorMaps *maps, void **args, int nargs,
                              CUtensorMap *out, char *why, size_t len);

#endif
