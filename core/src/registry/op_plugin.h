/* Ops: their plugins and what the core asks of a contract (op_plugin.c). */
#ifndef CUTUNE_OP_PLUGIN_H
#define CUTUNE_OP_PLUGIN_H

#include "registry_defs.h"

/* An op plugin (cutune_op), or the contract of a self-contained C variant plugin
 * (cutune_plugin_variant with every contract field set). The message names the file and
 * what is wrong. */
int cutune_op_open(const char *path, CutuneOpDef *out, CutuneError *err);
void cutune_op_close(CutuneOpDef *d);
/* Check an op descriptor as the loader does (path names it in messages). */
int cutune_op_validate(const char *path, const CutuneOp *op, CutuneError *err);
/* The contract fields of a C variant plugin as an op (into d->own); the plugin must set
 * every one of them. */
int cutune_op_from_variant(const char *path, const CutuneVariant *v, CutuneOpDef *d,
                           CutuneError *err);

/* The op's problem_distance, or NULL (the core's log distance applies). */
typedef double (*CutuneDistanceFn)(const CutuneProblem *a, const CutuneProblem *b);
CutuneDistanceFn cutune_op_distance(const CutuneOpDef *op);
/* 1 when the op computes p's element type and layout (CutuneOp.dtypes, layouts), else 0
 * with `why` filled. */
int cutune_op_takes_kind(const CutuneOp *op, const CutuneProblem *p, char *why, size_t len);
/* The element type and layout, then the op's check_problem (which may normalise p): 0, or
 * -1 with `why` filled. */
int cutune_op_problem_check(const CutuneOp *op, CutuneProblem *p, char *why, size_t len);
/* Is `name` in a comma-separated list of names (NULL: the one name `dflt`)? */
int cutune_kind_listed(const char *list, const char *name, const char *dflt);
/* A ragged problem near p (CutuneOp.ragged_problem, or the core's rule: each even
 * dimension > 1 less one), checked as a problem of the op. 0 with *out filled (*out may
 * equal *p); CUTUNE_ERR_NOT_FOUND with `why` filled when there is none. */
int cutune_op_ragged(const CutuneOpDef *op, const CutuneProblem *p, CutuneProblem *out, char *why,
                     size_t len);

#endif
