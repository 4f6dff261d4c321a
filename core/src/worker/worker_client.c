/* Starting, talking to, timing out and replacing the worker process (see worker_client.h). */
#include "worker_client.h"
#include "space_limits.h"
#include "proto.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define WORKER_FD 3 /* the worker's end of the socket, in the worker */

struct CutuneWorker {
    pid_t pid;
    int fd;
    int device;
    int starts;
    CutuneWorkerLimits lim;
    CutuneDeviceInfo dev;
    int sm_clock_khz, mem_clock_khz; /* peak clocks, from the hello's answer */
    CutuneBuf buf;
    /* the problem set up now, for a replacement worker */
    int has_problem;
    char *plugin_path, *cache_dir;
    CutuneProblem problem;
    uint64_t seed;
    int arch;
};

void cutune_worker_limits_defaults(CutuneWorkerLimits *l)
{
    l->timeout_factor = 10;
    l->timeout_floor_s = 2;
    l->setup_timeout_s = 300;
    l->stop = NULL;
}

double cutune_worker_eval_limit(const CutuneWorkerLimits *l, const CutuneMeasureSettings *s,
                                double best_ms)
{
    double launch = l->timeout_factor * best_ms / 1e3;
    if (!(launch > l->timeout_floor_s))
        launch = l->timeout_floor_s;
    int warmup = s->warmup > 0 ? s->warmup : 1;
    return (warmup + 4) * launch + s->max_seconds + 1.0;
}

int cutune_worker_path(char *buf, size_t len, CutuneError *err)
{
    const char *env = getenv("CUTUNE_WORKER");
    if (env && *env) {
        if (access(env, X_OK) != 0)
            return cutune_error(err, CUTUNE_ERR_NOT_FOUND,
                                "CUTUNE_WORKER is '%s', which is not an executable file (%s); "
                                "point it at cutune-worker or unset it",
                                env, strerror(errno));
        if ((size_t)snprintf(buf, len, "%s", env) >= len)
            return cutune_error(err, CUTUNE_ERR_RANGE, "CUTUNE_WORKER path is too long");
        return 0;
    }
    char dir[PATH_MAX] = "";
    if (cutune_lib_dir(dir, sizeof dir) == 0) {
        if ((size_t)snprintf(buf, len, "%s/cutune-worker", dir) < len && access(buf, X_OK) == 0)
            return 0; /* build tree: beside libcutune */
#ifdef CUTUNE_LIBDIR_TO_WORKER
        if ((size_t)snprintf(buf, len, "%s/%s", dir, CUTUNE_LIBDIR_TO_WORKER) < len &&
            access(buf, X_OK) == 0)
            return 0; /* an installed tree, wherever it was put */
#endif
    }
#ifdef CUTUNE_INSTALL_WORKER
    if ((size_t)snprintf(buf, len, "%s", CUTUNE_INSTALL_WORKER) < len && access(buf, X_OK) == 0)
        return 0;
    const char *installed = CUTUNE_INSTALL_WORKER;
#else
    const char *installed = "(none)";
#endif
    return cutune_error(err, CUTUNE_ERR_NOT_FOUND,
                        "cannot find the cutune-worker executable (looked in %s/ and at %s); "
                        "build it with `ninja -C build`, or set CUTUNE_WORKER to its path",
                        *dir ? dir : "the library's folder", installed);
}

/* Wait up to `limit` seconds for the worker to become readable. 1: readable (or hung up),
 * 0: deadline passed, 2: stopped (*stop reached 2: a second Ctrl-C). A first signal does
 * not cut the wait: the trial in flight finishes. */
static int wait_readable(int fd, double limit, const volatile sig_atomic_t *stop)
{
    double end = cutune_now() + limit;
    for (;;) {
        if (stop && *stop >= 2)
            return 2;
        double left = end - cutune_now();
        if (left <= 0)
            return 0;
        struct pollfd p = {fd, POLLIN, 0};
        /* with a stop flag, wake often enough to see it (a signal may land between the
         * check and the poll) */
        double cap = stop ? 0.1 : 3600;
        int ms = (int)ceil((left > cap ? cap : left) * 1e3);
        int r = poll(&p, 1, ms);
        if (r > 0)
            return 1;
        if (r < 0 && errno != EINTR)
            return 1; /* let the read report it */
    }
}

