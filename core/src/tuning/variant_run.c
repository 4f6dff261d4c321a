/* `cutune check --run`: a variant's configs and its op's check on the CPU emulation
 * (variant_run.h, emu.h). Each (config, size) runs in a child process: a kernel that
 * writes past its buffers, or whose threads wait at a barrier the others never reach,
 * ends that process, not the check. */
#include "variant_run.h"
#include "compile.h"
#include "emu.h"
#include "space_limits.h"
#include "util.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Threads one launch may have: a thread costs the emulation a context switch at every
 * barrier and a stack; past this, a run takes minutes (pass a smaller --size). */
#define RUN_THREADS_MAX (1u << 22)

/* What a child sends back. */
typedef struct RunResult {
    int done;          /* 1: it got to the end of the step below */
    char stage[16];    /* the step that failed: "load", "setup", ..., or "" */
    CutuneCheck check; /* the op's verdict */
    char msg[1024];    /* why a step failed */
} RunResult;

typedef struct RunCase {
    const CutuneVariantDef *v;
    const CutuneSpace *sp;
    const char *const *names; /* the space's parameter names */
    const int64_t *values;
    const CutuneProblem *p;
    CutuneLaunch launch;
    const char *so; /* the kernel, built for the emulation */
    int nmaps;      /* its TMA tensor maps, every one off for the config: zero bytes each */
    const CutuneCheckOptions *o;
} RunCase;


/* In the child: set the problem up, poison, launch, check; the result into res. */
static void run_steps(const RunCase *c, RunResult *res)
{
    const CutuneOp *op = c->v->op->op;
    CutuneError err = {0};
    CutuneHostCtx h;
    cutune_cpu_host_init(&h, c->o->cache_dir, &err);
    CutuneEmuKernel k;
    void *state = NULL, *args[CUTUNE_MAX_KERNEL_ARGS];
    CutuneConfig cfg = {c->sp->nparams, c->names, c->values};
    int n = 0;
    const char *stage = "load";
    if (cutune_emu_open(c->so, &k, &err) != 0)
        goto out;
    stage = "setup";
    if (op->setup(&h.host, c->p, c->o->seed, &state) != 0)
        goto out;
    stage = "arguments";
    if ((n = op->kernel_args(state, &cfg, args, CUTUNE_MAX_KERNEL_ARGS)) < 0) {
        cutune_error(&err, CUTUNE_ERR_PLUGIN, "the op's kernel_args returned %d", n);
        goto out;
    }
    /* after the op's arguments, the maps, as a GPU launch gets those that are off */
    static _Alignas(128) unsigned char off_maps[CUTUNE_MAX_TENSOR_MAPS][128];
    for (int i = 0; i < c->nmaps && n < CUTUNE_MAX_KERNEL_ARGS; i++)
        args[n++] = off_maps[i];
    stage = "poison";
    if (op->poison_output(&h.host, state) != 0)
        goto out;
    stage = "launch";
    if (cutune_emu_launch(&k, &c->launch, args, n, &err) != 0)
        goto out;
    stage = "check";
    if (op->check(&h.host, state, &res->check) != 0)
        goto out;
    stage = "";
out:
    snprintf(res->stage, sizeof res->stage, "%s", stage);
    snprintf(res->msg, sizeof res->msg, "%s",
             err.msg[0] ? err.msg
             : *stage   ? "the op's callback failed"
                        : "");
    res->done = 1;
}

/* The last lines of what the child wrote to its stderr (kemu's messages), into buf. */
static void tail_of(FILE *f, char *buf, size_t len)
{
    buf[0] = '\0';
    if (!f || fseek(f, 0, SEEK_END) != 0)
        return;
    long size = ftell(f);
    long from = size > (long)len - 1 ? size - (long)len + 1 : 0;
    if (fseek(f, from, SEEK_SET) != 0)
        return;
    size_t got = fread(buf, 1, len - 1, f);
    buf[got] = '\0';
    while (got > 0 && (buf[got - 1] == '\n' || buf[got - 1] == ' '))
        buf[--got] = '\0';
}

/* Run one case in a child, within the time limit; the verdict into res, or a sentence on
 * what happened to the child into why (res->done 0). */
