/* Finding and opening the registry's files (registry_files.h): the plugin path, the space
 * path, and dlopen. */
#include "registry_files.h"
#include "util.h"

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

/* ---- folder lists ---- */

static int push_dir(char ***dirs, size_t *n, const char *given)
{
    if (!given || !*given)
        return 0;
    char resolved[PATH_MAX];
    const char *dir = realpath(given, resolved) ? resolved : given;
    for (size_t i = 0; i < *n; i++)
        if (strcmp((*dirs)[i], dir) == 0)
            return 0;
    char **d = realloc(*dirs, (*n + 1) * sizeof *d);
    if (!d)
        return CUTUNE_ERR_NOMEM;
    *dirs = d;
    if (!(d[*n] = strdup(dir)))
        return CUTUNE_ERR_NOMEM;
    (*n)++;
    return 0;
}

/* Append each entry of a ':'-separated list of folders. */
static int push_path_list(char ***dirs, size_t *n, const char *list)
{
    if (!list)
        return 0;
    char *copy = strdup(list), *save = NULL;
    if (!copy)
        return CUTUNE_ERR_NOMEM;
    int rc = 0;
    for (char *tok = strtok_r(copy, ":", &save); tok && rc == 0; tok = strtok_r(NULL, ":", &save))
        rc = push_dir(dirs, n, tok);
    free(copy);
    return rc;
}

void cutune_path_list_free(char **dirs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(dirs[i]);
    free(dirs);
}

int cutune_plugin_dirs(char ***dirs, size_t *n)
{
    char libdir[PATH_MAX], dir[PATH_MAX + 32];
    int rc = push_path_list(dirs, n, getenv("CUTUNE_PLUGIN_PATH"));
    if (rc == 0 && cutune_lib_dir(libdir, sizeof libdir) == 0) {
        snprintf(dir, sizeof dir, "%s/../plugins", libdir); /* build tree */
        rc = push_dir(dirs, n, dir);
        snprintf(dir, sizeof dir, "%s/cutune/plugins", libdir); /* installed */
        if (rc == 0)
            rc = push_dir(dirs, n, dir);
    }
    if (rc == 0)
        rc = push_dir(dirs, n, CUTUNE_INSTALL_PLUGIN_DIR);
    return rc;
}

int cutune_space_dirs(char ***dirs, size_t *n, CutuneError *err)
{
    *dirs = NULL;
    *n = 0;
    char libdir[PATH_MAX], dir[PATH_MAX + 256];
    int rc = push_path_list(dirs, n, getenv("CUTUNE_SPACE_PATH"));
    /* the user's own variants, found without any variable (cutune new variant writes here) */
    if (rc == 0 && cutune_xdg_path(NULL, CUTUNE_XDG_DATA, "tuning_spaces", dir, sizeof dir) == 0)
        rc = push_dir(dirs, n, dir);
    if (rc == 0 && cutune_lib_dir(libdir, sizeof libdir) == 0) {
        static const char *const rel[] = {"../tuning_spaces", /* build tree */
                                          CUTUNE_LIBDIR_TO_SPACES /* installed tree */};
        for (size_t i = 0; i < sizeof rel / sizeof rel[0] && rc == 0; i++) {
            snprintf(dir, sizeof dir, "%s/%s", libdir, rel[i]);
            struct stat st;
            if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
                rc = push_dir(dirs, n, dir);
        }
    }
    if (rc == 0)
        rc = push_dir(dirs, n, CUTUNE_INSTALL_SPACE_DIR);
    if (rc) {
        cutune_path_list_free(*dirs, *n);
        *dirs = NULL;
        *n = 0;
        return cutune_error(err, rc, "out of memory");
    }
    return 0;
}

int cutune_space_path(const char *variant, char *buf, size_t len, CutuneError *err)
{
    char **dirs = NULL;
    size_t n = 0;
    int rc = cutune_space_dirs(&dirs, &n, err);
    if (rc)
        return rc;
    char searched[2048] = "";
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if ((size_t)snprintf(buf, len, "%s/%s.ini", dirs[i], variant) < len &&
            stat(buf, &st) == 0 && S_ISREG(st.st_mode)) {
            cutune_path_list_free(dirs, n);
            return 0;
        }
        strncat(searched, i ? ", " : "", sizeof searched - strlen(searched) - 1);
        strncat(searched, dirs[i], sizeof searched - strlen(searched) - 1);
    }
    cutune_path_list_free(dirs, n);
    return cutune_error(err, CUTUNE_ERR_NOT_FOUND,
                        "no tuning space for variant '%s': looked for %s.ini in %s; add it to "
                        "one of them or set CUTUNE_SPACE_PATH",
                        variant, variant, *searched ? searched : "(no folder)");
}

int cutune_plugin_dlopen(const char *path, const char *symbol, void **handle, void (**entry)(void),
                         CutuneError *err)
{
    _Static_assert(sizeof(void *) == sizeof(void (*)(void)), "POSIX: dlsym gives functions");
    *entry = NULL;
    if (!(*handle = dlopen(path, RTLD_NOW | RTLD_LOCAL)))
        return cutune_error(err, CUTUNE_ERR_PLUGIN, "%s: cannot load: %s", path, dlerror());
    void *sym = dlsym(*handle, symbol);
    memcpy(entry, &sym, sizeof sym);
    return 0;
}
