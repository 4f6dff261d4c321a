/* Tuning spaces: parameters with value lists, constraints, default problems.
 * Read from tuning_spaces/<variant>.ini (see spaceini.c for the format) and
 * enumerated into the list of valid configs for a device (and optionally a problem). */
#ifndef CUTUNE_SPACE_H
#define CUTUNE_SPACE_H

#include <stddef.h>
#include <stdint.h>

#include "cutune/cutune.h"
#include "expr.h"

#define CUTUNE_NAME_MAX 64

/* Device limits a constraint may name. Order fixed: it is the symbol order after the
 * parameters and the problem dimensions. */
#define CUTUNE_LIMIT_TABLE(X) \
    X(MAX_THREADS_PER_BLOCK, max_threads_per_block) \
    X(MAX_SHARED_PER_BLOCK, max_shared_per_block) \
    X(MAX_SHARED_PER_SM, max_shared_per_sm) \
    X(MAX_REGS_PER_BLOCK, max_regs_per_block) \
    X(WARP_SIZE, warp_size) \
    X(SM_COUNT, sm_count) \
    X(CC, cc)

/* The limits' names, in the table's order. */
extern const char *const cutune_limit_names[];
#define CUTUNE_NLIMITS 7

typedef struct CutuneLimits {
#define CUTUNE_X_LIMIT_FIELD(NAME, field) int64_t field;
    CUTUNE_LIMIT_TABLE(CUTUNE_X_LIMIT_FIELD)
#undef CUTUNE_X_LIMIT_FIELD
} CutuneLimits;

/* Limits of an H100 SXM (sm_90), used when no device is present (CI, `cutune list`). */
void cutune_limits_sm90(CutuneLimits *out);
/* Limits read off a device. */
void cutune_limits_from_device(const CutuneDeviceInfo *d, CutuneLimits *out);

typedef struct CutuneParam {
    char name[CUTUNE_NAME_MAX];
    int64_t *values;
    size_t nvalues;
    int line; /* line of its section header in the space file */
} CutuneParam;

typedef struct CutuneConstraint {
    char name[CUTUNE_NAME_MAX];
    char *text;
    CutuneExpr *expr;
    int line;
    int uses_problem; /* reads a problem dimension: only checked when a problem is given */
} CutuneConstraint;

/* The longest section name kept with its keys: "tensor_map." NAME "." LAYOUT. */
#define CUTUNE_SECTION_MAX (CUTUNE_NAME_MAX + 48)

/* A key of the [variant], [launch] or [tensor_map.*] sections as written (continuation
 * lines joined with a space): the keys that make a space file a variant as data
 * (spacekeys.c). */
typedef struct CutuneSpaceKey {
    char section[CUTUNE_SECTION_MAX]; /* "variant", "launch" or "tensor_map.A[.nt]" */
    char name[CUTUNE_NAME_MAX];
    char *value;
    int line;
} CutuneSpaceKey;

/* A [tensor_map.NAME] or [tensor_map.NAME.LAYOUT] section header (registry/tensor_maps.c
 * says what its keys mean): the name after the brackets' "tensor_map." prefix, and its
 * line. */
typedef struct CutuneSpaceSection {
    char name[CUTUNE_SECTION_MAX]; /* "A" or "A.nt" */
    int line;
} CutuneSpaceSection;

typedef struct CutuneSpace {
    char *path;    /* the file it was read from */
    char *variant; /* [variant] name */
    int variant_line;
    CutuneParam *params;
    size_t nparams;
    char **dim_names; /* the problem dimensions constraints may use (from the plugin) */
    size_t ndims;
    CutuneConstraint *constraints;
    size_t nconstraints;
    char **problems;    /* default problem size strings, as written */
    int *problem_lines; /* the line each is on */
    size_t nproblems;
    CutuneSpaceKey *keys; /* [variant] keys other than name and description, [launch] and
                             [tensor_map.*] keys */
    size_t nkeys;
    CutuneSpaceSection *tensor_maps; /* the [tensor_map.*] sections, in the file's order */
    size_t ntensor_maps;
} CutuneSpace;

/* Read a space file. dim_names: comma-separated problem dimension names ("M,N,K"),
 * may be NULL or "". On failure returns a negative code and err says
 * "<path>:<line>: <what>; <how to fix>" (with the column and token for expressions). */
int cutune_space_load(const char *path, const char *dim_names, CutuneSpace **out, CutuneError *err);
void cutune_space_free(CutuneSpace *s);
/* Read a space file without compiling its constraints, which may name problem dimensions
 * not known yet: enough to learn which op a variant file belongs to. */
int cutune_space_peek(const char *path, CutuneSpace **out, CutuneError *err);

/* The value of a [variant], [launch] or [tensor_map.*] key (section "variant", "launch" or
 * e.g. "tensor_map.A.nt"), or NULL; *line (may be NULL) gets its line. */
const char *cutune_space_key(const CutuneSpace *s, const char *section, const char *name,
                             int *line);
