/* NVRTC compilation of kernel sources into cubins, through the kernel cache. */
#include "compile.h"
#include "kcache.h"
#include "space_limits.h"
#include "util.h"

#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* a define per parameter and per problem dimension, and the fixed options */
#define MAX_OPTIONS (CUTUNE_MAX_PARAMS + CUTUNE_MAX_DIMS + 8)

void cutune_nvrtc_version(char *buf, size_t len)
{
    int major = 0, minor = 0;
    nvrtcVersion(&major, &minor);
    snprintf(buf, len, "%d.%d", major, minor);
}

void cutune_kernel_binary_free(CutuneKernelBinary *b)
{
    if (!b)
        return;
    free(b->cubin);
    free(b->log);
    memset(b, 0, sizeof *b);
}

static char *program_log(nvrtcProgram prog)
{
    size_t n = 0;
    if (nvrtcGetProgramLogSize(prog, &n) != NVRTC_SUCCESS || n <= 1)
        return NULL;
    char *log = malloc(n);
    if (log && nvrtcGetProgramLog(prog, log) != NVRTC_SUCCESS) {
        free(log);
        return NULL;
    }
    return log;
}

int cutune_nvrtc_compile(const char *source, const char *kernel_name, const char *const *defines,
                         size_t ndefines, int arch, const char *cache_dir,
                         CutuneKernelBinary *out, CutuneError *err)
{
    memset(out, 0, sizeof *out);
    if (ndefines + 4 > MAX_OPTIONS)
        return cutune_error(err, CUTUNE_ERR_RANGE, "too many kernel parameters (%zu)", ndefines);

    /* Options: the defines, then fixed ones. Everything in them goes into the cache key. */
    char arch_opt[48];
    snprintf(arch_opt, sizeof arch_opt, "--gpu-architecture=sm_%d", arch);
    char *owned[MAX_OPTIONS];
    const char *opts[MAX_OPTIONS];
    size_t nopts = 0;
    int rc = 0;
    for (size_t i = 0; i < ndefines; i++) {
        size_t n = strlen(defines[i]) + 3;
        owned[i] = malloc(n);
        if (!owned[i]) {
            for (size_t j = 0; j < i; j++)
                free(owned[j]);
            return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
        }
        snprintf(owned[i], n, "-D%s", defines[i]);
        opts[nopts++] = owned[i];
    }
    opts[nopts++] = arch_opt;
    opts[nopts++] = "-std=c++17";
    opts[nopts++] = "-default-device";

    char version[16], key[33];
    cutune_nvrtc_version(version, sizeof version);
    CutuneHash h;
    cutune_hash_init(&h);
    cutune_hash_str(&h, "cutune-kernel-1");
    cutune_hash_str(&h, version);
    cutune_hash_str(&h, source);
    cutune_hash_str(&h, kernel_name);
    for (size_t i = 0; i < nopts; i++)
        cutune_hash_str(&h, opts[i]);
    cutune_hash_hex(&h, key);

    if (cache_dir && cutune_kcache_get(cache_dir, key, &out->cubin, &out->size) == 0) {
        out->from_cache = 1;
        goto done;
    }

    double t0 = cutune_now();
    nvrtcProgram prog;
    nvrtcResult r = nvrtcCreateProgram(&prog, source, kernel_name, 0, NULL, NULL);
    if (r != NVRTC_SUCCESS) {
        rc = cutune_error(err, CUTUNE_ERR_COMPILE, "nvrtcCreateProgram: %s", nvrtcGetErrorString(r));
        goto done;
    }
    r = nvrtcCompileProgram(prog, (int)nopts, opts);
    out->log = program_log(prog);
    if (r != NVRTC_SUCCESS) {
        rc = cutune_error(err, CUTUNE_ERR_COMPILE, "NVRTC could not compile %s: %s%s%s", kernel_name,
                          nvrtcGetErrorString(r), out->log ? "\n" : "", out->log ? out->log : "");
        nvrtcDestroyProgram(&prog);
        goto done;
    }
    size_t size = 0;
    r = nvrtcGetCUBINSize(prog, &size);
    if (r == NVRTC_SUCCESS && size > 0 && (out->cubin = malloc(size)))
        r = nvrtcGetCUBIN(prog, out->cubin);
    if (r != NVRTC_SUCCESS || !out->cubin) {
        rc = cutune_error(err, CUTUNE_ERR_COMPILE, "NVRTC produced no cubin for %s: %s", kernel_name,
                          nvrtcGetErrorString(r));
        free(out->cubin);
        out->cubin = NULL;
        nvrtcDestroyProgram(&prog);
        goto done;
    }
    out->size = size;
    nvrtcDestroyProgram(&prog);
    out->compile_ms = 1e3 * (cutune_now() - t0);
    if (cache_dir)
        cutune_kcache_put(cache_dir, key, out->cubin, out->size);
done:
    for (size_t i = 0; i < ndefines; i++)
        free(owned[i]);
    return rc;
}
