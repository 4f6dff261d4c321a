/* Finding, loading and validating kernel plugins. */
#ifndef CUTUNE_REGISTRY_H
#define CUTUNE_REGISTRY_H

#include <stddef.h>

#include "cutune/cutune.h"
#include "cutune/plugin.h"

typedef struct CutunePlugin {
    char *path;
    void *handle;              /* dlopen handle */
    const CutuneVariant *v;
    char source_hash[33];      /* hash of the kernel source: trials are kept per source */
} CutunePlugin;

typedef struct CutuneRejected {
    char *path;
    char *reason;
} CutuneRejected;

typedef struct CutuneRegistry {
    CutunePlugin *plugins;
    size_t count;
    CutuneRejected *rejected;  /* files that looked like plugins but were refused */
    size_t nrejected;
    char **dirs;               /* the folders searched, in order */
    size_t ndirs;
} CutuneRegistry;

/* Open one plugin file and validate its descriptor. The message names the file and what is
 * wrong (missing symbol, ABI version, short struct, missing field...). */
int cutune_plugin_open(const char *path, CutunePlugin *out, CutuneError *err);
void cutune_plugin_close(CutunePlugin *p);
/* The plugin's problem_distance (ABI 1.1), or NULL when it has none or is a 1.0 plugin. */
/* The plugin's launch geometry of cfg for p, on a device with sm_count SMs and compute
 * capability cc (e.g. 90): the callback sees cfg's parameters followed by the pseudo-
 * parameters SM_COUNT and CC (ABI 1.2). Returns the callback's result, -1 out of memory. */
int cutune_plugin_geometry(const CutuneVariant *v, const CutuneConfig *cfg, const CutuneProblem *p,
                           int sm_count, int cc, CutuneLaunch *out);

typedef double (*CutuneDistanceFn)(const CutuneProblem *a, const CutuneProblem *b);
CutuneDistanceFn cutune_plugin_distance(const CutunePlugin *p);

/* Load every *.so in the plugin folders: each entry of $CUTUNE_PLUGIN_PATH (':'-separated),
 * then the folder beside the library (build tree: build/plugins; installed:
 * <libdir>/cutune/plugins). A bad plugin is recorded in `rejected` and the others still
 * load; a later file with the name of an earlier plugin is rejected as a duplicate. */
int cutune_registry_load(CutuneRegistry *r, CutuneError *err);
void cutune_registry_free(CutuneRegistry *r);
const CutunePlugin *cutune_registry_find(const CutuneRegistry *r, const char *variant);

/* The space file of a variant: $CUTUNE_SPACE_PATH entries, then beside the library
 * (build/tuning_spaces, <datadir>/cutune/tuning_spaces). */
int cutune_space_path(const char *variant, char *buf, size_t len, CutuneError *err);

#endif