/* Kill (if asked) and reap the worker; describe how it ended in why. */
static void reap(CutuneWorker *w, int kill_it, char *why, size_t len)
{
    if (w->fd >= 0) {
        close(w->fd);
        w->fd = -1;
    }
    if (w->pid <= 0)
        return;
    if (kill_it)
        kill(w->pid, SIGKILL);
    int st = 0;
    pid_t r;
    /* a worker whose socket closed exits at once; give it a second, then kill it */
    for (int i = 0; !kill_it && i < 100; i++) {
        r = waitpid(w->pid, &st, WNOHANG);
        if (r == w->pid)
            goto reaped;
        usleep(10000);
    }
    kill(w->pid, SIGKILL);
    while ((r = waitpid(w->pid, &st, 0)) < 0 && errno == EINTR)
        ;
reaped:
    if (why && len) {
        if (r != w->pid)
            snprintf(why, len, "the worker process could not be waited for");
        else if (WIFSIGNALED(st))
            snprintf(why, len, "the worker process died of signal %d (%s)", WTERMSIG(st),
                     strsignal(WTERMSIG(st)));
        else
            snprintf(why, len, "the worker process exited with status %d", WEXITSTATUS(st));
    }
    w->pid = -1;
}

static int spawn(CutuneWorker *w, CutuneError *err)
{
    char path[PATH_MAX];
    int rc = cutune_worker_path(path, sizeof path, err);
    if (rc)
        return rc;
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        return cutune_error(err, CUTUNE_ERR_IO, "cannot create the worker socket: %s",
                            strerror(errno));
    if (sv[1] == WORKER_FD) { /* dup2 onto itself would keep close-on-exec */
        int moved = fcntl(sv[1], F_DUPFD_CLOEXEC, WORKER_FD + 1);
        close(sv[1]);
        sv[1] = moved;
    }
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&at);
    posix_spawn_file_actions_adddup2(&fa, sv[1], WORKER_FD);
    /* Its own process group: Ctrl-C on the terminal stops the tuner after the trial in
     * flight; it must not kill the worker under that trial. */
    sigset_t none, def;
    sigemptyset(&none);
    sigemptyset(&def);
    sigaddset(&def, SIGINT);
    sigaddset(&def, SIGTERM);
    sigaddset(&def, SIGPIPE);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setsigdefault(&at, &def);
    posix_spawnattr_setpgroup(&at, 0);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                      POSIX_SPAWN_SETSIGDEF);
    char fdarg[16];
    snprintf(fdarg, sizeof fdarg, "%d", WORKER_FD);
    char *argv[] = {path, fdarg, NULL};
    pid_t pid;
    int e = sv[1] >= 0 ? posix_spawn(&pid, path, &fa, &at, argv, environ) : errno;
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    if (sv[1] >= 0)
        close(sv[1]);
    if (e != 0) {
        close(sv[0]);
        return cutune_error(err, CUTUNE_ERR_IO, "cannot start the worker %s: %s", path,
                            strerror(e));
    }
    w->pid = pid;
    w->fd = sv[0];
    w->starts++;
    return 0;
}

/* Receive the answer to a request within `limit` seconds. Returns 0 with the type, 1 on
 * timeout, or < 0 when the worker is gone. */
static int answer(CutuneWorker *w, double limit, uint32_t *type)
{
    int r = wait_readable(w->fd, limit, w->lim.stop);
    if (r != 1)
        return r == 2 ? 2 : 1;
    return cutune_msg_recv(w->fd, type, &w->buf);
}

