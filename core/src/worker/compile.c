/* NVRTC compilation of kernel sources into cubins, through the kernel cache. */
#include "compile.h"
#include "kernel_cache.h"
#include "space_limits.h"
#include "util.h"

#include <nvrtc.h>
#include <pthread.h>
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

/* A program of the source, named after its kernel. */
static int program_create(nvrtcProgram *prog, const char *source, const char *kernel_name,
                          CutuneError *err)
{
    nvrtcResult r = nvrtcCreateProgram(prog, source, kernel_name, 0, NULL, NULL);
    if (r != NVRTC_SUCCESS)
        return cutune_error(err, CUTUNE_ERR_COMPILE, "nvrtcCreateProgram: %s",
                            nvrtcGetErrorString(r));
    return 0;
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

/* The NVRTC options of a compile: the defines ("-DNAME=value", owned), then the fixed
 * ones, in this order: everything in them goes into the kernel cache's key. */
typedef struct Options {
    char arch[48];
    char *owned[MAX_OPTIONS];
    size_t nowned;
    const char *opts[MAX_OPTIONS];
    size_t n;
} Options;

static void options_free(Options *o)
{
    for (size_t i = 0; i < o->nowned; i++)
        free(o->owned[i]);
    o->nowned = o->n = 0;
}

/* NVRTC 12.9 and newer keep a cache of their own of every compile (PTX and cubin), in the
 * driver's compute cache (~/.nv/ComputeCache): a copy of what cutune's kernel cache holds,
 * about 400 KB a matmul config, which a tuning run of thousands of configs would write into
 * a cache that the user's other CUDA programs share (and that the driver caps at
 * CUDA_CACHE_MAXSIZE). "-no-cache" turns it off, unless CUTUNE_NVRTC_CACHE=1 asks for it. */
static int nvrtc_cache_off(void)
{
    int major = 0, minor = 0;
    if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS || major * 100 + minor < 1209)
        return 0; /* the option is unknown before 12.9 */
    const char *env = getenv("CUTUNE_NVRTC_CACHE");
    return !(env && strcmp(env, "1") == 0);
}

/* kind "sm" (a cubin) or "compute" (PTX) for arch, e.g. 90 */
static int options_make(Options *o, const char *const *defines, size_t ndefines, const char *kind,
                        int arch, CutuneError *err)
{
    memset(o, 0, sizeof *o);
    if (ndefines + 5 > MAX_OPTIONS)
        return cutune_error(err, CUTUNE_ERR_RANGE, "too many kernel parameters (%zu)", ndefines);
    snprintf(o->arch, sizeof o->arch, "--gpu-architecture=%s_%d%s", kind,
             arch & ~CUTUNE_ARCH_SPECIFIC, arch & CUTUNE_ARCH_SPECIFIC ? "a" : "");
    for (size_t i = 0; i < ndefines; i++) {
        size_t n = strlen(defines[i]) + 3;
        if (!(o->owned[i] = malloc(n))) {
            options_free(o);
            return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
        }
        o->nowned++;
        snprintf(o->owned[i], n, "-D%s", defines[i]);
        o->opts[o->n++] = o->owned[i];
    }
    o->opts[o->n++] = o->arch;
    o->opts[o->n++] = "-std=c++17";
    o->opts[o->n++] = "-default-device";
    if (nvrtc_cache_off())
        o->opts[o->n++] = "-no-cache";
    return 0;
}

/* Count the .param lines of `.entry NAME(` ... `)` in PTX text; -1 when there is no entry. */
static int ptx_entry_params(const char *ptx, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = strstr(ptx, ".entry "); p; p = strstr(p + 1, ".entry ")) {
        const char *q = p + 7;
        while (*q == ' ')
            q++;
        if (strncmp(q, name, n) != 0 || (q[n] != '(' && q[n] != ' ' && q[n] != '\n'))
            continue;
        const char *open = strchr(q, '('), *close = open ? strchr(open, ')') : NULL;
        if (!close)
            return -1;
        int count = 0;
        for (const char *r = strstr(open, ".param"); r && r < close; r = strstr(r + 6, ".param"))
            count++;
        return count;
    }
    return -1;
}

