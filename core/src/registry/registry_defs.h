/* What every file of the registry shares: an op and a variant as the registry holds them,
 * and the fields a plugin descriptor must set. Types and macros only; the functions are
 * in the header of the file that defines them (registry.h includes them all). */
#ifndef CUTUNE_REGISTRY_DEFS_H
#define CUTUNE_REGISTRY_DEFS_H

#include <stddef.h>

#include "cutune/cutune.h"
#include "cutune/plugin.h"
#include "space.h"

/* An op: its contract and where it came from. */
typedef struct CutuneOpDef {
    const CutuneOp *op; /* the contract (points at `own` for a self-contained C plugin) */
    char *path;         /* the op plugin, or the C variant plugin that defines the op */
    void *handle;       /* dlopen handle of an op plugin; NULL when a variant owns it */
    CutuneOp own;       /* the contract of a self-contained C variant plugin */
} CutuneOpDef;

/* A variant: a kernel, its space, its launch, and the op it keeps the contract of. */
typedef struct CutuneVariantDef {
    char *name, *op_name, *version, *summary, *kernel_name;
    char *dtypes, *layouts, *epilogues; /* the element types, layouts and epilogues it
                                           computes, comma-separated names; NULL: fp32, nn
                                           and none alone */
    int target;             /* [variant] target = sm_90a: 90 (compiled for sm_90a, runs only
                               on compute capability 9.0); 0: any device */
    int opt_in;             /* 1 ([variant] main_job = no): its default sizes are left out of
                               a run of the whole op, and tuned when it is named (--variant)
                               or its element type is asked for (--dtype) */
    char *source;           /* what NVRTC compiles: the headers, then the kernel file; NULL,
                               as kernel_name, for a library variant */
    char source_hash[33];   /* trials are kept per (variant, version, source hash) */
    char *path;             /* the INI of a data variant, the .so of a C variant plugin */
    const CutuneOpDef *op;  /* the contract */
    CutuneSpace *space;     /* data variants: the space file, read with the op's dimensions */
    void *handle;           /* C variant plugins: the dlopen handle */
    const CutuneVariant *v; /* C variant plugins: the descriptor; NULL for data variants */
} CutuneVariantDef;


/* The optional op fields, NULL when the op's struct_size does not reach them. */
#define CUTUNE_OP_FIELD(op, field) \
    ((op)->struct_size >= offsetof(CutuneOp, field) + sizeof((op)->field) ? (op)->field : NULL)

/* A field a plugin descriptor must set: its name and its value (data or a function). */
typedef struct CutuneField {
    const char *name;
    const void *ptr;
} CutuneField;

/* A function pointer as a CutuneField's value. */
#define CUTUNE_FIELD_FN(f) ((const void *)(size_t)(f))

/* The hooks of an op's contract, from check_problem to bytes, in a descriptor `d` that has
 * them (a CutuneOp, or a CutuneVariant that brings its own op). */
/* clang-format off */
#define CUTUNE_CONTRACT_FIELDS(d) \
    {"check_problem", CUTUNE_FIELD_FN((d)->check_problem)}, \
    {"setup", CUTUNE_FIELD_FN((d)->setup)}, \
    {"kernel_args", CUTUNE_FIELD_FN((d)->kernel_args)}, \
    {"poison_output", CUTUNE_FIELD_FN((d)->poison_output)}, \
    {"check", CUTUNE_FIELD_FN((d)->check)}, \
    {"teardown", CUTUNE_FIELD_FN((d)->teardown)}, \
    {"flops", CUTUNE_FIELD_FN((d)->flops)}, \
    {"bytes", CUTUNE_FIELD_FN((d)->bytes)}
/* clang-format on */

/* 0 when every field of fields[0..n) is set; otherwise CUTUNE_ERR_PLUGIN with "PATH:
 * required KIND field 'NAME' is NULL; FIX" in err, for the first that is NULL. */
static inline int cutune_fields_required(const CutuneField *fields, size_t n, const char *path,
                                         const char *kind, const char *fix, CutuneError *err)
{
    for (size_t i = 0; i < n; i++)
        if (!fields[i].ptr)
            return cutune_error(err, CUTUNE_ERR_PLUGIN, "%s: required %s field '%s' is NULL; %s",
                                path, kind, fields[i].name, fix);
    return 0;
}

#endif