static int run_case(const RunCase *c, RunResult *res, char *why, size_t len, CutuneError *err)
{
    memset(res, 0, sizeof *res);
    why[0] = '\0';
    int fds[2];
    FILE *errf = tmpfile();
    if (pipe(fds) != 0) {
        if (errf)
            fclose(errf);
        return cutune_error(err, CUTUNE_ERR_IO, "pipe: %s", strerror(errno));
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        if (errf)
            dup2(fileno(errf), STDERR_FILENO);
        /* a fault is the kernel's: it ends the child with its signal, which the parent
         * reports (a sanitizer's handler would turn it into an exit status) */
        static const int faults[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
        for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++)
            signal(faults[i], SIG_DFL);
        RunResult r;
        memset(&r, 0, sizeof r);
        run_steps(c, &r);
        ssize_t w = write(fds[1], &r, sizeof r);
        _exit(w == (ssize_t)sizeof r ? 0 : 1);
    }
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        if (errf)
            fclose(errf);
        return cutune_error(err, CUTUNE_ERR_IO, "fork: %s", strerror(errno));
    }
    size_t got = 0;
    double deadline = cutune_now() + c->o->run_timeout_s;
    int timed_out = 0;
    while (got < sizeof *res) {
        double left = deadline - cutune_now();
        struct pollfd pfd = {fds[0], POLLIN, 0};
        int pr = left > 0 ? poll(&pfd, 1, (int)(left * 1000) + 1) : 0;
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr <= 0) {
            timed_out = pr == 0;
            break;
        }
        ssize_t n = read(fds[0], (char *)res + got, sizeof *res - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fds[0]);
    if (timed_out)
        kill(pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    char tail[600];
    tail_of(errf, tail, sizeof tail);
    if (errf)
        fclose(errf);
    if (got == sizeof *res && res->done)
        return 0;
    res->done = 0;
    if (timed_out)
        snprintf(why, len, "timeout: still running after %.0f s (a smaller --size runs faster)",
                 c->o->run_timeout_s);
    else if (WIFSIGNALED(status))
        snprintf(why, len, "crashed: %s%s%s%s", strsignal(WTERMSIG(status)),
                 WTERMSIG(status) == SIGSEGV || WTERMSIG(status) == SIGBUS
                     ? " (a read or write outside the kernel's buffers?)"
                     : "",
                 *tail ? ": " : "", tail);
    else
        snprintf(why, len, "the run ended with exit status %d%s%s",
                 WIFEXITED(status) ? WEXITSTATUS(status) : -1, *tail ? ": " : "", tail);
    return 0;
}

/* Build the kernel of one config for the emulation and run it at one size. */
static int run_config(RunCase *c, const char *config, const char *size, CutuneCheckReport *r,
                      CutuneError *err)
{
    CutuneDefines d;
    cutune_defines_of(c->sp, c->values, &d);
    cutune_defines_kind(&d, c->p); /* the size's element type and layout, as a run compiles */
    char so[4096];
    CutuneError e = {0};
    r->ran++;
    if (cutune_emu_build(c->v->source, c->v->kernel_name, d.ptr, d.n, c->o->cache_dir, so,
                         sizeof so, &e) != 0) {
        cutune_check_say(c->o, "  FAIL config %s at %s cannot run on the CPU: %s\n", config, size,
                         e.msg);
        r->ran_failed++;
        return e.code == CUTUNE_ERR_NOT_FOUND ? e.code : 0; /* no compiler: no use going on */
    }
    c->so = so;
    RunResult res;
    char why[800];
    int rc = run_case(c, &res, why, sizeof why, err);
    if (rc)
        return rc;
    if (!res.done) {
        cutune_check_say(c->o, "  FAIL config %s at %s on the CPU: %s\n", config, size, why);
        r->ran_failed++;
    } else if (res.stage[0]) {
        cutune_check_say(c->o, "  FAIL config %s at %s on the CPU: %s: %s\n", config, size,
                         res.stage, res.msg);
        r->ran_failed++;
    } else if (!res.check.passed) {
        cutune_check_say(c->o, "  FAIL config %s at %s on the CPU: wrong_result: %s\n", config,
                         size, res.check.message[0] ? res.check.message : "the op's check failed");
        r->ran_failed++;
    } else {
        cutune_check_say(c->o, "  ran %s at %s on the CPU: ok (error %.3g, tolerance %.3g)\n",
                         config, size, res.check.error, res.check.tolerance);
    }
    return 0;
}

