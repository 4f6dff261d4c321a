/* The plugin loader: dlopen, ABI checks, field validation, the registry of variants. */
#include "registry.h"
#include "util.h"

#include <dirent.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifndef CUTUNE_INSTALL_PLUGIN_DIR
#define CUTUNE_INSTALL_PLUGIN_DIR ""
#endif
#ifndef CUTUNE_INSTALL_SPACE_DIR
#define CUTUNE_INSTALL_SPACE_DIR ""
#endif
#ifndef CUTUNE_LIBDIR_TO_SPACES
#define CUTUNE_LIBDIR_TO_SPACES "../share/cutune/tuning_spaces"
#endif

/* Size of the descriptor as ABI 1.0 defined it: through the last field of that minor. */
#define VARIANT_SIZE_1_0 (offsetof(CutuneVariant, bytes) + sizeof(((CutuneVariant *)0)->bytes))

static int is_name(const char *s)
{
    if (!s || !*s)
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '_'))
            return 0;
    return 1;
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
    if (v->struct_size < VARIANT_SIZE_1_0)
        return cutune_error(err, CUTUNE_ERR_PLUGIN,
                            "%s: descriptor struct_size is %u bytes but ABI %u.%u needs at least "
                            "%zu; set .struct_size = sizeof(CutuneVariant)",
                            path, v->struct_size, v->abi_major, v->abi_minor, VARIANT_SIZE_1_0);
    size_t size_1_1 = offsetof(CutuneVariant, problem_distance) + sizeof v->problem_distance;
    if (v->abi_minor >= 1 && v->struct_size < size_1_1)
        return cutune_error(err, CUTUNE_ERR_PLUGIN,
                            "%s: descriptor struct_size is %u bytes but ABI %u.%u needs at least "
                            "%zu; set .struct_size = sizeof(CutuneVariant)",
                            path, v->struct_size, v->abi_major, v->abi_minor, size_1_1);
    struct {
        const char *name;
        const void *ptr;
    } required[] = {
        {"op", v->op},
        {"name", v->name},
        {"version", v->version},
        {"summary", v->summary},
        {"dim_names", v->dim_names},
        {"kernel_source", v->kernel_source},
        {"kernel_name", v->kernel_name},
        {"check_problem", (const void *)(size_t)v->check_problem},
        {"launch_geometry", (const void *)(size_t)v->launch_geometry},
        {"setup", (const void *)(size_t)v->setup},
        {"kernel_args", (const void *)(size_t)v->kernel_args},
        {"poison_output", (const void *)(size_t)v->poison_output},
        {"check", (const void *)(size_t)v->check},
        {"teardown", (const void *)(size_t)v->teardown},
        {"flops", (const void *)(size_t)v->flops},
        {"bytes", (const void *)(size_t)v->bytes},
    };
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        if (!required[i].ptr)
            return cutune_error(err, CUTUNE_ERR_PLUGIN,
                                "%s: required descriptor field '%s' is NULL; every field of "
                                "CutuneVariant up to 'bytes' must be set",
                                path, required[i].name);
    if (!is_name(v->op) || !is_name(v->name))
        return cutune_error(err, CUTUNE_ERR_PLUGIN,
                            "%s: op '%s' and name '%s' must be made of letters, digits and '_'",
                            path, v->op, v->name);
    return 0;
}

