/* Tuned launches (cutune/lookup.h): the kernel of a lookup result, compiled on first use
 * (or read from the kernel cache) and kept loaded in the handle, launched on the
 * application's buffers and stream with the variant's launch geometry; or a library
 * variant's call (launch_library.c). */
#include "compile.h"
#include "device.h"
#include "lookup_int.h"
#include "tensor_map.h"
#include "util.h"

#include <cuda_runtime.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The config's names (in k->pairs, owned) and values, read strictly: the text comes from
 * a database, and its names become -D options. */
static int parse_config(const char *text, CutuneTunedKernel *k, CutuneError *err)
{
    if (!(k->pairs = malloc(sizeof *k->pairs)))
        return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
    CutuneError perr = {0};
    if (cutune_config_pairs_parse(text, k->pairs, &perr))
        return cutune_error(err, CUTUNE_ERR_PARSE, "the database holds a malformed config: %s",
                            perr.msg);
    k->nparams = k->pairs->count;
    for (size_t i = 0; i < k->nparams; i++) {
        k->names[i] = k->pairs->names[i];
        k->values[i] = k->pairs->values[i];
    }
    return 0;
}

/* Compile (or read from the cache) and load the kernel of a config. */
static int build_kernel(const CutuneVariantDef *v, const char *config, const CutuneProblem *kind,
                        int arch, CutuneTunedKernel *k, CutuneError *err)
{
    int rc = parse_config(config, k, err);
    if (rc)
        return rc;
    CutuneDefines d = {0};
    for (size_t i = 0; i < k->nparams; i++) {
        snprintf(d.text[i], sizeof d.text[i], "%s=%lld", k->names[i], (long long)k->values[i]);
        d.ptr[d.n++] = d.text[i];
    }
    cutune_defines_kind(&d, kind);
    char cache[PATH_MAX];
    const char *cache_dir = cutune_cache_dir(cache, sizeof cache, NULL) == 0 ? cache : NULL;
    CutuneKernelBinary bin;
    if ((rc = cutune_geometry_open(v, k->names, k->nparams, &k->geo, err)))
        return rc;
    rc = cutune_nvrtc_compile(v->source, v->kernel_name, d.ptr, d.n, arch, cache_dir, &bin, err);
    if (rc == 0)
        rc = cutune_kernel_load(bin.cubin, v->kernel_name, &k->k, err);
    cutune_kernel_binary_free(&bin);
    if (rc)
        return rc;
    struct cudaFuncAttributes attr;
    if ((rc = cutune_cuda_check(cudaFuncGetAttributes(&attr, (const void *)k->k.kernel),
                                "cudaFuncGetAttributes", err)))
        return rc;
    k->max_threads = attr.maxThreadsPerBlock;
    k->static_shared = attr.sharedSizeBytes;
    k->variant = v;
    return 0;
}

/* The installed variant of a lookup result: that name, op and version. */
static int installed_variant(CutuneLookup *h, const CutuneLookupResult *r,
                             const CutuneVariantDef **out, CutuneError *err)
{
    int rc = cutune_lookup_registry(h, err);
    if (rc)
        return rc;
    const CutuneVariantDef *pl = cutune_registry_find(&h->reg, r->variant);
    if (!pl || strcmp(pl->version, r->variant_version) != 0 || strcmp(pl->op_name, r->op) != 0)
        return cutune_error(err, CUTUNE_ERR_NOT_FOUND,
                            "the best config for %s %s is of variant %s version %s, but the "
                            "installed variants have %s%s%s; install that variant, or tune "
                            "again with the installed ones (cutune run %s --size %s)",
                            r->op, r->size, r->variant, r->variant_version,
                            pl ? "version " : "no such variant", pl ? pl->version : "",
                            pl && strcmp(pl->op_name, r->op) ? " of another op" : "", r->op,
                            r->size);
    *out = pl;
    return 0;
}

/* The loaded kernel of (variant, version, config) for sm_<arch>, built on first use; or,
 * for a library variant, no kernel (*out NULL) and the variant in *library. */