int cutune_variant_run(const CutuneVariantDef *v, const CutuneSpace *sp,
                       const CutuneCheckOptions *o, const char *const *sizes, size_t nsizes,
                       CutuneCheckReport *r, CutuneError *err)
{
    CutuneCheckGeometry cg;
    int rc = cutune_check_geometry(v, sp, &cg, err);
    if (rc) /* check_launches said why already */
        return rc == CUTUNE_ERR_NOMEM ? rc : 0;
    size_t before = r->ran_failed, ran_before = r->ran;
    for (size_t k = 0; k < nsizes && rc == 0; k++) {
        CutuneProblem p;
        CutuneConfigList cl = {0};
        CutuneError e = {0};
        if (cutune_variant_problem(v, sizes[k], &p, &e) != 0 ||
            cutune_space_enumerate(sp, &cg.lim, p.dim, &cl, &e) != 0)
            continue; /* check_launches listed it */
        size_t *idx = malloc((cl.nconfigs ? cl.nconfigs : 1) * sizeof *idx);
        size_t n = idx ? cutune_check_pick(cl.nconfigs, o->run_configs, o->seed, idx) : 0;
        if (!idx)
            rc = cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
        for (size_t j = 0; j < n && rc == 0; j++) {
            const int64_t *values = cl.values + idx[j] * cl.nparams;
            char config[512], why[512];
            cutune_config_format(sp, values, config, sizeof config);
            RunCase c = {.v = v, .sp = sp, .names = cg.names, .values = values, .p = &p, .o = o};
            CutuneTensorMaps maps;
            int grc = cutune_geometry_eval(cg.g, values, &p, &cg.lim, &c.launch, &maps, why,
                                           sizeof why);
            if (grc == CUTUNE_ERR_RESOURCES)
                continue; /* it would be skipped_resources: there is nothing to run */
            if (grc) {
                rc = cutune_error(err, grc, "%s", why);
                break;
            }
            int tma = 0;
            for (int m = 0; m < maps.n; m++)
                tma |= maps.map[m].enabled;
            if (tma) { /* kemu.hpp has no CUtensorMap nor the copies that read one */
                cutune_check_say(o,
                                 "  note: config %s at %s copies through TMA tensor maps, which "
                                 "the CPU emulation has not: not run\n",
                                 config, sizes[k]);
                continue;
            }
            unsigned long long threads = (unsigned long long)c.launch.grid[0] * c.launch.grid[1] *
                                         c.launch.grid[2] * c.launch.block[0] * c.launch.block[1] *
                                         c.launch.block[2];
            if (threads > RUN_THREADS_MAX) {
                cutune_check_say(
                    o,
                    "  note: config %s at %s launches %llu threads, too many for the CPU "
                    "emulation (at most %u): not run; give a smaller --size\n",
                    config, sizes[k], threads, RUN_THREADS_MAX);
                continue;
            }
            c.nmaps = maps.n;
            rc = run_config(&c, config, sizes[k], r, err);
            fflush(o->out);
        }
        free(idx);
        cutune_config_list_free(&cl);
    }
    cutune_check_geometry_free(&cg);
    if (rc == CUTUNE_ERR_NOT_FOUND) /* no C++ compiler: said above, and a failure */
        rc = 0;
    size_t ran = r->ran - ran_before, failed = r->ran_failed - before;
    cutune_check_say(o,
                     "  ran %zu (config, size) pair%s on the CPU emulation: %zu ok, %zu failed\n",
                     ran, ran == 1 ? "" : "s", ran - failed, failed);
    if (ran == 0) {
        cutune_check_say(
            o, "  FAIL nothing was run on the CPU: no config at these sizes can launch there\n");
        r->failures++;
    }
    r->failures += failed;
    return rc;
}