int cutune_nvrtc_ptx(const char *source, const char *name, const char *const *defines,
                     size_t ndefines, int arch, char **ptx, CutuneError *err)
{
    *ptx = NULL;
    Options opt;
    int rc = options_make(&opt, defines, ndefines, "compute", arch, err);
    if (rc)
        return rc;
    nvrtcProgram prog;
    if ((rc = program_create(&prog, source, name, err)))
        goto done;
    size_t size = 0;
    nvrtcResult r;
    if ((r = nvrtcCompileProgram(prog, (int)opt.n, opt.opts)) != NVRTC_SUCCESS) {
        char *log = program_log(prog);
        rc = cutune_error(err, CUTUNE_ERR_COMPILE, "NVRTC could not compile %s: %s%s%s", name,
                          nvrtcGetErrorString(r), log ? "\n" : "", log ? log : "");
        free(log);
    } else if ((r = nvrtcGetPTXSize(prog, &size)) != NVRTC_SUCCESS || !(*ptx = malloc(size + 1)) ||
               (r = nvrtcGetPTX(prog, *ptx)) != NVRTC_SUCCESS) {
        rc = cutune_error(err, CUTUNE_ERR_COMPILE, "NVRTC produced no PTX for %s: %s", name,
                          nvrtcGetErrorString(r));
        free(*ptx);
        *ptx = NULL;
    } else {
        (*ptx)[size] = '\0';
    }
    nvrtcDestroyProgram(&prog);
done:
    options_free(&opt);
    return rc;
}

int cutune_nvrtc_kernel_params(const char *source, const char *kernel_name,
                               const char *const *defines, size_t ndefines, int arch, int *nparams,
                               CutuneError *err)
{
    *nparams = -1;
    char *ptx = NULL;
    int rc = cutune_nvrtc_ptx(source, kernel_name, defines, ndefines, arch, &ptx, err);
    if (rc == 0 && (*nparams = ptx_entry_params(ptx, kernel_name)) < 0)
        rc = cutune_error(err, CUTUNE_ERR_NOT_FOUND,
                          "the compiled source has no kernel entry '%s'; is it extern \"C\" "
                          "__global__?",
                          kernel_name);
    free(ptx);
    return rc;
}

/* The number before `what` in ptxas' line "N bytes stack frame, N bytes spill stores, ...",
 * -1 where the log has none */
static int ptxas_bytes(const char *log, const char *what)
{
    const char *p = log ? strstr(log, what) : NULL;
    if (!p)
        return -1;
    while (p > log && p[-1] == ' ')
        p--;
    const char *q = p;
    while (q > log && q[-1] >= '0' && q[-1] <= '9')
        q--;
    return q < p ? atoi(q) : -1;
}

int cutune_nvrtc_local_memory(const char *source, const char *kernel_name,
                              const char *const *defines, size_t ndefines, int arch,
                              int *stack_bytes, int *spill_bytes, CutuneError *err)
{
    *stack_bytes = *spill_bytes = -1;
    Options opt;
    int rc = options_make(&opt, defines, ndefines, "sm", arch, err);
    if (rc)
        return rc;
    opt.opts[opt.n++] = "-Xptxas=-v"; /* options_make leaves room (MAX_OPTIONS) */
    CutuneKernelBinary b;
    rc = cutune_nvrtc_run(source, kernel_name, opt.opts, opt.n, &b, err);
    if (rc == 0) {
        /* the kernel's own lines (a device function not inlined has lines of its own) */
        char head[CUTUNE_NAME_MAX + 32];
        snprintf(head, sizeof head, "Function properties for %s", kernel_name);
        const char *at = b.log ? strstr(b.log, head) : NULL;
        *stack_bytes = ptxas_bytes(at, " bytes stack frame");
        *spill_bytes = ptxas_bytes(at, " bytes spill stores");
    }
    cutune_kernel_binary_free(&b);
    options_free(&opt);
    return rc;
}

/* The compiles in flight in this process, by kernel cache key. The sizes of a run compile the
 * same configs (a cubin does not depend on the problem's dimensions), and with several GPUs
 * their lanes warm-start and search different sizes at once: a compile already under way is
 * waited for and then read from the cache, not made again on another thread (which would
 * spend the cores of every GPU but one on copies). */
static pthread_mutex_t inflight_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t inflight_done = PTHREAD_COND_INITIALIZER;
static char (*inflight)[33];
static size_t ninflight, inflight_cap;

static long inflight_find(const char *key)
{
    for (size_t i = 0; i < ninflight; i++)
        if (strcmp(inflight[i], key) == 0)
            return (long)i;
    return -1;
}

