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

#include "geometry.h"
#include "names.h"
#include "op_plugin.h"
#include "registry_defs.h"
#include "registry_files.h"
#include "variant.h"
#include "variant_data.h"
#include "variant_plugin.h"

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

#endif