/* An ERROR payload into err; returns its code. */
static int error_answer(CutuneWorker *w, const char *what, CutuneError *err)
{
    int code = (int)(int32_t)cutune_buf_get_u32(&w->buf);
    const char *msg = cutune_buf_get_str(&w->buf);
    if (w->buf.bad || code >= 0)
        code = CUTUNE_ERR_IO;
    return cutune_error(err, code, "%s", *msg ? msg : what);
}

/* The answer to a request sent (send_rc: how the send went), expected to be `want` within
 * `limit`; on failure the worker is reaped and err says why. */
static int request_end(CutuneWorker *w, int send_rc, uint32_t want, double limit, const char *what,
                       CutuneError *err)
{
    uint32_t got = 0;
    int rc = send_rc;
    if (rc == 0)
        rc = answer(w, limit, &got);
    if (rc == 0 && got == want)
        return 0;
    char why[160] = "";
    if (rc == 0 && got == CUTUNE_MSG_ERROR) {
        rc = error_answer(w, what, err);
        reap(w, 1, NULL, 0);
        return rc;
    }
    reap(w, 1, why, sizeof why);
    if (rc == 2)
        return cutune_error(err, CUTUNE_ERR_INTERRUPTED,
                            "%s: stopped by a second signal; the "
                            "worker was killed",
                            what);
    if (rc == 1)
        return cutune_error(err, CUTUNE_ERR_IO, "%s: the worker did not answer within %.0f s", what,
                            limit);
    return cutune_error(err, CUTUNE_ERR_IO, "%s: %s", what,
                        rc == 0 ? "the worker sent an unexpected answer" : why);
}

/* A request that expects OK (or DEVICE for hello) within `limit` (see request_end). */
static int request(CutuneWorker *w, uint32_t type, uint32_t want, double limit, const char *what,
                   CutuneError *err)
{
    return request_end(w, cutune_msg_send(w->fd, type, &w->buf), want, limit, what, err);
}

/* Hello in two halves, so that several workers open their devices at once: the request,
 * then the answer (DEVICE). */
static int hello_begin(CutuneWorker *w)
{
    cutune_buf_reset(&w->buf);
    cutune_buf_put_u32(&w->buf, CUTUNE_PROTO_VERSION);
    cutune_buf_put_u32(&w->buf, (uint32_t)w->device);
    return cutune_msg_send(w->fd, CUTUNE_MSG_HELLO, &w->buf);
}

static int hello_end(CutuneWorker *w, int send_rc, CutuneDeviceInfo *dev, CutuneError *err)
{
    int rc = request_end(w, send_rc, CUTUNE_MSG_DEVICE, w->lim.setup_timeout_s,
                         "starting the worker process", err);
    if (rc)
        return rc;
    cutune_buf_get_struct(&w->buf, dev, sizeof *dev);
    w->sm_clock_khz = (int)cutune_buf_get_u32(&w->buf);
    w->mem_clock_khz = (int)cutune_buf_get_u32(&w->buf);
    if (w->buf.bad) {
        reap(w, 1, NULL, 0);
        return cutune_error(err, CUTUNE_ERR_IO,
                            "the worker process described the device in a "
                            "form this cutune does not read; rebuild cutune and cutune-worker "
                            "together (ninja -C build)");
    }
    return 0;
}

static int hello(CutuneWorker *w, CutuneDeviceInfo *dev, CutuneError *err)
{
    return hello_end(w, hello_begin(w), dev, err);
}

static int send_setup(CutuneWorker *w, CutuneError *err)
{
    cutune_buf_reset(&w->buf);
    cutune_buf_put_str(&w->buf, w->plugin_path);
    cutune_buf_put_bytes(&w->buf, &w->problem, sizeof w->problem);
    cutune_buf_put_i64(&w->buf, (int64_t)w->seed);
    cutune_buf_put_u32(&w->buf, (uint32_t)w->arch);
    cutune_buf_put_str(&w->buf, w->cache_dir);
    return request(w, CUTUNE_MSG_SETUP, CUTUNE_MSG_OK, w->lim.setup_timeout_s,
                   "setting the problem up in the worker", err);
}

