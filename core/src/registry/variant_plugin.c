/* C variant plugins (cutune/plugin.h): dlopen, the ABI checks, the fields every variant
 * plugin must set, and its launch geometry. Which op's contract applies is the registry's
 * to decide (registry.c). */
#include "registry_files.h"
#include "names.h"
#include "variant_plugin.h"
#include "util.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Size of the descriptor as ABI 1.0 (1.5) defined it: through the last field of that minor. */
#define VARIANT_SIZE_1_0 (offsetof(CutuneVariant, bytes) + sizeof(((CutuneVariant *)0)->bytes))
#define VARIANT_SIZE_1_5 \
    (offsetof(CutuneVariant, library_release) + sizeof(((CutuneVariant *)0)->library_release))

int cutune_plugin_is_library(const CutuneVariant *v)
{
    /* any of the three, so that one set alone is refused by name rather than ignored */
    return v && v->abi_minor >= 5 && v->struct_size >= VARIANT_SIZE_1_5 &&
           (v->library_prepare || v->library_run || v->library_release);
}

const CutuneVariant *cutune_variant_library(const CutuneVariantDef *v)
{
    return v && cutune_plugin_is_library(v->v) ? v->v : NULL;
}

static int validate(const char *path, const CutuneVariant *v, CutuneError *err)
{
    if (v->abi_major != CUTUNE_PLUGIN_ABI_MAJOR)
        return cutune_error(err, CUTUNE_ERR_PLUGIN,
                            "%s: plugin ABI %u.%u, but this cutune speaks ABI %d.%d; rebuild the "
                            "plugin against this cutune's cutune/plugin.h",
                            path, v->abi_major, v->abi_minor, CUTUNE_PLUGIN_ABI_MAJOR,
                            CUTUNE_PLUGIN_ABI_MINOR);
    if (v->abi_minor > CUTUNE_PLUGIN_ABI_MINOR)
        return cutune_error(err, CUTUNE_ERR_PLUGIN,
                            "%s: plugin ABI %u.%u is newer than this cutune's ABI %d.%d; upgrade "
                            "cutune or build the plugin against the older header",
                            path, v->abi_major, v->abi_minor, CUTUNE_PLUGIN_ABI_MAJOR,
                            CUTUNE_PLUGIN_ABI_MINOR);
    /* the descriptor reaches the last field of the minor it claims (1.2 to 1.4 added none) */
    size_t size_1_1 = offsetof(CutuneVariant, problem_distance) + sizeof v->problem_distance;
    size_t need = v->abi_minor >= 5   ? VARIANT_SIZE_1_5
                  : v->abi_minor >= 1 ? size_1_1
                                      : VARIANT_SIZE_1_0;
    if (v->struct_size < need)
        return cutune_error(err, CUTUNE_ERR_PLUGIN,
                            "%s: descriptor struct_size is %u bytes but ABI %u.%u needs at least "
                            "%zu; set .struct_size = sizeof(CutuneVariant)",
                            path, v->struct_size, v->abi_major, v->abi_minor, need);
    int library = cutune_plugin_is_library(v);
    /* a kernel and its launch, or (1.5) the three calls of a library variant */
    const CutuneField required[] = {
        {"op", v->op},
        {"name", v->name},
        {"version", v->version},
        {"summary", v->summary},
        {"dim_names", v->dim_names},
        library ? (CutuneField){"library_prepare", CUTUNE_FIELD_FN(v->library_prepare)}
                : (CutuneField){"kernel_source", v->kernel_source},
        library ? (CutuneField){"library_run", CUTUNE_FIELD_FN(v->library_run)}
                : (CutuneField){"kernel_name", v->kernel_name},
        library ? (CutuneField){"library_release", CUTUNE_FIELD_FN(v->library_release)}
                : (CutuneField){"launch_geometry", CUTUNE_FIELD_FN(v->launch_geometry)},
    };
    int rc = cutune_fields_required(required, sizeof required / sizeof required[0], path,
                                    "descriptor",
                                    library ? "a library variant sets op, name, version, summary, "
                                              "dim_names, library_prepare, library_run and "
                                              "library_release (cutune/plugin.h)"
                                            : "a variant plugin sets op, name, version, summary, "
                                              "dim_names, kernel_source, kernel_name and "
                                              "launch_geometry (cutune/plugin.h)",
                                    err);
    if (rc)
        return rc;
    if (library && (v->kernel_source || v->kernel_name || v->launch_geometry))
        return cutune_error(err, CUTUNE_ERR_PLUGIN,
                            "%s: variant %s sets library_run and also a kernel (kernel_source, "
                            "kernel_name or launch_geometry); a variant launches one or the "
                            "other: leave the kernel fields NULL",
                            path, v->name);
    if (!cutune_is_name(v->op) || !cutune_is_name(v->name))
        return cutune_error(err, CUTUNE_ERR_PLUGIN,
                            "%s: op '%s' and name '%s' must be made of letters, digits and '_'",
                            path, v->op, v->name);
    return 0;
}