static int tuned_kernel(CutuneLookup *h, const CutuneLookupResult *r, const CutuneProblem *kind,
                        int arch, CutuneTunedKernel **out, const CutuneVariantDef **library,
                        CutuneError *err)
{
    *out = NULL;
    *library = NULL;
    char key[1024];
    snprintf(key, sizeof key, "%s\x1f%s\x1f%s\x1f%d\x1f%d\x1f%d\x1f%d", r->variant,
             r->variant_version, r->config, arch, kind->dtype, kind->layout, kind->epilogue);
    for (size_t i = 0; i < h->nkernels; i++)
        if (strcmp(h->kernels[i].key, key) == 0) {
            *out = &h->kernels[i];
            return 0;
        }
    const CutuneVariantDef *pl = NULL;
    int rc = installed_variant(h, r, &pl, err);
    if (rc)
        return rc;
    if (cutune_variant_library(pl)) {
        *library = pl;
        return 0;
    }
    CutuneTunedKernel k = {0};
    CutuneTunedKernel *grown = realloc(h->kernels, (h->nkernels + 1) * sizeof *grown);
    if (!grown || !(k.key = strdup(key))) {
        if (grown)
            h->kernels = grown;
        return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
    }
    h->kernels = grown;
    if (cutune_variant_arch(pl, arch) < 0) {
        free(k.key);
        return cutune_error(err, CUTUNE_ERR_RESOURCES,
                            "variant %s is compiled for sm_%da and runs only on devices of "
                            "compute capability %d.%d; this one is %d.%d",
                            pl->name, pl->target, pl->target / 10, pl->target % 10, arch / 10,
                            arch % 10);
    }
    /* the first call may come inside a CUDA graph capture (device.h) */
    int mode = cutune_capture_relax();
    rc = build_kernel(pl, r->config, kind, cutune_variant_arch(pl, arch), &k, err);
    cutune_capture_restore(mode);
    if (rc) {
        cutune_tuned_kernel_free(&k);
        return rc;
    }
    h->kernels[h->nkernels] = k;
    *out = &h->kernels[h->nkernels++];
    return 0;
}

/* The application's arguments, then the config's TMA tensor maps encoded on its buffers
 * (none: args itself). The maps last encoded for this launch are used again while the
 * buffers' addresses are the same (a map holds only the address and the layout, which the
 * prepared launch fixes): cuTensorMapEncodeTiled is a host call on every launch otherwise. */
static int with_tensor_maps(const CutuneVariantDef *v, const CutuneLookupResult *r,
                            CutunePrepared *p, void **args, void **all, CUtensorMap *encoded,
                            void ***out, CutuneError *err)
{
    *out = args;
    const CutuneTensorMaps *maps = &p->maps;
    if (maps->n == 0)
        return 0;
    int nargs = v->op->op->nargs;
    for (int i = 0; i < nargs && i < CUTUNE_MAX_KERNEL_ARGS; i++)
        all[i] = args[i];
    _Static_assert(sizeof(CUtensorMap) == sizeof p->map_bytes[0], "a CUtensorMap is 128 bytes");
    void *addr[CUTUNE_MAX_TENSOR_MAPS] = {0};
    int same = p->maps_encoded && maps->n <= CUTUNE_MAX_TENSOR_MAPS &&
               nargs + maps->n <= CUTUNE_MAX_KERNEL_ARGS;
    for (int i = 0; i < maps->n && i < CUTUNE_MAX_TENSOR_MAPS; i++) {
        const CutuneTensorMap *m = &maps->map[i];
        if (m->enabled && m->arg >= 0 && m->arg < nargs && args[m->arg])
            addr[i] = *(void **)args[m->arg];
        same = same && addr[i] == p->map_addr[i];
    }
    if (same) {
        for (int i = 0; i < maps->n; i++) {
            memcpy(&encoded[i], p->map_bytes[i], sizeof encoded[i]);
            all[nargs + i] = &encoded[i];
        }
        *out = all;
        return 0;
    }
    char why[400];
    int rc = cutune_tensor_maps_encode(maps, all, nargs, encoded, why, sizeof why);
    if (rc)
        return cutune_error(err, rc,
                            "cutune_launch: %s, which config %s of variant %s needs (its TMA "
                            "tensor map); %s",
                            why, r->config, v->name,
                            rc == CUTUNE_ERR_NOT_FOUND
                                ? "update the driver, or tune without the variant"
                                : "see the variant's [tensor_map] sections");
    for (int i = 0; i < maps->n; i++) {
        memcpy(p->map_bytes[i], &encoded[i], sizeof p->map_bytes[i]);
        p->map_addr[i] = addr[i];
    }
    p->maps_encoded = 1;
    *out = all;
    return 0;
}