/* Note key as in flight (inflight_mu held): 0, or -1 when there is no memory to note it. */
static int inflight_add(const char *key)
{
    if (ninflight == inflight_cap) {
        size_t cap = inflight_cap ? 2 * inflight_cap : 64;
        char(*grown)[33] = realloc(inflight, cap * sizeof *inflight);
        if (!grown)
            return -1;
        inflight = grown;
        inflight_cap = cap;
    }
    snprintf(inflight[ninflight++], sizeof inflight[0], "%s", key);
    return 0;
}

/* 1: the caller compiles key (claimed, or no memory to note it); 0: another thread was
 * compiling it and has finished (look in the cache again). */
static int inflight_claim(const char *key)
{
    pthread_mutex_lock(&inflight_mu);
    int waited = 0;
    while (inflight_find(key) >= 0) {
        pthread_cond_wait(&inflight_done, &inflight_mu);
        waited = 1;
    }
    if (!waited)
        (void)inflight_add(key);
    pthread_mutex_unlock(&inflight_mu);
    return !waited;
}

/* 1: the caller compiles key (claimed); 0: another thread is compiling it now, or no memory
 * to note it (a compile ahead then leaves it). */
static int inflight_try_claim(const char *key)
{
    pthread_mutex_lock(&inflight_mu);
    int claimed = inflight_find(key) < 0 && inflight_add(key) == 0;
    pthread_mutex_unlock(&inflight_mu);
    return claimed;
}

static void inflight_release(const char *key)
{
    pthread_mutex_lock(&inflight_mu);
    long i = inflight_find(key);
    if (i >= 0) {
        memmove(&inflight[i], &inflight[i + 1], (ninflight - (size_t)i - 1) * sizeof *inflight);
        ninflight--;
        pthread_cond_broadcast(&inflight_done);
    }
    pthread_mutex_unlock(&inflight_mu);
}

int cutune_nvrtc_run(const char *source, const char *kernel_name, const char *const *opts,
                     size_t nopts, CutuneKernelBinary *out, CutuneError *err)
{
    memset(out, 0, sizeof *out);
    double t0 = cutune_now();
    nvrtcProgram prog;
    int rc = program_create(&prog, source, kernel_name, err);
    if (rc)
        return rc;
    nvrtcResult r = nvrtcCompileProgram(prog, (int)nopts, opts);
    out->log = program_log(prog);
    if (r != NVRTC_SUCCESS) {
        nvrtcDestroyProgram(&prog);
        return cutune_error(err, CUTUNE_ERR_COMPILE, "NVRTC could not compile %s: %s%s%s",
                            kernel_name, nvrtcGetErrorString(r), out->log ? "\n" : "",
                            out->log ? out->log : "");
    }
    size_t size = 0;
    r = nvrtcGetCUBINSize(prog, &size);
    if (r == NVRTC_SUCCESS && size > 0 && (out->cubin = malloc(size)))
        r = nvrtcGetCUBIN(prog, out->cubin);
    nvrtcDestroyProgram(&prog);
    if (r != NVRTC_SUCCESS || !out->cubin) {
        free(out->cubin);
        out->cubin = NULL;
        return cutune_error(err, CUTUNE_ERR_COMPILE, "NVRTC produced no cubin for %s: %s",
                            kernel_name, nvrtcGetErrorString(r));
    }
    out->size = size;
    out->compile_ms = 1e3 * (cutune_now() - t0);
    return 0;
}

/* The compile itself: through the runner where there is one (a compile process), here
 * where there is none or it cannot (it returns 1) */
static int compile_now(const char *source, const char *kernel_name, const char *const *opts,
                       size_t nopts, CutuneNvrtcRunner runner, CutuneKernelBinary *out,
                       CutuneError *err)
{
    if (runner) {
        int rc = runner(source, kernel_name, opts, nopts, out, err);
        if (rc != 1)
            return rc;
        memset(out, 0, sizeof *out);
    }
    return cutune_nvrtc_run(source, kernel_name, opts, nopts, out, err);
}

/* ahead: a compile ahead of need (CutuneCompileJob.ahead), into the cache only: none when
 * the cache has the key or another thread is compiling it (rc 0, no cubin) */
