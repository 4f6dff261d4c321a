/* The registry: the ops and the variants cutune knows, where each came from, what was
 * refused and which names two files define.
 *
 *   ops       op plugins (cutune/op.h), one shared object each, on the plugin path;
 *   variants  variants as data: an INI file with an `op` key and its kernel file, on the
 *             space path (spacekeys.c describes the keys); and C variant plugins
 *             (cutune/plugin.h) on the plugin path, for launches that expressions cannot
 *             say. A C plugin whose op no op plugin provides brings the op itself.
 *
 * The plugin path: each folder of $CUTUNE_PLUGIN_PATH (':'-separated), then the folder
 * beside the library (build/plugins; installed: <libdir>/cutune/plugins). The space path:
 * each folder of $CUTUNE_SPACE_PATH, then the user's folder ($XDG_DATA_HOME/cutune/
 * tuning_spaces, else ~/.local/share/cutune/tuning_spaces), then the shipped folder
 * (build/tuning_spaces; installed: <datadir>/cutune/tuning_spaces).
 *
 * A name that two files define: the first one wins, C plugins before data variants and
 * each path in its order; the other is listed in `shadowed`, naming both files. */
#ifndef CUTUNE_REGISTRY_H
#define CUTUNE_REGISTRY_H

#include <stddef.h>
#include <stdio.h>

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
    char *dtypes, *layouts; /* the element types and layouts it computes, comma-separated
                               names; NULL: fp32 and nn alone */
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

/* A file and a sentence about it. */
typedef struct CutuneRegistryNote {
    char *path;
    char *text;
    char *op;       /* the op the file names, NULL when it could not be read that far */
    int is_variant; /* an INI on the space path (not a shared object) */
} CutuneRegistryNote;

typedef struct CutuneRegistry {
    CutuneOpDef **ops;
    size_t nops;
    CutuneVariantDef **variants; /* C plugins first, then data variants, each in path order */
    size_t nvariants;
    CutuneRegistryNote *rejected; /* files refused, and why (file, line, fix) */
    size_t nrejected;
    CutuneRegistryNote *shadowed; /* names defined again: which file wins */
    size_t nshadowed;
    char **plugin_dirs, **space_dirs; /* the folders searched, in order */
    size_t nplugin_dirs, nspace_dirs;
} CutuneRegistry;

/* Load every op and variant of the two paths. A bad file is recorded in `rejected` and
 * the others still load; only running out of memory fails. */
int cutune_registry_load(CutuneRegistry *r, CutuneError *err);
void cutune_registry_free(CutuneRegistry *r);
const CutuneVariantDef *cutune_registry_find(const CutuneRegistry *r, const char *variant);
const CutuneOpDef *cutune_registry_op(const CutuneRegistry *r, const char *op);
/* The variants of an op (only `variant` when non-NULL), in registry order; returns how
 * many (at most max). */
size_t cutune_registry_variants_of(const CutuneRegistry *r, const char *op, const char *variant,
                                   const CutuneVariantDef **out, size_t max);
/* The refused file that would have defined variant `name` (its file is <name>.ini or
 * <name>.so), or NULL. */
const CutuneRegistryNote *cutune_registry_refusal(const CutuneRegistry *r, const char *name);
/* A refused file named like v that comes before v's own file in the registry's order (C
 * plugins first, then each path in its order), or NULL: that file may be the v meant (a
 * user's edited copy of a shipped variant, say), so v is not tuned in its place. */
const CutuneRegistryNote *cutune_registry_blocked(const CutuneRegistry *r,
                                                  const CutuneVariantDef *v);
/* Before tuning `op` (only `variant` when non-NULL). A refused variant file that may belong
 * to the op (it names the op, or could not be read far enough to say, or has the file name
 * of one of the op's variants) leaves that variant out, and the others are tuned: each is a
 * note on `log` (may be NULL), and *refused counts them. It is an error (CUTUNE_ERR_PARSE,
 * listing them) when no variant of the op is left, or when `variant` is named and its file
 * was refused. A variant name of the op that two files define is a note on `log`. */
int cutune_registry_vet_op(const CutuneRegistry *r, const char *op, const char *variant, FILE *log,
                           size_t *refused, CutuneError *err);
/* "matmul, transpose, ..." into buf: the ops, for messages. */
void cutune_registry_op_names(const CutuneRegistry *r, char *buf, size_t len);

/* The folders of the space path, in order (see above); *dirs is malloc'd, free it with
 * cutune_path_list_free. */
int cutune_space_dirs(char ***dirs, size_t *n, CutuneError *err);
void cutune_path_list_free(char **dirs, size_t n);
/* The space file of a C variant plugin, <variant>.ini on the space path. */
int cutune_space_path(const char *variant, char *buf, size_t len, CutuneError *err);

/* 1 when s is a name: letters, digits and '_', not empty. */
int cutune_is_name(const char *s);
/* 1 when s is a C++ identifier that may name a kernel: a name that does not begin with a
 * digit and is not a keyword. */
int cutune_is_identifier(const char *s);