int cutune_plugin_open(const char *path, CutunePlugin *out, CutuneError *err)
{
    memset(out, 0, sizeof *out);
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return cutune_error(err, CUTUNE_ERR_PLUGIN, "%s: cannot load: %s", path, dlerror());
    CutunePluginEntry entry;
    *(void **)&entry = dlsym(h, CUTUNE_PLUGIN_SYMBOL);
    if (!entry) {
        dlclose(h);
        return cutune_error(err, CUTUNE_ERR_PLUGIN,
                            "%s: no symbol '%s': a cutune plugin exports "
                            "`const CutuneVariant *%s(void)`",
                            path, CUTUNE_PLUGIN_SYMBOL, CUTUNE_PLUGIN_SYMBOL);
    }
    const CutuneVariant *v = entry();
    if (!v) {
        dlclose(h);
        return cutune_error(err, CUTUNE_ERR_PLUGIN, "%s: %s() returned NULL", path,
                            CUTUNE_PLUGIN_SYMBOL);
    }
    int rc = validate(path, v, err);
    if (rc) {
        dlclose(h);
        return rc;
    }
    out->path = strdup(path);
    if (!out->path) {
        dlclose(h);
        return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
    }
    out->handle = h;
    out->v = v;
    CutuneHash hash;
    cutune_hash_init(&hash);
    cutune_hash_str(&hash, v->kernel_source);
    cutune_hash_str(&hash, v->kernel_name);
    cutune_hash_hex(&hash, out->source_hash);
    return 0;
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

CutuneDistanceFn cutune_plugin_distance(const CutunePlugin *p)
{
    /* Fields added after 1.0 exist only when the plugin says so and is long enough. */
    const CutuneVariant *v = p->v;
    size_t end = offsetof(CutuneVariant, problem_distance) + sizeof v->problem_distance;
    if (!v || v->abi_minor < 1 || v->struct_size < end)
        return NULL;
    return v->problem_distance;
}

void cutune_plugin_close(CutunePlugin *p)
{
    if (p->handle)
        dlclose(p->handle);
    free(p->path);
    memset(p, 0, sizeof *p);
}

static int push_dir(CutuneRegistry *r, const char *given)
{
    if (!*given)
        return 0;
    char resolved[PATH_MAX];
    const char *dir = realpath(given, resolved) ? resolved : given;
    for (size_t i = 0; i < r->ndirs; i++)
        if (strcmp(r->dirs[i], dir) == 0)
            return 0;
    char **d = realloc(r->dirs, (r->ndirs + 1) * sizeof *d);
    if (!d)
        return CUTUNE_ERR_NOMEM;
    r->dirs = d;
    if (!(r->dirs[r->ndirs] = strdup(dir)))
        return CUTUNE_ERR_NOMEM;
    r->ndirs++;
    return 0;
}

static int reject(CutuneRegistry *r, const char *path, const char *reason)
{
    CutuneRejected *x = realloc(r->rejected, (r->nrejected + 1) * sizeof *x);
    if (!x)
        return CUTUNE_ERR_NOMEM;
    r->rejected = x;
    x[r->nrejected].path = strdup(path);
    x[r->nrejected].reason = strdup(reason);
    r->nrejected++;
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int load_dir(CutuneRegistry *r, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0; /* a folder in the search path that does not exist is not an error */
    char **names = NULL;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 4 || strcmp(e->d_name + len - 3, ".so") != 0)
            continue;
        char **grown = realloc(names, (n + 1) * sizeof *grown);
        if (!grown)
            break;
        names = grown;
        if ((names[n] = strdup(e->d_name)))
            n++;
    }
    closedir(d);
    if (n > 1) /* a stable order: same registry on every run (qsort takes no NULL array) */
        qsort(names, n, sizeof *names, cmp_str);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        struct stat st;
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) { /* dlopen would block on a FIFO */
            rc = reject(r, path, "it is not a regular file (a FIFO, a device or a folder), so "
                                 "not a plugin; remove it or rename it");
            continue;
        }
        CutunePlugin p;
        CutuneError perr = {0};
        if (cutune_plugin_open(path, &p, &perr) != 0) {
            rc = reject(r, path, perr.msg);
            continue;
        }
        const CutunePlugin *prev = cutune_registry_find(r, p.v->name);
        if (prev) {
            char why[PATH_MAX + 128];
            snprintf(why, sizeof why, "variant '%s' is already provided by %s", p.v->name,
                     prev->path);
            rc = reject(r, path, why);
            cutune_plugin_close(&p);
            continue;
        }
        CutunePlugin *grown = realloc(r->plugins, (r->count + 1) * sizeof *grown);
        if (!grown) {
            cutune_plugin_close(&p);
            rc = CUTUNE_ERR_NOMEM;
            break;
        }
        r->plugins = grown;
        r->plugins[r->count++] = p;
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return rc;
}

/* Append each entry of a ':'-separated list of folders. */
static int push_path_list(CutuneRegistry *r, const char *list)
{
    if (!list)
        return 0;
    char *copy = strdup(list), *save = NULL;
    if (!copy)
        return CUTUNE_ERR_NOMEM;
    int rc = 0;
    for (char *tok = strtok_r(copy, ":", &save); tok && rc == 0; tok = strtok_r(NULL, ":", &save))
        rc = push_dir(r, tok);
    free(copy);
    return rc;
}

