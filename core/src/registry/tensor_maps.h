/* TMA tensor maps of a variant as data (tensor_maps.c): its [tensor_map.NAME] and
 * [tensor_map.NAME.LAYOUT] sections, compiled against the op's signature and evaluated, with
 * the launch geometry, for a config and a problem into a CutuneTensorMaps, the plain struct
 * that travels to the worker (proto.h) and that the worker and cutune_launch encode
 * (worker/tensor_map.h) into the kernel's extra CUtensorMap parameters. */
#ifndef CUTUNE_TENSOR_MAPS_H
#define CUTUNE_TENSOR_MAPS_H

#include <stdint.h>

#include "cutune/op.h"
#include "space.h"

#define CUTUNE_MAX_TENSOR_MAPS 4
#define CUTUNE_TENSOR_MAP_RANK_MAX 5 /* cuTensorMapEncodeTiled's rank without interleave */

/* One map for one config and problem. With enabled 0 the kernel gets 128 zero bytes. */
typedef struct CutuneTensorMap {
    char name[CUTUNE_NAME_MAX]; /* the argument's name in the op's signature */
    int arg;                    /* its index there: the address is *(void **)args[arg] */
    int enabled;
    int rank;                                 /* 1..5 */
    int dtype;                                /* CutuneDtype: the element type */
    int swizzle;                              /* bytes: 0, 32, 64 or 128 */
    int64_t dims[CUTUNE_TENSOR_MAP_RANK_MAX]; /* extents in elements, innermost first */
    uint32_t box[CUTUNE_TENSOR_MAP_RANK_MAX];
} CutuneTensorMap;

/* A config's maps, in the order their names first appear in the file: the kernel's
 * parameters after the op's signature. n 0: none (C plugins, library variants). */
typedef struct CutuneTensorMaps {
    int n;
    CutuneTensorMap map[CUTUNE_MAX_TENSOR_MAPS];
} CutuneTensorMaps;

/* A space's sections, compiled. */
typedef struct CutuneTensorMapSpecs CutuneTensorMapSpecs;

/* Compile the sections of `sp` (a variant as data of op `op`); *out NULL when it has none.
 * Refused with CUTUNE_ERR_PARSE, "path:line: what; how to fix": an unknown layout, a NAME
 * that is not a pointer parameter of op->signature, a missing dims, box or swizzle, dims and
 * box of different counts or more than 5, an expression that does not compile, more maps
 * than CUTUNE_MAX_TENSOR_MAPS or than the kernel has parameters left after the op's. */
int cutune_tensor_maps_open(const CutuneSpace *sp, const CutuneOp *op, CutuneTensorMapSpecs **out,
                            CutuneError *err);
void cutune_tensor_maps_free(CutuneTensorMapSpecs **specs);
/* How many maps the sections of sp make (distinct NAMEs): the kernel's parameters after the
 * op's. */
int cutune_tensor_maps_count(const CutuneSpace *sp);

/* Evaluate the maps for a problem: `vals` are the space's symbol values
 * (cutune_space_symbol_values). specs NULL gives n = 0. Returns 0, or CUTUNE_ERR_RESOURCES
 * with `why` naming the file, the section and what is wrong (an expression that cannot be
 * evaluated, a box or extent outside what TMA takes, a stride not a multiple of 16 bytes, a
 * swizzle narrower than the box's row): the config cannot run there. */
int cutune_tensor_maps_eval(const CutuneTensorMapSpecs *specs, const int64_t *vals,
                            const CutuneProblem *p, CutuneTensorMaps *out, char *why, size_t len);

#endif
