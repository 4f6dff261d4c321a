/* Finding CUDA at run time (core/src/cudadl/cudafind.h): pip's nvidia-* layouts of CUDA 13 and
 * 12 under a site-packages folder, a copy already loaded, the message for a library that is
 * nowhere, and the test hook that aborts where no CUDA may be loaded. Needs the CUDA Toolkit's
 * libcudart.so.13 and libnvrtc.so.13 (it links them into a fake site-packages); skips
 * without them. */
#include "check.h"
#include "cudafind.h"
#include "tmpdir.h"

#include <dlfcn.h>
#include <link.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *toolkit_lib(const char *file)
{
    static char path[512];
    const char *root = getenv("CUDA_PATH");
    snprintf(path, sizeof path, "%s/lib64/%s", root && *root ? root : "/usr/local/cuda", file);
    return access(path, R_OK) == 0 ? path : NULL;
}

/* tmpdir/site/nvidia/<sub>/lib/<file>, a link to the toolkit's copy */
static int plant(const char *sub, const char *file)
{
    char dir[512], link_path[640];
    const char *target = toolkit_lib(file);
    snprintf(dir, sizeof dir, "%s/site/nvidia/%s/lib", tmpdir, sub);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
    if (!target || system(cmd) != 0)
        return -1;
    snprintf(link_path, sizeof link_path, "%s/%s", dir, file);
    return symlink(target, link_path);
}

static const char *loaded_from(void *h)
{
    struct link_map *map = NULL;
    return h && dlinfo(h, RTLD_DI_LINKMAP, &map) == 0 && map ? map->l_name : "";
}

int main(void)
{
    if (!toolkit_lib("libcudart.so.13") || !toolkit_lib("libnvrtc.so.13")) {
        printf("no CUDA 13 toolkit libraries to plant: skipped\n");
        return CHECK_SKIP;
    }
    if (make_tmpdir(tmpdir, sizeof tmpdir, "cutune-cudadl"))
        return 1;
    /* CUDA 13's wheels: nvidia/cu13/lib; CUDA 12's: one folder a package */
    CHECK(plant("cu13", "libcudart.so.13") == 0);
    CHECK(plant("cuda_nvrtc", "libnvrtc.so.13") == 0);
    char site[256], expect[512];
    snprintf(site, sizeof site, "%s/site", tmpdir);
    setenv("CUTUNE_PYTHON_SITE", site, 1);
    unsetenv("CUTUNE_CUDADL_FORBID");

    char why[2048] = "";
    void *rt = cutune_cuda_dlopen("cudart", 13, NULL, why, sizeof why);
    snprintf(expect, sizeof expect, "%s/nvidia/cu13/lib/libcudart.so.13", site);
    CHECK_MSG(rt && !strcmp(loaded_from(rt), expect), "cudart from '%s', not %s (%s)",
              loaded_from(rt), expect, why);
    void *nv = cutune_cuda_dlopen("nvrtc", 13, NULL, why, sizeof why);
    snprintf(expect, sizeof expect, "%s/nvidia/cuda_nvrtc/lib/libnvrtc.so.13", site);
    CHECK_MSG(nv && !strcmp(loaded_from(nv), expect), "nvrtc from '%s', not %s (%s)",
              loaded_from(nv), expect, why);

    /* a copy the process holds wins over every folder: one runtime a process */
    unsetenv("CUTUNE_PYTHON_SITE");
    void *again = cutune_cuda_dlopen("cudart", 13, NULL, why, sizeof why);
    CHECK(again == rt);

    /* nowhere: the message names the library, where it looked and the pip package */
    setenv("CUTUNE_PYTHON_SITE", site, 1);
    CHECK(cutune_cuda_dlopen("cudart", 99, NULL, why, sizeof why) == NULL);
    CHECK_STR_CONTAINS(why, "libcudart.so.99 was not found");
    CHECK_STR_CONTAINS(why, "pip install nvidia-cuda-runtime");
    CHECK_STR_CONTAINS(why, site);
    CHECK_STR_CONTAINS(why, "/usr/local/cuda/lib64");
    CHECK(cutune_cuda_dlopen("nvrtc", 12, NULL, why, sizeof why) == NULL ||
          toolkit_lib("libnvrtc.so.12"));
    char pip[64];
    CHECK_STR_CONTAINS(cutune_cuda_pip_name("cublasLt", 12, pip, sizeof pip), "nvidia-cublas-cu12");
    CHECK_STR_CONTAINS(cutune_cuda_pip_name("nvrtc", 13, pip, sizeof pip), "nvidia-cuda-nvrtc");

    /* the test hook: a path that must need no CUDA aborts, loudly, at the first attempt */
    const struct {
        const char *forbid, *stem;
        int aborts;
    } hook[] = {{"1", "cublasLt", 1},          {"cudart,nvrtc", "nvrtc", 1},
                {"cudart,nvrtc", "cudart", 1}, {"cudart,nvrtc", "cublasLt", 0},
                {"cudart", "cudart_x", 0},     {"0", "cudart", 0}};
    for (size_t i = 0; i < sizeof hook / sizeof hook[0]; i++) {
        fflush(NULL);
        pid_t pid = fork();
        if (pid == 0) {
            setenv("CUTUNE_CUDADL_FORBID", hook[i].forbid, 1);
            if (!freopen("/dev/null", "w", stderr))
                _exit(2);
            cutune_cuda_dlopen(hook[i].stem, 13, NULL, why, sizeof why);
            _exit(0);
        }
        int st = 0;
        CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
        CHECK_MSG(hook[i].aborts ? WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT
                                 : WIFEXITED(st) && WEXITSTATUS(st) == 0,
                  "FORBID=%s, %s: status %d", hook[i].forbid, hook[i].stem, st);
    }

    rm_tree(tmpdir);
    return check_result("cudadl");
}