/* A worker not started yet, with its limits (unset, zero, ones take the defaults: a caller
 * that did not start from cutune_tune_defaults must not get a deadline of nothing). */
static CutuneWorker *worker_new(int device, const CutuneWorkerLimits *lim)
{
    CutuneWorker *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->pid = -1;
    w->fd = -1;
    w->device = device;
    cutune_worker_limits_defaults(&w->lim);
    if (lim && lim->timeout_factor > 0)
        w->lim.timeout_factor = lim->timeout_factor;
    if (lim && lim->timeout_floor_s > 0)
        w->lim.timeout_floor_s = lim->timeout_floor_s;
    if (lim && lim->setup_timeout_s > 0)
        w->lim.setup_timeout_s = lim->setup_timeout_s;
    if (lim)
        w->lim.stop = lim->stop;
    return w;
}

int cutune_worker_start(int device, const CutuneWorkerLimits *lim, CutuneWorker **out,
                        CutuneDeviceInfo *dev, CutuneError *err)
{
    CutuneWorkerStart s = {.device = device};
    cutune_worker_start_all(&s, 1, lim);
    *out = s.worker;
    if (s.rc == 0)
        *dev = s.dev;
    else if (err)
        *err = s.err;
    return s.rc;
}

void cutune_worker_start_all(CutuneWorkerStart *s, size_t n, const CutuneWorkerLimits *lim)
{
    int *sent = calloc(n ? n : 1, sizeof *sent);
    /* every worker is spawned and asked first (spawning is quick), then the answers are
     * read: the workers open their devices, the slow part, at once */
    for (size_t i = 0; i < n; i++) {
        s[i].worker = NULL;
        s[i].rc = 0;
        memset(&s[i].err, 0, sizeof s[i].err);
        CutuneWorker *w = worker_new(s[i].device, lim);
        if (!w || !sent) {
            s[i].rc = cutune_error(&s[i].err, CUTUNE_ERR_NOMEM, "out of memory");
            free(w);
            continue;
        }
        s[i].worker = w;
        if ((s[i].rc = spawn(w, &s[i].err)) == 0)
            sent[i] = hello_begin(w);
    }
    for (size_t i = 0; i < n; i++) {
        if (s[i].rc == 0 &&
            (s[i].rc = hello_end(s[i].worker, sent[i], &s[i].worker->dev, &s[i].err)) == 0)
            s[i].dev = s[i].worker->dev; /* kept: a replacement must see the same device */
        if (s[i].rc)
            cutune_worker_stop(&s[i].worker);
    }
    free(sent);
}

int cutune_worker_device_count(const CutuneWorkerLimits *lim, int *count, CutuneError *err)
{
    *count = 0;
    CutuneWorker *w = worker_new(0, lim);
    if (!w)
        return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
    int rc = spawn(w, err);
    if (rc == 0) {
        cutune_buf_reset(&w->buf);
        rc = request(w, CUTUNE_MSG_COUNT, CUTUNE_MSG_OK, w->lim.setup_timeout_s,
                     "counting the CUDA devices", err);
    }
    if (rc == 0) {
        *count = (int)cutune_buf_get_u32(&w->buf);
        if (w->buf.bad || *count <= 0)
            rc = cutune_error(err, CUTUNE_ERR_NO_DEVICE, "no CUDA device: the driver found none");
    }
    cutune_worker_stop(&w);
    return rc;
}

/* Replace a dead or killed worker: a fresh process, the same device, the same problem. */
static int restart(CutuneWorker *w, CutuneError *err)
{
    CutuneDeviceInfo d;
    int rc = spawn(w, err);
    if (rc == 0)
        rc = hello(w, &d, err);
    if (rc == 0 && strcmp(d.uuid, w->dev.uuid) != 0)
        rc = cutune_error(err, CUTUNE_ERR_CUDA,
                          "the replacement worker sees device %s (%s), not "
                          "%s; is CUDA_VISIBLE_DEVICES changing?",
                          d.uuid, d.name, w->dev.uuid);
    if (rc == 0 && w->has_problem)
        rc = send_setup(w, err);
    return rc;
}

