/* What the rest of the core asks of a variant, data or C plugin (variant.c). */
#ifndef CUTUNE_VARIANT_H
#define CUTUNE_VARIANT_H

#include "registry_defs.h"

/* Its tuning space, read now with its op's dimensions (the caller frees it). */
int cutune_variant_load_space(const CutuneVariantDef *v, CutuneSpace **out, CutuneError *err);
/* Every default size of the space ([problems]) is a size of the op; else an error naming
 * the file, the line and how a size of the op is written. */
int cutune_space_check_sizes(const CutuneSpace *sp, const CutuneOp *op, CutuneError *err);
/* Parse a size string and check it against the op: "<variant>: problem size '...' is not
 * valid: <why>" on failure. */
int cutune_variant_problem(const CutuneVariantDef *v, const char *size, CutuneProblem *p,
                           CutuneError *err);
/* 1 when the variant computes p's element type, layout and epilogue ([variant] dtypes,
 * layouts, epilogues). */
int cutune_variant_takes(const CutuneVariantDef *v, const CutuneProblem *p);
/* The architecture to compile the variant for on a device of compute capability `arch`
 * (e.g. 90): arch itself, or its arch-specific target (compile.h, CUTUNE_ARCH_SPECIFIC) for a
 * variant with a target; -1 when the variant does not run there. */
int cutune_variant_arch(const CutuneVariantDef *v, int arch);
/* A problem with no dimensions in the first element type and layout the variant lists
 * (what `cutune check` compiles it for). */
void cutune_variant_first_kind(const CutuneVariantDef *v, CutuneProblem *p);
double cutune_variant_flops(const CutuneVariantDef *v, const CutuneProblem *p);
double cutune_variant_bytes(const CutuneVariantDef *v, const CutuneProblem *p);

#endif