int cutune_registry_load(CutuneRegistry *r, CutuneError *err)
{
    memset(r, 0, sizeof *r);
    char libdir[PATH_MAX], dir[PATH_MAX + 32];
    int rc = push_path_list(r, getenv("CUTUNE_PLUGIN_PATH"));
    if (rc == 0 && cutune_lib_dir(libdir, sizeof libdir) == 0) {
        snprintf(dir, sizeof dir, "%s/../plugins", libdir); /* build tree */
        rc = push_dir(r, dir);
        snprintf(dir, sizeof dir, "%s/cutune/plugins", libdir); /* installed */
        if (rc == 0)
            rc = push_dir(r, dir);
    }
    if (rc == 0)
        rc = push_dir(r, CUTUNE_INSTALL_PLUGIN_DIR);
    for (size_t i = 0; i < r->ndirs && rc == 0; i++)
        rc = load_dir(r, r->dirs[i]);
    if (rc)
        return cutune_error(err, rc, "loading plugins: %s", cutune_strerror(rc));
    return 0;
}

void cutune_registry_free(CutuneRegistry *r)
{
    for (size_t i = 0; i < r->count; i++)
        cutune_plugin_close(&r->plugins[i]);
    for (size_t i = 0; i < r->nrejected; i++) {
        free(r->rejected[i].path);
        free(r->rejected[i].reason);
    }
    for (size_t i = 0; i < r->ndirs; i++)
        free(r->dirs[i]);
    free(r->plugins);
    free(r->rejected);
    free(r->dirs);
    memset(r, 0, sizeof *r);
}

const CutunePlugin *cutune_registry_find(const CutuneRegistry *r, const char *variant)
{
    for (size_t i = 0; i < r->count; i++)
        if (strcmp(r->plugins[i].v->name, variant) == 0)
            return &r->plugins[i];
    return NULL;
}

static int try_space(const char *dir, const char *variant, char *buf, size_t len)
{
    struct stat st;
    if (!*dir || (size_t)snprintf(buf, len, "%s/%s.ini", dir, variant) >= len)
        return -1;
    return stat(buf, &st) == 0 && S_ISREG(st.st_mode) ? 0 : -1;
}

int cutune_space_path(const char *variant, char *buf, size_t len, CutuneError *err)
{
    const char *env = getenv("CUTUNE_SPACE_PATH");
    char searched[2048] = "";
    if (env) {
        char *copy = strdup(env), *save = NULL;
        if (!copy)
            return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
        for (char *tok = strtok_r(copy, ":", &save); tok; tok = strtok_r(NULL, ":", &save)) {
            if (try_space(tok, variant, buf, len) == 0) {
                free(copy);
                return 0;
            }
            strncat(searched, tok, sizeof searched - strlen(searched) - 1);
            strncat(searched, " ", sizeof searched - strlen(searched) - 1);
        }
        free(copy);
    }
    char libdir[PATH_MAX], dir[PATH_MAX + 256];
    if (cutune_lib_dir(libdir, sizeof libdir) == 0) {
        static const char *const rel[] = {"../tuning_spaces", /* build tree */
                                          CUTUNE_LIBDIR_TO_SPACES /* installed tree */};
        for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
            snprintf(dir, sizeof dir, "%s/%s", libdir, rel[i]);
            if (try_space(dir, variant, buf, len) == 0)
                return 0;
            strncat(searched, dir, sizeof searched - strlen(searched) - 1);
            strncat(searched, " ", sizeof searched - strlen(searched) - 1);
        }
    }
    if (try_space(CUTUNE_INSTALL_SPACE_DIR, variant, buf, len) == 0)
        return 0;
    strncat(searched, CUTUNE_INSTALL_SPACE_DIR, sizeof searched - strlen(searched) - 1);
    return cutune_error(err, CUTUNE_ERR_NOT_FOUND,
                        "no tuning space for variant '%s': looked for %s.ini in %s; add "
                        "tuning_spaces/%s.ini or set CUTUNE_SPACE_PATH",
                        variant, variant, searched, variant);
}