/* Record a key while reading (spaceini.c). cont: an indented line that continues it.
 * Returns 0, or -1 with why filled (an unknown or repeated key). */
int cutune_space_key_set(CutuneSpace *s, const char *section, const char *name, const char *value,
                         int line, int cont, char *why, size_t len);

/* Expressions over a space's symbols: its parameters, then the problem dimensions, then
 * the device limits (the order of values given to cutune_expr_eval). */
size_t cutune_space_nsymbols(const CutuneSpace *s);
/* The names in that order (malloc'd array of borrowed strings), NULL out of memory. */
const char **cutune_space_symbol_names(const CutuneSpace *s);
/* The values in that order into vals (cutune_space_nsymbols of them). */
void cutune_space_symbol_values(const CutuneSpace *s, const int64_t *params, const int64_t *dims,
                                const CutuneLimits *lim, int64_t *vals);
/* Split `text` at the commas outside parentheses ("ceil_div(N, T), M" is two) into at most
 * max parts of up to 511 characters, leading blanks dropped (so that a column in a message
 * counts from the expression's first character). 0, or -1 when there are more parts or one
 * is too long. */
int cutune_space_split(const char *text, char (*parts)[512], int max, int *count);
/* Compile `text` (from `line` of the file; `what` names it, e.g. "[launch] grid") over the
 * space's symbols. The error names the file, the line, the column and the token. */
int cutune_space_compile(const CutuneSpace *s, const char *what, const char *text, int line,
                         CutuneExpr **out, CutuneError *err);

/* Number of points of the full cartesian product (before constraints), saturating
 * at SIZE_MAX. */
size_t cutune_space_cardinality(const CutuneSpace *s);

/* The valid configs: nconfigs rows of nparams values each, row-major. */
typedef struct CutuneConfigList {
    size_t nparams;
    size_t nconfigs;
    int64_t *values;
    size_t *rejected_by; /* per constraint: points it was the first to reject */
} CutuneConfigList;

/* Enumerate the points that satisfy every constraint under `lim`. When `dims` is NULL,
 * constraints that read a problem dimension are not checked; otherwise dims holds
 * s->ndims values. A constraint that fails to evaluate (division by zero...) is an
 * error naming the file, line, constraint and config. */
int cutune_space_enumerate(const CutuneSpace *s, const CutuneLimits *lim, const int64_t *dims,
                           CutuneConfigList *out, CutuneError *err);
void cutune_config_list_free(CutuneConfigList *l);
/* Does the space allow config `values` for problem dims under `lim`: 1 when every
 * constraint holds, 0 when one does not (or cannot be evaluated there; `why` names it,
 * with its file and line), < 0 on an error. */
int cutune_space_allows(const CutuneSpace *s, const CutuneLimits *lim, const int64_t *values,
                        const int64_t *dims, char *why, size_t len, CutuneError *err);

/* Canonical text of a config, "TILE=16,PAD=1,UNROLL=4": what the database stores. */
int cutune_config_format(const CutuneSpace *s, const int64_t *values, char *buf, size_t len);
/* Parse the canonical text back into values (every parameter must be present once). */
int cutune_config_parse(const CutuneSpace *s, const char *text, int64_t *values, CutuneError *err);
/* Parse a partial config ("BM=128,BK=8"): named[i] = 1 and values[i] set for each parameter
 * it names (both arrays hold nparams entries). */
int cutune_config_parse_partial(const CutuneSpace *s, const char *text, int64_t *values,
                                unsigned char *named, CutuneError *err);
/* Keep only the configs of `cl` that match one of the partial assignments in where[]
 * ("BM=128,BK=8": the named parameters have these values, the others any). An unknown
 * parameter or a bad value is an error (CUTUNE_ERR_PARSE); nwhere == 0 keeps all. */
int cutune_config_list_where(const CutuneSpace *s, CutuneConfigList *cl, const char *const *where,
                             size_t nwhere, CutuneError *err);

/* A lookup from a config's values to its row in a config list: open addressing over a hash
 * of the row. The list must outlive the index and not change under it. */
typedef struct CutuneConfigIndex {
    const CutuneConfigList *cl;
    size_t *slots; /* row + 1; 0 = empty */
    size_t mask;
} CutuneConfigIndex;
int cutune_config_index_build(const CutuneConfigList *cl, CutuneConfigIndex *ix);
/* The row holding exactly these nparams values, or -1. */
long cutune_config_index_find(const CutuneConfigIndex *ix, const int64_t *values);
void cutune_config_index_free(CutuneConfigIndex *ix);

/* A variant's list of known-good configs (`<variant>.known` beside its space file): one
 * config per line, possibly partial, `#` starting a comment. Calls fn for each config with
 * its line number; fn returns non-zero to stop. A missing file is not an error. */
int cutune_known_read(const char *path, int (*fn)(const char *config, int line, void *user),
                      void *user, CutuneError *err);

#endif