int cutune_worker_setup(CutuneWorker *w, const char *contract_path, const CutuneProblem *p,
                        uint64_t seed, int arch, const char *cache_dir, CutuneError *err)
{
    free(w->plugin_path);
    free(w->cache_dir);
    w->has_problem = 0;
    w->plugin_path = strdup(contract_path ? contract_path : "");
    w->cache_dir = strdup(cache_dir ? cache_dir : "");
    if (!w->plugin_path || !w->cache_dir)
        return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
    w->problem = *p;
    w->seed = seed;
    w->arch = arch;
    if (w->pid <= 0) {
        int rc = restart(w, err);
        if (rc)
            return rc;
    }
    int rc = send_setup(w, err);
    if (rc == 0)
        w->has_problem = 1;
    return rc;
}

/* An evaluation of a kernel (library "") or of a library variant's call (cubin empty). */
static int eval(CutuneWorker *w, const CutuneConfig *cfg, const void *cubin, size_t cubin_size,
                const char *kernel_name, const char *library, const CutuneLaunch *launch,
                const CutuneTensorMaps *maps, double best_ms, const CutuneMeasureSettings *s,
                CutuneEvalResult *out, CutuneError *err)
{
    CutuneTensorMaps none;
    memset(&none, 0, sizeof none);
    memset(out, 0, sizeof *out);
    if (!cfg || cfg->count > CUTUNE_MAX_PARAMS || (cfg->count && (!cfg->names || !cfg->values))) {
        out->status = CUTUNE_STATUS_LAUNCH_ERROR;
        snprintf(out->message, sizeof out->message, "a config of %zu parameters (at most %d)",
                 cfg ? cfg->count : 0, CUTUNE_MAX_PARAMS);
        return cutune_error(err, CUTUNE_ERR_INVALID, "cutune_worker_eval: %s", out->message);
    }
    double t0 = cutune_now();
    int rc = 0;
    if (w->pid <= 0 && (rc = restart(w, err))) {
        out->status = CUTUNE_STATUS_CRASHED;
        snprintf(out->message, sizeof out->message, "no worker process could be started");
        return rc;
    }
    cutune_buf_reset(&w->buf);
    cutune_buf_put_u32(&w->buf, (uint32_t)cfg->count);
    for (size_t i = 0; i < cfg->count; i++) {
        cutune_buf_put_str(&w->buf, cfg->names[i]);
        cutune_buf_put_i64(&w->buf, cfg->values[i]);
    }
    cutune_buf_put_bytes(&w->buf, cubin, cubin_size);
    cutune_buf_put_str(&w->buf, kernel_name);
    cutune_buf_put_str(&w->buf, library);
    cutune_buf_put_bytes(&w->buf, launch, sizeof *launch);
    cutune_buf_put_bytes(&w->buf, maps ? maps : &none, sizeof none);
    cutune_buf_put_f64(&w->buf, best_ms);
    cutune_buf_put_bytes(&w->buf, s, sizeof *s);
    double limit = cutune_worker_eval_limit(&w->lim, s, best_ms);
    uint32_t type = 0;
    rc = cutune_msg_send(w->fd, CUTUNE_MSG_EVAL, &w->buf);
    if (rc == 0)
        rc = answer(w, limit, &type);
    if (rc == 0 && type == CUTUNE_MSG_RESULT) {
        cutune_buf_get_struct(&w->buf, out, sizeof *out);
        /* the status indexes the tuner's counters: one out of range is a malformed answer */
        if ((int)out->status < 0 || out->status >= CUTUNE_STATUS_COUNT || out->samples < 0)
            w->buf.bad = 1;
        if (!w->buf.bad) {
            out->message[sizeof out->message - 1] = '\0';
            if (!out->context_lost)
                return 0;
            /* the kernel broke the worker's CUDA context: the worker exits; replace it */
            char why[160];
            reap(w, 0, why, sizeof why);
            out->context_lost = 0;
            return restart(w, err);
        }
        rc = CUTUNE_ERR_IO;
    }
    int malformed = rc == 0 || (rc == CUTUNE_ERR_IO && w->buf.bad);
    char why[160] = "";
    reap(w, 1, why, sizeof why);
    memset(out, 0, sizeof *out);
    if (rc == 2) { /* a second signal: the trial is dropped, not recorded */
        out->status = CUTUNE_STATUS_CRASHED;
        snprintf(out->message, sizeof out->message, "stopped by a second signal");
        return cutune_error(err, CUTUNE_ERR_INTERRUPTED,
                            "stopped by a second signal; the "
                            "worker and the trial in flight were killed");
    }
    if (rc == 1) {
        out->status = CUTUNE_STATUS_TIMEOUT;
        snprintf(out->message, sizeof out->message,
                 "no result within %.3g s (limit: (warm-up + 4) x max(%g x best %.4g ms, floor "
                 "%g s) + timing cap %g s + 1 s); the worker was killed",
                 limit, w->lim.timeout_factor, best_ms, w->lim.timeout_floor_s, s->max_seconds);
    } else {
        out->status = CUTUNE_STATUS_CRASHED;
        if (malformed)
            snprintf(out->message, sizeof out->message,
                     "the worker sent a malformed answer "
                     "during the evaluation and was replaced");
        else
            snprintf(out->message, sizeof out->message, "%s during the evaluation",
                     *why ? why : "the worker could not be reached");
    }
    out->measure_ms = 1e3 * (cutune_now() - t0);
    return restart(w, err);
}

