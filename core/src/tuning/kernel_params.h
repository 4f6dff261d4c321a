/* The types of a kernel's parameters against its op's signature (`cutune check`): each
 * parameter's kind (integer, floating point, bool, pointer, struct), size, signedness and
 * alignment, and for a pointer the same of what it points at, as NVRTC sees them. */
#ifndef CUTUNE_KERNEL_PARAMS_H
#define CUTUNE_KERNEL_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#include "cutune/cutune.h"

#define CUTUNE_PARAMS_MAX 64 /* parameters read of a kernel or a signature */

typedef struct CutuneParamTypes {
    int n;                            /* parameters */
    uint64_t code[CUTUNE_PARAMS_MAX]; /* each one's type, as kernel_params.c encodes it */
} CutuneParamTypes;

/* The parameter types of kernel `kernel_name` in `source`, compiled with `defines` for
 * compute_<arch>. CUTUNE_ERR_COMPILE (err holds NVRTC's log) when the source with the
 * probe does not compile. */
int cutune_kernel_param_types(const char *source, const char *kernel_name,
                              const char *const *defines, size_t ndefines, int arch,
                              CutuneParamTypes *out, CutuneError *err);
/* The parameter types of an op's signature ("const float *A, ..., int K"). */
int cutune_signature_param_types(const char *signature, int arch, CutuneParamTypes *out,
                                 CutuneError *err);

/* The first parameter whose type in `kernel` is not the one in `op`: its index, with a
 * sentence in why naming it, its type in the kernel and the op's declaration of it (from
 * `signature`); -1 when every one of the first min(kernel->n, op->n) agrees. A difference
 * in const or volatile is no difference: the argument is passed the same way. */
int cutune_param_mismatch(const CutuneParamTypes *kernel, const CutuneParamTypes *op,
                          const char *signature, char *why, size_t len);
/* The first of the kernel's parameters first..first+n-1 (where a variant's TMA tensor maps go,
 * after the op's arguments) that is not a struct of 128 bytes aligned to 64 (a CUtensorMap):
 * its index, with a sentence in why; -1 when each is one. */
int cutune_param_not_tensor_map(const CutuneParamTypes *kernel, int first, int n, char *why,
                                size_t len);

#endif
