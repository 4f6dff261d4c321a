/* The one symbol an op plugin exports (cutune/op.h): each op's code names its descriptor
 * cutune_op_<name>() so that benchmarks and tests can link several ops into one program,
 * and this file, built once per op with CUTUNE_OP_GETTER set, exports it as cutune_op. */
#include "cutune/op.h"

const CutuneOp *CUTUNE_OP_GETTER(void);

CUTUNE_PLUGIN_EXPORT const CutuneOp *cutune_op(void)
{
    return CUTUNE_OP_GETTER();
}