int cutune_worker_eval(CutuneWorker *w, const CutuneConfig *cfg, const void *cubin,
                       size_t cubin_size, const char *kernel_name, const CutuneLaunch *launch,
                       const CutuneTensorMaps *maps, double best_ms, const CutuneMeasureSettings *s,
                       CutuneEvalResult *out, CutuneError *err)
{
    return eval(w, cfg, cubin, cubin_size, kernel_name, "", launch, maps, best_ms, s, out, err);
}

int cutune_worker_eval_library(CutuneWorker *w, const CutuneConfig *cfg, const char *plugin_path,
                               double best_ms, const CutuneMeasureSettings *s,
                               CutuneEvalResult *out, CutuneError *err)
{
    static const CutuneLaunch none = {{1, 1, 1}, {1, 1, 1}, 0};
    if (!plugin_path || !*plugin_path) {
        memset(out, 0, sizeof *out);
        out->status = CUTUNE_STATUS_LAUNCH_ERROR;
        snprintf(out->message, sizeof out->message, "no library variant plugin named");
        return cutune_error(err, CUTUNE_ERR_INVALID, "cutune_worker_eval_library: %s",
                            out->message);
    }
    return eval(w, cfg, "", 0, "", plugin_path, &none, NULL, best_ms, s, out, err);
}