/* ---- one file at a time (registry.c uses these; the worker opens a contract by path) ---- */

/* dlopen path (RTLD_NOW | RTLD_LOCAL) and look up symbol: 0 with *handle set and *entry the
 * function it exports under that name (NULL when it exports none), or CUTUNE_ERR_PLUGIN
 * ("PATH: cannot load: ...") with both NULL. */
int cutune_plugin_dlopen(const char *path, const char *symbol, void **handle, void (**entry)(void),
                         CutuneError *err);

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

/* A C variant plugin: dlopen, the ABI and the fields every variant plugin must set. Its
 * op is resolved by the registry (out->op is NULL here). */
int cutune_variant_plugin_open(const char *path, CutuneVariantDef *out, CutuneError *err);
/* A variant as data: the INI at path, whose op is `op` (dims, checks), its sources found
 * beside it, then in space_dirs. The message names the file, the line and a fix. */
int cutune_variant_data_open(const char *path, const CutuneOpDef *op, char *const *space_dirs,
                             size_t nspace_dirs, CutuneVariantDef *out, CutuneError *err);
/* A C variant plugin's element types and layouts ([variant] dtypes and layouts of its
 * <name>.ini, the first on space_dirs), checked against its op (v->op) as a data variant's
 * are; none given, or no such file: fp32 and nn. The message names the file and the line. */
int cutune_variant_plugin_kinds(CutuneVariantDef *v, char *const *space_dirs, size_t nspace_dirs,
                                CutuneError *err);
void cutune_variant_close(CutuneVariantDef *v);
/* The kernel file of a data variant (its `source`, without the headers), found as when it
 * loaded. CUTUNE_ERR_NOT_FOUND for a C plugin or a file gone since. */
int cutune_variant_source_path(const CutuneVariantDef *v, char *const *space_dirs,
                               size_t nspace_dirs, char *buf, size_t len);
/* v->source_hash from its source and kernel name: what trials and the database key on. */
void cutune_variant_hash(CutuneVariantDef *v);

/* ---- what the rest of the core asks of a variant ---- */

/* The descriptor of a library variant (cutune/plugin.h, ABI 1.5: its configs are calls
 * through library_prepare and library_run, and it has no kernel to compile), or NULL for a
 * variant that launches a kernel. */
const CutuneVariant *cutune_variant_library(const CutuneVariantDef *v);
/* 1 when a descriptor sets the library fields (within its ABI minor and struct_size). */
int cutune_plugin_is_library(const CutuneVariant *v);

/* Its tuning space, read now with its op's dimensions (the caller frees it). */
int cutune_variant_load_space(const CutuneVariantDef *v, CutuneSpace **out, CutuneError *err);
/* Every default size of the space ([problems]) is a size of the op; else an error naming
 * the file, the line and how a size of the op is written. */
int cutune_space_check_sizes(const CutuneSpace *sp, const CutuneOp *op, CutuneError *err);
/* Parse a size string and check it against the op: "<variant>: problem size '...' is not
 * valid: <why>" on failure. */
int cutune_variant_problem(const CutuneVariantDef *v, const char *size, CutuneProblem *p,
                           CutuneError *err);
/* 1 when the variant computes p's element type and layout ([variant] dtypes, layouts). */
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
/* The optional op fields, NULL when the op's struct_size does not reach them. */
#define CUTUNE_OP_FIELD(op, field) \
    ((op)->struct_size >= offsetof(CutuneOp, field) + sizeof((op)->field) ? (op)->field : NULL)

/* ---- launch geometry (geometry.c) ---- */

/* A variant's launch, ready to evaluate for configs with these parameter names (the
 * space's, in its order: the names of a data variant's space must match). */
typedef struct CutuneGeometry CutuneGeometry;
int cutune_geometry_open(const CutuneVariantDef *v, const char *const *names, size_t nparams,
                         CutuneGeometry **out, CutuneError *err);
/* Grid, block and dynamic shared memory of a config (values in the order of the names)
 * for a problem under the device limits `lim`. Returns 0, or CUTUNE_ERR_RESOURCES with
 * `why` saying which [launch] key or limit (a division by zero, a block larger than the
 * device allows, a grid past CUDA's limits, an op buffer too small): the config cannot
 * run there and is recorded as skipped_resources. Other codes: out of memory. */
int cutune_geometry_eval(const CutuneGeometry *g, const int64_t *values, const CutuneProblem *p,
                         const CutuneLimits *lim, CutuneLaunch *out, char *why, size_t len);
void cutune_geometry_free(CutuneGeometry **g);

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

/* A C plugin's launch_geometry of cfg for p, the device's SM count and compute capability
 * (e.g. 90) passed as the pseudo-parameters SM_COUNT and CC after cfg's own (ABI 1.2).
 * Returns the callback's result, -1 out of memory. */
int cutune_plugin_geometry(const CutuneVariant *v, const CutuneConfig *cfg, const CutuneProblem *p,
                           int sm_count, int cc, CutuneLaunch *out);

#endif