static int compile_cached(const char *source, const char *kernel_name, const char *const *defines,
                          size_t ndefines, int arch, const char *cache_dir,
                          CutuneNvrtcRunner runner, int ahead, CutuneKernelBinary *out,
                          CutuneError *err)
{
    memset(out, 0, sizeof *out);
    Options opt;
    int rc = options_make(&opt, defines, ndefines, "sm", arch, err);
    if (rc)
        return rc;
    const char *const *opts = opt.opts;
    size_t nopts = opt.n;

    char version[16], key[33];
    cutune_nvrtc_version(version, sizeof version);
    CutuneHash h;
    cutune_hash_init(&h);
    const char *const parts[] = {"cutune-kernel-1", version, source, kernel_name};
    cutune_hash_strs(&h, parts, sizeof parts / sizeof *parts);
    cutune_hash_strs(&h, opts, nopts);
    cutune_hash_hex(&h, key);

    int claimed = 0;
    while (cache_dir) {
        if (ahead ? cutune_kernel_cache_has(cache_dir, key)
                  : cutune_kernel_cache_get(cache_dir, key, &out->cubin, &out->size) == 0) {
            out->from_cache = 1;
            goto done;
        }
        if (ahead &&
            (!(claimed = inflight_try_claim(key)) || cutune_kernel_cache_has(cache_dir, key)))
            goto done; /* compiling on another thread, or it finished as this one looked */
        if (claimed || (claimed = inflight_claim(key)))
            break;
    }
    rc = compile_now(source, kernel_name, opts, nopts, runner, out, err);
    if (rc == 0 && cache_dir)
        cutune_kernel_cache_put(cache_dir, key, out->cubin, out->size);
done:
    if (claimed)
        inflight_release(key);
    options_free(&opt);
    return rc;
}

int cutune_nvrtc_compile(const char *source, const char *kernel_name, const char *const *defines,
                         size_t ndefines, int arch, const char *cache_dir, CutuneKernelBinary *out,
                         CutuneError *err)
{
    return compile_cached(source, kernel_name, defines, ndefines, arch, cache_dir, NULL, 0, out,
                          err);
}

void cutune_defines_of(const CutuneSpace *sp, const int64_t *values, CutuneDefines *d)
{
    d->n = 0;
    for (size_t i = 0; i < sp->nparams && i < CUTUNE_MAX_PARAMS; i++) {
        snprintf(d->text[i], sizeof d->text[i], "%s=%lld", sp->params[i].name,
                 (long long)values[i]);
        d->ptr[d->n++] = d->text[i];
    }
}

void cutune_defines_kind(CutuneDefines *d, const CutuneProblem *p)
{
    const char *names[3] = {cutune_dtype_name(p ? p->dtype : 0),
                            cutune_layout_name(p ? p->layout : 0),
                            cutune_epilogue_name(p ? p->epilogue : 0)};
    static const char *const prefix[3] = {"CUTUNE_DTYPE_", "CUTUNE_LAYOUT_", "CUTUNE_EPILOGUE_"};
    for (int k = 0; k < 3 && d->n < sizeof d->ptr / sizeof *d->ptr; k++) {
        char *t = d->text[d->n];
        int n = snprintf(t, sizeof d->text[0], "%s%s", prefix[k], names[k] ? names[k] : "NONE");
        for (int i = (int)strlen(prefix[k]); i < n; i++)
            t[i] = (char)(t[i] >= 'a' && t[i] <= 'z' ? t[i] - 'a' + 'A' : t[i]);
        snprintf(t + n, sizeof d->text[0] - (size_t)n, "=1");
        d->ptr[d->n++] = t;
    }
}

static void compile_job_run(CutuneJob *job)
{
    CutuneCompileJob *c = (CutuneCompileJob *)job;
    if (!c->source)
        return; /* a library variant: nothing to compile, rc 0 and no cubin */
    c->rc = compile_cached(c->source, c->kernel_name, c->d.ptr, c->d.n, c->arch, c->cache_dir,
                           c->runner, c->ahead && c->cache_dir, &c->bin, &c->err);
}

void cutune_compile_job_init(CutuneCompileJob *c, const char *source, const char *kernel_name,
                             const CutuneSpace *sp, const int64_t *values,
                             const CutuneProblem *kind, int arch, const char *cache_dir,
                             size_t index)
{
    memset(c, 0, sizeof *c);
    c->job.run = compile_job_run;
    c->source = source;
    c->kernel_name = kernel_name;
    c->cache_dir = cache_dir;
    c->arch = arch;
    c->index = index;
    cutune_defines_of(sp, values, &c->d);
    cutune_defines_kind(&c->d, kind);
}

void cutune_compile_job_clear(CutuneCompileJob *c)
{
    cutune_kernel_binary_free(&c->bin);
    memset(c, 0, sizeof *c);
}
