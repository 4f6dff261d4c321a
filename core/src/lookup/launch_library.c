/* Tuned launches of a library variant's config (cutune/plugin.h, ABI 1.5): its plugin's
 * library_prepare once per config, problem, device and stream (the handle holds the
 * library's choice and its workspace, which calls on two streams at once must not share),
 * kept in the lookup handle until cutune_close; then library_run per call. */
#include "device.h"
#include "lookup_int.h"
#include "util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void call_free(CutuneLibraryCall *c)
{
    if (!c)
        return;
    if (c->handle)
        c->v->library_release(c->handle);
    cutune_host_release(&c->hc);
    free(c->key);
    free(c);
}

void cutune_lookup_libraries_free(CutuneLookup *h)
{
    for (size_t i = 0; i < h->nlibcalls; i++)
        call_free(h->libcalls[i]);
    free(h->libcalls);
    h->libcalls = NULL;
    h->nlibcalls = 0;
}

/* Prepare r's config of v for p: a new call, or an error with the plugin's reason. */
static int prepare(const CutuneVariantDef *v, const CutuneLookupResult *r, const CutuneProblem *p,
                   void **args, int device, int arch, CutuneLibraryCall *c, CutuneError *err)
{
    CutuneConfigPairs pairs;
    const char *names[CUTUNE_MAX_PARAMS];
    CutuneError perr = {0};
    if (cutune_config_pairs_parse(r->config, &pairs, &perr))
        return cutune_error(err, CUTUNE_ERR_PARSE, "the database holds a malformed config: %s",
                            perr.msg);
    for (size_t i = 0; i < pairs.count; i++)
        names[i] = pairs.names[i];
    CutuneConfig cfg = {pairs.count, names, pairs.values};
    cutune_host_init(&c->hc, arch, NULL, &c->err);
    char why[512] = "";
    int rc = c->v->library_prepare(&c->hc.host, (void *const *)args, p, &cfg, &c->handle, why,
                                   sizeof why);
    if (rc == 0)
        return 0;
    c->handle = NULL;
    int code = rc == CUTUNE_ERR_RESOURCES || rc == CUTUNE_ERR_NOT_FOUND ? rc : CUTUNE_ERR_CUDA;
    return cutune_error(err, code,
                        "%s config %s cannot run %s on device %d: %s; tune it here: cutune run %s "
                        "--device %d --size %s",
                        v->name, r->config, r->size, device, why[0] ? why : cutune_strerror(rc),
                        v->op_name, device, r->size);
}

int cutune_launch_library(CutuneLookup *h, const CutuneVariantDef *v, const CutuneLookupResult *r,
                          const CutuneProblem *p, void **args, void *stream, int device, int arch,
                          CutuneError *err)
{
    char size[64], key[1024];
    cutune_problem_format(p, size, sizeof size);
    snprintf(key, sizeof key, "%s\x1f%s\x1f%s\x1f%s\x1f%d\x1f%llx", r->variant, r->variant_version,
             r->config, size, device, (unsigned long long)(uintptr_t)stream);
    CutuneLibraryCall *c = NULL;
    for (size_t i = 0; i < h->nlibcalls && !c; i++)
        if (strcmp(h->libcalls[i]->key, key) == 0)
            c = h->libcalls[i];
    if (!c) {
        CutuneLibraryCall **grown = realloc(h->libcalls, (h->nlibcalls + 1) * sizeof *grown);
        if (grown)
            h->libcalls = grown;
        if (!grown || !(c = calloc(1, sizeof *c)) || !(c->key = strdup(key))) {
            free(c);
            return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
        }
        c->v = cutune_variant_library(v);
        /* a stream's first call: inside a CUDA graph capture, too, on the capture's stream
         * (its workspace is cudaMalloc'd: device.h) */
        int mode = cutune_capture_relax();
        int rc = prepare(v, r, p, args, device, arch, c, err);
        cutune_capture_restore(mode);
        if (rc) {
            call_free(c);
            return rc;
        }
        h->libcalls[h->nlibcalls++] = c;
    }
    cutune_error_clear(&c->err);
    if (c->v->library_run(c->handle, (void *const *)args, stream) != 0)
        return cutune_error(err, CUTUNE_ERR_CUDA, "%s config %s at %s: %s", v->name, r->config,
                            size, c->err.msg[0] ? c->err.msg : "the library call failed");
    return 0;
}