static char *dup_or_empty(const char *s)
{
    return strdup(s ? s : "");
}

int cutune_variant_plugin_open(const char *path, CutuneVariantDef *out, CutuneError *err)
{
    memset(out, 0, sizeof *out);
    void *h;
    void (*entry)(void);
    int rc = cutune_plugin_dlopen(path, CUTUNE_PLUGIN_SYMBOL, &h, &entry, err);
    if (rc)
        return rc;
    if (!entry) {
        dlclose(h);
        return cutune_error(err, CUTUNE_ERR_PLUGIN,
                            "%s: no symbol '%s' or '%s': a variant plugin exports "
                            "`const CutuneVariant *%s(void)`, an op plugin `const CutuneOp "
                            "*%s(void)`",
                            path, CUTUNE_PLUGIN_SYMBOL, CUTUNE_OP_SYMBOL, CUTUNE_PLUGIN_SYMBOL,
                            CUTUNE_OP_SYMBOL);
    }
    const CutuneVariant *v = ((CutunePluginEntry)entry)();
    if (!v) {
        dlclose(h);
        return cutune_error(err, CUTUNE_ERR_PLUGIN, "%s: %s() returned NULL", path,
                            CUTUNE_PLUGIN_SYMBOL);
    }
    if ((rc = validate(path, v, err))) {
        dlclose(h);
        return rc;
    }
    out->handle = h;
    out->v = v;
    if (!(out->path = strdup(path)) || !(out->name = strdup(v->name)) ||
        !(out->op_name = strdup(v->op)) || !(out->version = strdup(v->version)) ||
        !(out->summary = dup_or_empty(v->summary)) ||
        (v->kernel_name && !(out->kernel_name = strdup(v->kernel_name))) ||
        (v->kernel_source && !(out->source = strdup(v->kernel_source)))) {
        cutune_variant_close(out);
        return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
    }
    cutune_variant_hash(out);
    return 0;
}

void cutune_variant_hash(CutuneVariantDef *v)
{
    CutuneHash hash;
    cutune_hash_init(&hash);
    /* a library variant has no source: its version says which library it calls */
    cutune_hash_str(&hash, v->source ? v->source : "library variant");
    cutune_hash_str(&hash, v->kernel_name ? v->kernel_name : v->name);
    cutune_hash_hex(&hash, v->source_hash);
}

void cutune_variant_close(CutuneVariantDef *v)
{
    if (!v)
        return;
    free(v->name);
    free(v->op_name);
    free(v->version);
    free(v->summary);
    free(v->kernel_name);
    free(v->dtypes);
    free(v->layouts);
    free(v->epilogues);
    free(v->source);
    free(v->path);
    cutune_space_free(v->space);
    if (v->handle)
        dlclose(v->handle);
    memset(v, 0, sizeof *v);
}

int cutune_plugin_geometry(const CutuneVariant *v, const CutuneConfig *cfg, const CutuneProblem *p,
                           int sm_count, int cc, CutuneLaunch *out)
{
    size_t n = cfg->count;
    const char **names = malloc((n + 2) * sizeof *names);
    int64_t *values = malloc((n + 2) * sizeof *values);
    int rc = -1;
    if (names && values) {
        for (size_t i = 0; i < n; i++)
            names[i] = cfg->names[i], values[i] = cfg->values[i];
        names[n] = "SM_COUNT", values[n] = sm_count;
        names[n + 1] = "CC", values[n + 1] = cc;
        CutuneConfig all = {n + 2, names, values};
        rc = v->launch_geometry(&all, p, out);
    }
    free(names);
    free(values);
    return rc;
}