int cutune_launch_prepare(CutuneLookup *h, const CutuneLookupResult *r, const char *size,
                          const CutuneDeviceInfo *info, CutunePrepared *p, CutuneError *err)
{
    memset(p, 0, sizeof *p);
    CutuneProblem tuned;
    int rc = cutune_problem_parse(size, &p->prob, err);
    if (rc)
        return rc;
    /* a kernel is compiled for one element type, layout and epilogue: the lookup's */
    if (cutune_problem_parse(r->tuned_size, &tuned, NULL) == 0 &&
        (tuned.dtype != p->prob.dtype || tuned.layout != p->prob.layout ||
         tuned.epilogue != p->prob.epilogue))
        return cutune_error(err, CUTUNE_ERR_INVALID,
                            "cutune_launch: size %s is of another element type, layout or "
                            "epilogue than the config tuned at %s; look up %s itself",
                            size, r->tuned_size, size);
    int dev = info->index, max_shared = info->max_shared_per_block;
    p->device = dev;
    p->arch = 10 * info->cc_major + info->cc_minor;
    CutuneTunedKernel *k = NULL;
    if ((rc = tuned_kernel(h, r, &p->prob, p->arch, &k, &p->library, err)))
        return rc;
    if (p->library) /* its library launches: no kernel, no geometry */
        return cutune_variant_problem(p->library, size, &p->prob, err);
    p->kernel = (size_t)(k - h->kernels);
    const CutuneVariantDef *v = k->variant;
    if ((rc = cutune_variant_problem(v, size, &p->prob, err)))
        return rc;
    CutuneLimits lim;
    cutune_limits_sm90(&lim); /* the device's own where they matter to a launch */
    lim.sm_count = info->sm_count;
    lim.cc = p->arch;
    lim.max_shared_per_block = max_shared;
    CutuneLaunch *l = &p->l;
    *l = (CutuneLaunch){{1, 1, 1}, {1, 1, 1}, 0};
    char why[512] = "";
    if ((rc = cutune_geometry_eval(k->geo, k->values, &p->prob, &lim, l, &p->maps, why,
                                   sizeof why)) != 0)
        return cutune_error(err, rc == CUTUNE_ERR_RESOURCES ? CUTUNE_ERR_RESOURCES : rc,
                            "%s config %s has no launch for size %s on this device (%s); "
                            "tune this size: cutune run %s --size %s",
                            v->name, r->config, size, why, v->op_name, size);
    long long threads = (long long)l->block[0] * l->block[1] * l->block[2];
    long long shared = (long long)k->static_shared + (long long)l->shared_bytes;
    if (threads > k->max_threads || shared > max_shared)
        return cutune_error(err, CUTUNE_ERR_RESOURCES,
                            "%s config %s (tuned on %s) does not fit device %d: %lld threads "
                            "(at most %d) and %lld bytes of shared memory (at most %d); tune it "
                            "on this device: cutune run %s --device %d --size %s",
                            v->name, r->config, r->device_name, dev, threads, k->max_threads,
                            shared, max_shared, v->op_name, dev, size);
    size_t *allowed = dev >= 0 && dev < CUTUNE_LOOKUP_MAX_DEVICES ? &k->shared_allowed[dev] : NULL;
    if (l->shared_bytes > 48 * 1024 && (!allowed || l->shared_bytes > *allowed)) {
        if ((rc =
                 cutune_cuda_check(cudaFuncSetAttribute((const void *)k->k.kernel,
                                                        cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                        (int)l->shared_bytes),
                                   "cudaFuncSetAttribute", err)))
            return rc;
        if (allowed)
            *allowed = l->shared_bytes;
    }
    return 0;
}

int cutune_launch_prepared(CutuneLookup *h, const CutuneLookupResult *r, CutunePrepared *p,
                           void **args, void *stream, CutuneError *err)
{
    if (p->library)
        return cutune_launch_library(h, p->library, r, &p->prob, args, stream, p->device, p->arch,
                                     err);
    CutuneTunedKernel *k = &h->kernels[p->kernel];
    void *all[CUTUNE_MAX_KERNEL_ARGS], **kernel_args = args;
    CUtensorMap encoded[CUTUNE_MAX_TENSOR_MAPS];
    int rc = with_tensor_maps(k->variant, r, p, args, all, encoded, &kernel_args, err);
    return rc ? rc : cutune_kernel_launch(&k->k, &p->l, kernel_args, stream, err);
}

int cutune_launch(CutuneLookup *h, const CutuneLookupResult *r, const char *size, void **args,
                  void *stream, CutuneError *err)
{
    if (!h || !r || !size || !args)
        return cutune_error(err, CUTUNE_ERR_INVALID, "cutune_launch: missing argument");
    if (r->match == CUTUNE_MATCH_NONE || !r->variant[0])
        return cutune_error(err, CUTUNE_ERR_INVALID,
                            "cutune_launch: the lookup result holds no config (match none)");
    /* the device's description, read once per ordinal and handle: four attribute queries a
     * launch were a measurable part of a small GEMM's call (bench/torch_overhead.py) */
    CutuneDeviceInfo info;
    int rc = cutune_lookup_current_device(h, &info, err);
    if (rc)
        return rc;
    CutunePrepared p;
    pthread_mutex_lock(&h->mu);
    if ((rc = cutune_launch_prepare(h, r, size, &info, &p, err)) == 0)
        rc = cutune_launch_prepared(h, r, &p, args, stream, err);
    pthread_mutex_unlock(&h->mu);
    return rc;
}

/* The description of the current device, read once per ordinal. */
int cutune_lookup_current_device(CutuneLookup *h, CutuneDeviceInfo *info, CutuneError *err)
{
    int dev = 0;
    int rc = cutune_cuda_check(cudaGetDevice(&dev), "cudaGetDevice", err);
    if (rc)
        return rc;
    if (dev < 0 || dev >= CUTUNE_LOOKUP_MAX_DEVICES)
        return cutune_device_describe(dev, info, err);
    pthread_mutex_lock(&h->mu);
    if (!h->dev_known[dev] && (rc = cutune_device_describe(dev, &h->devs[dev], err)) == 0)
        h->dev_known[dev] = 1;
    if (rc == 0)
        *info = h->devs[dev];
    pthread_mutex_unlock(&h->mu);
    return rc;
}
