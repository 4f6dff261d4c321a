/* Where things live: the library's own folder, the kernel cache, directory creation, what
 * kind of file a path is. */
#include "util.h"

#include <dlfcn.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef CUTUNE_BINDIR_TO_LIBDIR
#define CUTUNE_BINDIR_TO_LIBDIR "../lib"
#endif

/* A program with the library linked in (the cutune command, the worker, tests) has no
 * libcutune file of its own: the library's folder is found from the program's, where the
 * tree puts it. */
static int program_lib_dir(char *buf, size_t len)
{
    char exe[PATH_MAX], path[2 * PATH_MAX], resolved[PATH_MAX];
    if (!realpath("/proc/self/exe", exe))
        return CUTUNE_ERR_NOT_FOUND;
    const char *bin = dirname(exe);
    /* beside it (a wheel), ../core (the build tree: known by the internal archive the
     * program was linked from, which is there even where libcutune.so was not built), then
     * the installed tree's libdir */
    static const struct {
        const char *dir, *marker;
    } where[] = {{".", "libcutune.so"},
                 {"../core", "libcutune_internal.a"},
                 {CUTUNE_BINDIR_TO_LIBDIR, NULL}};
    size_t n = sizeof where / sizeof where[0];
    for (size_t i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/%s/%s", bin, where[i].dir,
                 where[i].marker ? where[i].marker : "libcutune.so");
        if (where[i].marker && access(path, F_OK) != 0)
            continue;
        if (!realpath(dirname(path), resolved))
            continue;
        if ((size_t)snprintf(buf, len, "%s", resolved) >= len)
            return CUTUNE_ERR_RANGE;
        return 0;
    }
    return CUTUNE_ERR_NOT_FOUND;
}

int cutune_lib_dir(char *buf, size_t len)
{
    Dl_info info;
    struct link_map *map = NULL;
    if (!dladdr1((void *)cutune_lib_dir, &info, (void **)&map, RTLD_DL_LINKMAP) || !info.dli_fname)
        return CUTUNE_ERR_NOT_FOUND;
    if (map && map->l_name && map->l_name[0] == '\0') /* the main program's */
        return program_lib_dir(buf, len);
    char resolved[PATH_MAX];
    if (!realpath(info.dli_fname, resolved))
        return CUTUNE_ERR_NOT_FOUND;
    if ((size_t)snprintf(buf, len, "%s", dirname(resolved)) >= len)
        return CUTUNE_ERR_RANGE;
    return 0;
}

int cutune_xdg_path(const char *var, CutuneXdgBase base, const char *sub, char *buf, size_t len)
{
    const char *given = var ? getenv(var) : NULL;
    const char *xdg = getenv(base == CUTUNE_XDG_DATA ? "XDG_DATA_HOME" : "XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    const char *sep = sub && *sub ? "/" : "";
    int n;
    if (!sub)
        sub = "";
    if (given && *given)
        n = snprintf(buf, len, "%s", given);
    else if (xdg && *xdg == '/')
        n = snprintf(buf, len, "%s/cutune%s%s", xdg, sep, sub);
    else if (home && *home)
        n = snprintf(buf, len, "%s/%s/cutune%s%s", home,
                     base == CUTUNE_XDG_DATA ? ".local/share" : ".cache", sep, sub);
    else
        return CUTUNE_ERR_NOT_FOUND;
    return n < 0 || (size_t)n >= len ? CUTUNE_ERR_RANGE : 0;
}

int cutune_cache_dir(char *buf, size_t len, CutuneError *err)
{
    int rc = cutune_xdg_path("CUTUNE_CACHE_DIR", CUTUNE_XDG_CACHE, "", buf, len);
    if (rc == CUTUNE_ERR_NOT_FOUND)
        return cutune_error(err, rc,
                            "no kernel cache folder: HOME is not set; set CUTUNE_CACHE_DIR");
    if (rc)
        return cutune_error(err, rc, "kernel cache path is too long");
    return 0;
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int cutune_mkdir_p(const char *path, CutuneError *err)
{
    char tmp[PATH_MAX];
    if (!path || !*path)
        return cutune_error(err, CUTUNE_ERR_INVALID, "cannot create a directory without a name");
    if ((size_t)snprintf(tmp, sizeof tmp, "%s", path) >= sizeof tmp)
        return cutune_error(err, CUTUNE_ERR_RANGE, "path too long: %s", path);
    if (is_dir(tmp))
        return 0;
    /* existing components are only looked at: mkdir on one of them may fail otherwise
     * (a read-only file system answers EROFS before EEXIST) */
    for (char *p = tmp + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char saved = *p;
        *p = '\0';
        if (!is_dir(tmp) && mkdir(tmp, 0755) != 0 && errno != EEXIST)
            return cutune_error(err, CUTUNE_ERR_IO, "cannot create directory %s: %s", tmp,
                                strerror(errno));
        *p = saved;
        if (saved == '\0')
            break;
    }
    if (!is_dir(path))
        return cutune_error(err, CUTUNE_ERR_IO,
                            "cannot create directory %s: it exists and is "
                            "not a directory",
                            path);
    return 0;
}

double cutune_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int cutune_check_regular(const char *path, const struct stat *st, int code, const char *what,
                         const char *fix, CutuneError *err)
{
    if (S_ISREG(st->st_mode))
        return 0;
    return cutune_error(err, code, "%s is not %s (it is %s); %s", path, what,
                        S_ISDIR(st->st_mode)                           ? "a folder"
                        : S_ISFIFO(st->st_mode)                        ? "a FIFO"
                        : S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode) ? "a device"
                        : S_ISSOCK(st->st_mode)                        ? "a socket"
                                                                       : "not a regular file",
                        fix);
}
