/* Finding and opening a CUDA library at run time (see cudafind.h). */
#include "cudafind.h"

#include <dlfcn.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* pip's packages per library: CUDA 12's wheels each have a folder of their own under
 * nvidia/; CUDA 13's share nvidia/cu13/ */
static const struct {
    const char *stem, *folder, *package;
} packages[] = {
    {"cudart", "cuda_runtime", "nvidia-cuda-runtime"},
    {"nvrtc", "cuda_nvrtc", "nvidia-cuda-nvrtc"},
    {"cublas", "cublas", "nvidia-cublas"},
    {"cublasLt", "cublas", "nvidia-cublas"},
};

static int package_of(const char *stem)
{
    for (size_t i = 0; i < sizeof packages / sizeof packages[0]; i++)
        if (!strcmp(packages[i].stem, stem))
            return (int)i;
    return -1;
}

const char *cutune_cuda_pip_name(const char *stem, int major, char *buf, size_t len)
{
    int p = package_of(stem);
    /* from CUDA 13 on the names carry no -cuNN suffix (the -cu13 names are deprecated) */
    snprintf(buf, len, "%s%s", p < 0 ? "nvidia-cuda-runtime" : packages[p].package,
             major >= 13   ? ""
             : major == 12 ? "-cu12"
                           : "-cu11");
    return buf;
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* What was looked at, for the message: appended while it fits. */
typedef struct {
    char text[1536];
    size_t n;
} Tried;

static void tried_add(Tried *t, const char *what)
{
    if (t->n + 1 >= sizeof t->text || strstr(t->text, what)) /* once each */
        return;
    int k = snprintf(t->text + t->n, sizeof t->text - t->n, "%s%s", t->n ? ", " : "", what);
    if (k > 0)
        t->n = t->n + (size_t)k < sizeof t->text ? t->n + (size_t)k : sizeof t->text - 1;
}

static void *try_path(const char *dir, const char *file, Tried *t)
{
    char path[PATH_MAX];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, file) >= sizeof path)
        return NULL;
    struct stat st;
    if (stat(path, &st) != 0) {
        tried_add(t, dir);
        return NULL;
    }
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        tried_add(t, e ? e : path);
    }
    return h;
}

/* Step 2 for one site-packages folder; `quiet`: a folder without nvidia/ goes unsaid (the
 * folders above the library, which are seldom site-packages). */
static void *try_site(const char *site, const char *stem, int major, const char *file, Tried *t,
                      int quiet)
{
    char dir[PATH_MAX];
    int p = package_of(stem);
    const char *sub[2] = {NULL, p < 0 ? NULL : packages[p].folder};
    char cu[16];
    snprintf(cu, sizeof cu, "cu%d", major);
    sub[0] = cu;
    snprintf(dir, sizeof dir, "%s/nvidia", site);
    if (!is_dir(dir)) {
        if (!quiet)
            tried_add(t, dir);
        return NULL;
    }
    for (int i = 0; i < 2; i++) {
        if (!sub[i])
            continue;
        if ((size_t)snprintf(dir, sizeof dir, "%s/nvidia/%s/lib", site, sub[i]) >= sizeof dir)
            continue;
        if (!is_dir(dir))
            continue;
        void *h = try_path(dir, file, t);
        if (h)
            return h;
    }
    snprintf(dir, sizeof dir, "%s/nvidia", site);
    tried_add(t, dir);
    return NULL;
}

static void *try_sites(const void *anchor, const char *stem, int major, const char *file, Tried *t)
{
    void *h = NULL;
    const char *env = getenv("CUTUNE_PYTHON_SITE");
    if (env && *env) {
        char list[4096];
        snprintf(list, sizeof list, "%s", env);
        char *save = NULL;
        for (char *s = strtok_r(list, ":", &save); s && !h; s = strtok_r(NULL, ":", &save))
            h = try_site(s, stem, major, file, t, 0);
    }
    Dl_info info;
    if (!h && anchor && dladdr(anchor, &info) && info.dli_fname) {
        char dir[PATH_MAX];
        if (realpath(info.dli_fname, dir)) {
            /* <site>/cutune/lib/libcutune.so: three folders up at most */
            for (int up = 0; up < 3 && !h; up++) {
                char *slash = strrchr(dir, '/');
                if (!slash || slash == dir)
                    break;
                *slash = '\0';
                h = try_site(dir, stem, major, file, t, up < 2);
            }
        }
    }
    const char *venv = getenv("VIRTUAL_ENV");
    if (!h && venv && *venv) {
        char pattern[PATH_MAX];
        glob_t g;
        snprintf(pattern, sizeof pattern, "%s/lib/python3*/site-packages", venv);
        if (glob(pattern, 0, NULL, &g) == 0) {
            for (size_t i = 0; i < g.gl_pathc && !h; i++)
                h = try_site(g.gl_pathv[i], stem, major, file, t, 0);
            globfree(&g);
        }
    }
    return h;
}

/* CUTUNE_CUDADL_FORBID: "1" (every library) or the stems forbidden, "cudart,nvrtc" */
static int forbidden(const char *stem)
{
    const char *v = getenv("CUTUNE_CUDADL_FORBID");
    if (!v || !*v || !strcmp(v, "0"))
        return 0;
    if (!strcmp(v, "1"))
        return 1;
    size_t n = strlen(stem);
    for (const char *p = v; (p = strstr(p, stem)); p += n)
        if ((p == v || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
            return 1;
    return 0;
}

void *cutune_cuda_dlopen(const char *stem, int major, const void *anchor, char *why, size_t len)
{
    char file[64];
    snprintf(file, sizeof file, "lib%s.so.%d", stem, major);
    if (forbidden(stem)) {
        fprintf(stderr,
                "cutune: CUTUNE_CUDADL_FORBID is set, but %s was about to be loaded: this "
                "path must need no CUDA\n",
                file);
        abort();
    }
    void *h = dlopen(file, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    Tried t = {.n = 0};
    if (!h)
        h = try_sites(anchor, stem, major, file, &t);
    if (!h && !(h = dlopen(file, RTLD_NOW | RTLD_LOCAL)))
        tried_add(&t, "the system's library path (LD_LIBRARY_PATH, ldconfig)");
    const char *envs[] = {"CUDA_PATH", "CUDA_HOME"};
    for (size_t i = 0; i < 3 && !h; i++) {
        const char *root = i < 2 ? getenv(envs[i]) : "/usr/local/cuda";
        char dir[PATH_MAX];
        if (root && *root && (size_t)snprintf(dir, sizeof dir, "%s/lib64", root) < sizeof dir)
            h = try_path(dir, file, &t);
    }
    if (!h && why && len) {
        char pip[64];
        snprintf(why, len,
                 "%s was not found (looked in %s); install it into this Python environment "
                 "with `pip install %s`, as PyTorch's CUDA builds do, or install the CUDA "
                 "Toolkit %d",
                 file, t.n ? t.text : "nowhere", cutune_cuda_pip_name(stem, major, pip, sizeof pip),
                 major);
    }
    return h;
}