int cutune_worker_yardstick(CutuneWorker *w, char *name, size_t name_len, double *median_ms,
                            int *samples, CutuneError *err)
{
    *median_ms = 0;
    *samples = 0;
    if (name_len)
        name[0] = '\0';
    if (!w->has_problem)
        return cutune_error(err, CUTUNE_ERR_INVALID,
                            "cutune_worker_yardstick: set a problem up first");
    int rc = 0;
    if (w->pid <= 0 && (rc = restart(w, err)))
        return rc;
    CutuneMeasureSettings s;
    cutune_measure_defaults(&s);
    s.early_stop = 0;
    cutune_buf_reset(&w->buf);
    cutune_buf_put_bytes(&w->buf, &s, sizeof s);
    double limit = cutune_worker_eval_limit(&w->lim, &s, 0);
    uint32_t type = 0;
    rc = cutune_msg_send(w->fd, CUTUNE_MSG_YARDSTICK, &w->buf);
    if (rc == 0)
        rc = answer(w, limit, &type);
    if (rc == 0 && type == CUTUNE_MSG_ERROR) /* the worker said why, and lives on */
        return error_answer(w, "the yardstick failed", err);
    CutuneEvalResult res;
    memset(&res, 0, sizeof res);
    const char *got = "";
    if (rc == 0 && type == CUTUNE_MSG_YARDSTICK_RESULT) {
        got = cutune_buf_get_str(&w->buf);
        cutune_buf_get_struct(&w->buf, &res, sizeof res);
        res.message[sizeof res.message - 1] = '\0';
        if (!w->buf.bad && res.status == CUTUNE_STATUS_OK && !res.context_lost) {
            snprintf(name, name_len, "%s", got);
            *median_ms = res.median_ms;
            *samples = res.samples;
            return 0;
        }
    }
    /* it failed, broke the worker, or hung: say so, and leave a working worker behind */
    char why[160] = "";
    int killed = !(rc == 0 && type == CUTUNE_MSG_YARDSTICK_RESULT && !w->buf.bad &&
                   !res.context_lost);
    if (killed)
        reap(w, rc != 0 || !res.context_lost, why, sizeof why);
    int code;
    if (rc == 1)
        code = cutune_error(err, CUTUNE_ERR_IO,
                            "the yardstick gave no result within %.3g s; "
                            "the worker was killed",
                            limit);
    else if (rc == 0 && !w->buf.bad && type == CUTUNE_MSG_YARDSTICK_RESULT)
        code = cutune_error(err, CUTUNE_ERR_CUDA, "yardstick %s: %s: %s", got,
                            cutune_status_name(res.status), res.message);
    else
        code = cutune_error(err, CUTUNE_ERR_IO, "the yardstick ended the worker: %s",
                            *why ? why : "a malformed answer");
    if (killed) {
        CutuneError again = {0};
        if (restart(w, &again) != 0)
            return cutune_error(err, again.code, "%s", again.msg);
    }
    return code;
}

void cutune_worker_teardown(CutuneWorker *w)
{
    if (!w)
        return;
    w->has_problem = 0;
    if (w->pid <= 0)
        return;
    cutune_buf_reset(&w->buf);
    uint32_t type = 0;
    int rc = cutune_msg_send(w->fd, CUTUNE_MSG_TEARDOWN, &w->buf);
    if (rc == 0)
        rc = answer(w, w->lim.setup_timeout_s, &type);
    if (rc != 0 || type != CUTUNE_MSG_OK)
        reap(w, 1, NULL, 0); /* a worker that cannot tear down is replaced when next needed */
}

void cutune_worker_clocks(const CutuneWorker *w, int *sm_khz, int *mem_khz)
{
    *sm_khz = w ? w->sm_clock_khz : 0;
    *mem_khz = w ? w->mem_clock_khz : 0;
}

int cutune_worker_starts(const CutuneWorker *w)
{
    return w ? w->starts : 0;
}

void cutune_worker_stop(CutuneWorker **wp)
{
    CutuneWorker *w = wp ? *wp : NULL;
    if (!w)
        return;
    reap(w, 0, NULL, 0);
    cutune_buf_free(&w->buf);
    free(w->plugin_path);
    free(w->cache_dir);
    free(w);
    *wp = NULL;
}

int cutune_worker_spawn_idle(CutuneWorker **out, CutuneError *err)
{
    *out = worker_new(-1, NULL);
    if (!*out)
        return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
    int rc = spawn(*out, err);
    if (rc)
        cutune_worker_stop(out);
    return rc;
}

CutuneBuf *cutune_worker_buffer(CutuneWorker *w)
{
    return &w->buf;
}

int cutune_worker_request(CutuneWorker *w, uint32_t type, uint32_t want, double limit,
                          const char *what, CutuneError *err)
{
    if (w->fd < 0)
        return cutune_error(err, CUTUNE_ERR_IO, "%s: the worker process is gone", what);
    return request(w, type, want, limit, what, err);
}
