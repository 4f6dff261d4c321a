/* A compile process per compiling thread (compile_proc.h). */
#include "compile_proc.h"
#include "proto.h"
#include "util.h"
#include "worker_client.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* a compile that takes longer is stuck: far above the slowest config's seconds */
#define COMPILE_LIMIT_S 1800.0

typedef struct Proc {
    CutuneWorker *w;
    int none;    /* no compile process for this thread: it compiles itself */
    int answers; /* answers from compile processes of this thread so far */
} Proc;

static pthread_key_t proc_key;
static int proc_key_ok;
static pthread_once_t proc_once = PTHREAD_ONCE_INIT;

/* at the thread's end: the socket closed, the process exits and is reaped */
static void proc_free(void *p)
{
    Proc *pr = p;
    cutune_worker_stop(&pr->w);
    free(pr);
}

static void proc_key_make(void)
{
    proc_key_ok = pthread_key_create(&proc_key, proc_free) == 0;
}

CutuneNvrtcRunner cutune_compile_runner(void)
{
    const char *env = getenv("CUTUNE_COMPILE_PROCS");
    return env && strcmp(env, "0") == 0 ? NULL : cutune_compile_proc;
}

static Proc *this_thread(void)
{
    pthread_once(&proc_once, proc_key_make);
    if (!proc_key_ok)
        return NULL;
    Proc *pr = pthread_getspecific(proc_key);
    if (!pr && (pr = calloc(1, sizeof *pr)) && pthread_setspecific(proc_key, pr) != 0) {
        free(pr);
        pr = NULL;
    }
    return pr;
}

/* The answer in the worker's buffer into the caller's outputs. */
static int take_answer(CutuneBuf *b, const char *kernel_name, CutuneKernelBinary *out,
                       CutuneError *err)
{
    int rc = (int)(int32_t)cutune_buf_get_u32(b);
    const char *msg = cutune_buf_get_str(b);
    const char *text = cutune_buf_get_str(b);
    size_t n = 0;
    const void *bin = cutune_buf_get_bytes(b, &n);
    if (b->bad || rc > 0)
        return cutune_error(err, CUTUNE_ERR_IO,
                            "the compile process answered %s in a form this cutune does not "
                            "read; rebuild cutune and cutune-worker together (ninja -C build)",
                            kernel_name);
    if (*text && !(out->log = strdup(text)))
        return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
    if (rc)
        return cutune_error(err, rc, "%s", msg);
    if (n == 0 || !(out->cubin = malloc(n)))
        return cutune_error(err, n ? CUTUNE_ERR_NOMEM : CUTUNE_ERR_COMPILE,
                            n ? "out of memory" : "the compile process sent no cubin for %s",
                            kernel_name);
    memcpy(out->cubin, bin, n);
    out->size = n;
    return 0;
}

int cutune_compile_proc(const char *source, const char *kernel_name, const char *const *opts,
                        size_t nopts, CutuneKernelBinary *out, CutuneError *err)
{
    memset(out, 0, sizeof *out);
    double t0 = cutune_now();
    Proc *pr = this_thread();
    if (!pr || pr->none)
        return 1;
    if (!pr->w) {
        CutuneError e;
        if (cutune_worker_spawn_idle(&pr->w, &e) != 0) {
            pr->none = 1; /* no worker executable: this thread compiles itself from now on */
            return 1;
        }
    }
    CutuneBuf *b = cutune_worker_buffer(pr->w);
    cutune_buf_reset(b);
    cutune_buf_put_str(b, source);
    cutune_buf_put_str(b, kernel_name);
    cutune_buf_put_u32(b, (uint32_t)nopts);
    for (size_t i = 0; i < nopts; i++)
        cutune_buf_put_str(b, opts[i]);
    CutuneError e;
    int rc = cutune_worker_request(pr->w, CUTUNE_MSG_COMPILE, CUTUNE_MSG_COMPILED, COMPILE_LIMIT_S,
                                   "compiling in a compile process", &e);
    if (rc) {
        cutune_worker_stop(&pr->w); /* reaped already; the next compile starts a fresh one */
        if (pr->answers == 0) {     /* never answered: a worker that cannot compile */
            pr->none = 1;
            return 1;
        }
        return cutune_error(err, CUTUNE_ERR_COMPILE, "NVRTC's process failed compiling %s: %s",
                            kernel_name, e.msg);
    }
    pr->answers++;
    if ((rc = take_answer(b, kernel_name, out, err)) == 0)
        out->compile_ms = 1e3 * (cutune_now() - t0); /* what the thread waited for it */
    return rc;
}
