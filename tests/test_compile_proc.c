/* NVRTC in compile processes (core/src/worker/compile_proc.h), without a GPU: the cubin a
 * compile process makes is the one this process makes; a source that does not compile is
 * an error with NVRTC's log and leaves the process serving; threads each get their own and
 * leave no child behind when they end; a missing worker, or one that does not know COMPILE,
 * makes the caller compile itself; CUTUNE_COMPILE_PROCS=0 turns the processes off. */
#include "check.h"
#include "compile.h"
#include "compile_proc.h"
#include "pool.h"
#include "space.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *source = "extern \"C\" __global__ void k(float *x)\n"
                            "{\n"
                            "    x[threadIdx.x] = x[threadIdx.x] * F + 1.0f;\n"
                            "}\n";

/* the cubin of `src` with -DF=f, in a compile process (proc 1) or here; 0 or the error */
static int build(int proc, const char *src, int f, void **cubin, size_t *size, char **log,
                 CutuneError *err)
{
    char def[32];
    snprintf(def, sizeof def, "-DF=%d.0f", f);
    const char *opts[] = {def, "--gpu-architecture=sm_90", "-std=c++17", "-default-device"};
    CutuneKernelBinary b;
    int rc = proc ? cutune_compile_proc(src, "k", opts, 4, &b, err)
                  : cutune_nvrtc_run(src, "k", opts, 4, &b, err);
    *cubin = b.cubin;
    *size = b.size;
    *log = b.log;
    return rc;
}

/* the same cubin out of a compile process as here, for -DF=f */
static int same_as_here(int f)
{
    void *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    char *la = NULL, *lb = NULL;
    CutuneError err = {0};
    int rc = build(1, source, f, &a, &na, &la, &err);
    CHECK_MSG(rc == 0, "compile process: rc %d: %s", rc, err.msg);
    CHECK(build(0, source, f, &b, &nb, &lb, &err) == 0);
    int same = rc == 0 && na == nb && na > 4 && memcmp(a, b, na) == 0 && !memcmp(a, "\177ELF", 4);
    free(a);
    free(b);
    free(la);
    free(lb);
    return same;
}

static void cubins_match(void)
{
    CHECK(same_as_here(2));
    CHECK(same_as_here(3)); /* a second compile in the same process */
}

static void compile_error(void)
{
    void *cubin = NULL;
    size_t size = 0;
    char *log = NULL;
    CutuneError err = {0};
    int rc = build(1, "this is not C++", 1, &cubin, &size, &log, &err);
    CHECK_EQ_INT(rc, CUTUNE_ERR_COMPILE);
    CHECK(cubin == NULL && size == 0);
    CHECK_MSG(log && strstr(log, "error"), "log: %s", log ? log : "(none)");
    CHECK_STR_CONTAINS(err.msg, "NVRTC could not compile k");
    free(log);
    CHECK(same_as_here(4)); /* the process still serves */
}

static void *thread_main(void *arg)
{
    int f = (int)(intptr_t)arg, ok = 1;
    for (int i = 0; i < 3; i++)
        ok &= same_as_here(f * 10 + i);
    return (void *)(intptr_t)ok;
}

/* threads at once, each with its own process, reaped when the thread ends */
static void threads(void)
{
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        CHECK(pthread_create(&t[i], NULL, thread_main, (void *)(intptr_t)(i + 1)) == 0);
    for (int i = 0; i < 4; i++) {
        void *ok = NULL;
        pthread_join(t[i], &ok);
        CHECK(ok == (void *)1);
    }
}

/* this process's children now, over all its threads (/proc/self/task/<tid>/children) */
static int children(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char path[300];
        snprintf(path, sizeof path, "/proc/self/task/%s/children", e->d_name);
        FILE *f = e->d_name[0] != '.' ? fopen(path, "r") : NULL;
        int pid;
        while (f && fscanf(f, "%d", &pid) == 1)
            n++;
        if (f)
            fclose(f);
    }
    if (d)
        closedir(d);
    return n;
}

/* compile jobs with the runner a tuning run gives them, on a pool: each config's cubin as
 * here, timed, and the pool's threads leave no process behind when the pool ends */
static void pool_jobs(void)
{
    enum { JOBS = 6 };
    int before = children();
    CutunePool *pool = NULL;
    CHECK(cutune_pool_create(3, &pool) == 0);
    if (!pool)
        return;
    CutuneSpace sp;
    memset(&sp, 0, sizeof sp);
    static CutuneCompileJob c[JOBS];
    char src[JOBS][160];
    for (int i = 0; i < JOBS; i++) {
        snprintf(src[i], sizeof src[i],
                 "extern \"C\" __global__ void k(float *x) { x[threadIdx.x] *= %d.0f; }", i + 2);
        cutune_compile_job_init(&c[i], src[i], "k", &sp, NULL, NULL, 90, NULL, (size_t)i);
        c[i].runner = cutune_compile_runner();
        cutune_pool_submit(pool, &c[i].job);
    }
    for (int i = 0; i < JOBS; i++) {
        cutune_pool_wait(pool, &c[i].job);
        CHECK_MSG(c[i].rc == 0 && c[i].bin.size > 4 && !memcmp(c[i].bin.cubin, "\177ELF", 4) &&
                      c[i].bin.compile_ms > 0,
                  "job %d: rc %d: %s", i, c[i].rc, c[i].err.msg);
        cutune_compile_job_clear(&c[i]);
    }
    int during = children();
    CHECK_MSG(during > before, "no compile process under the pool (%d children, %d before)", during,
              before);
    cutune_pool_destroy(&pool);
    CHECK_MSG(children() == before, "%d children after the pool, %d before", children(), before);
}

static void *try_once(void *arg)
{
    (void)arg;
    void *cubin = NULL;
    size_t size = 0;
    char *log = NULL;
    CutuneError err = {0};
    int rc = build(1, source, 5, &cubin, &size, &log, &err);
    free(cubin);
    free(log);
    return (void *)(intptr_t)rc;
}

/* what a fresh thread's first compile returns under CUTUNE_WORKER=worker */
static int first_compile_with(const char *worker)
{
    setenv("CUTUNE_WORKER", worker, 1);
    pthread_t t;
    void *rc = (void *)(intptr_t)-99;
    if (pthread_create(&t, NULL, try_once, NULL) == 0)
        pthread_join(t, &rc);
    unsetenv("CUTUNE_WORKER");
    return (int)(intptr_t)rc;
}

static void fallbacks(void)
{
    CHECK_EQ_INT(first_compile_with("/nonexistent/cutune-worker"), 1);
    const char *fake = getenv("CUTUNE_TEST_FAKE_WORKER");
    CHECK_MSG(fake != NULL, "CUTUNE_TEST_FAKE_WORKER is not set (meson test sets it)");
    if (fake) /* a worker that does not know COMPILE */
        CHECK_EQ_INT(first_compile_with(fake), 1);
    CHECK(cutune_compile_runner() == cutune_compile_proc);
    setenv("CUTUNE_COMPILE_PROCS", "0", 1);
    CHECK(cutune_compile_runner() == NULL);
    unsetenv("CUTUNE_COMPILE_PROCS");
}

int main(void)
{
    cubins_match();
    compile_error();
    threads();
    pool_jobs();
    fallbacks();
    /* every thread above has ended: none of their compile processes is left (the main
     * thread's own is still serving, so wait for no particular one: none may be a zombie) */
    int st;
    CHECK_MSG(waitpid(-1, &st, WNOHANG) == 0, "a compile process was left unreaped");
    return check_result("compile_proc");
}
