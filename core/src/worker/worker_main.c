/* cutune-worker: the process in which kernels under tuning run (see proto.h for the
 * protocol and worker_client.h for the tuner's side). It owns the CUDA context, the
 * op's problem state and nothing else, so that a kernel that faults, hangs or breaks
 * the context takes only this process down; the tuner records the config and starts a
 * fresh one.
 *
 * usage: cutune-worker FD   (FD: the socket to the tuner; started by libcutune only) */
#include "compile.h"
#include "device.h"
#include "host.h"
#include "measure.h"
#include "space_limits.h"
#include "proto.h"
#include "registry.h"
#include "util.h"

#include <cuda_runtime.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

typedef struct Worker {
    int fd;
    CutuneDeviceInfo dev;
    int has_device;
    CutuneOpDef op; /* the contract: setup, arguments, poisoning, check */
    CutuneHostCtx hc;
    CutuneError err;
    void *state;
    int has_problem;
    CutuneProblem problem;
    CutuneVariantDef lib; /* the library variant last evaluated, kept open (lib.path NULL:
                             none) */
    CutuneBuf in, out;
} Worker;

static int send_error(Worker *w, int code, const char *msg)
{
    cutune_buf_reset(&w->out);
    cutune_buf_put_u32(&w->out, (uint32_t)code);
    cutune_buf_put_str(&w->out, msg);
    return cutune_msg_send(w->fd, CUTUNE_MSG_ERROR, &w->out);
}

static int send_empty(Worker *w, uint32_t type)
{
    cutune_buf_reset(&w->out);
    return cutune_msg_send(w->fd, type, &w->out);
}

static void teardown(Worker *w)
{
    if (w->has_problem) {
        if (w->state)
            w->op.op->teardown(&w->hc.host, w->state);
        cutune_host_release(&w->hc);
        w->state = NULL;
        w->has_problem = 0;
    }
    if (w->op.path)
        cutune_op_close(&w->op);
}

static int on_hello(Worker *w)
{
    uint32_t version = cutune_buf_get_u32(&w->in);
    int device = (int)cutune_buf_get_u32(&w->in);
    if (w->in.bad || version != CUTUNE_PROTO_VERSION)
        return send_error(w, CUTUNE_ERR_INVALID,
                          "cutune and cutune-worker are from different "
                          "builds; rebuild both (ninja -C build) or fix CUTUNE_WORKER");
    cutune_error_clear(&w->err);
    int rc = cutune_device_open(device, &w->dev, &w->err);
    if (rc)
        return send_error(w, rc, w->err.msg);
    w->has_device = 1;
    cutune_buf_reset(&w->out);
    cutune_buf_put_bytes(&w->out, &w->dev, sizeof w->dev);
    int sm_khz = 0, mem_khz = 0;
    cutune_device_clocks(device, &sm_khz, &mem_khz);
    cutune_buf_put_u32(&w->out, (uint32_t)sm_khz);
    cutune_buf_put_u32(&w->out, (uint32_t)mem_khz);
    return cutune_msg_send(w->fd, CUTUNE_MSG_DEVICE, &w->out);
}

/* The devices the driver sees (cutune run --device all), before any is opened. */
static int on_count(Worker *w)
{
    int count = 0;
    cutune_error_clear(&w->err);
    int rc = cutune_device_count(&count, &w->err);
    if (rc)
        return send_error(w, rc, w->err.msg);
    cutune_buf_reset(&w->out);
    cutune_buf_put_u32(&w->out, (uint32_t)count);
    return cutune_msg_send(w->fd, CUTUNE_MSG_OK, &w->out);
}

/* A compile process's request (compile_proc.h): NVRTC on the source here, the cubin or the
 * failure back; a source that does not compile is an answer, not an error of the worker. */
static int on_compile(Worker *w)
{
    const char *source = cutune_buf_get_str(&w->in);
    const char *name = cutune_buf_get_str(&w->in);
    uint32_t n = cutune_buf_get_u32(&w->in);
    const char **opts = n <= 4096 ? calloc(n ? n : 1, sizeof *opts) : NULL;
    for (uint32_t i = 0; opts && i < n; i++)
        opts[i] = cutune_buf_get_str(&w->in);
    if (!opts || w->in.bad) {
        free(opts);
        return send_error(w, CUTUNE_ERR_INVALID, "a malformed compile request");
    }
    CutuneKernelBinary bin;
    cutune_error_clear(&w->err);
    int rc = cutune_nvrtc_run(source, name, opts, n, &bin, &w->err);
    free(opts);
    cutune_buf_reset(&w->out);
    cutune_buf_put_u32(&w->out, (uint32_t)rc);
    cutune_buf_put_str(&w->out, rc ? w->err.msg : "");
    cutune_buf_put_str(&w->out, bin.log);
    cutune_buf_put_bytes(&w->out, bin.cubin, rc ? 0 : bin.size);
    cutune_kernel_binary_free(&bin);
    return cutune_msg_send(w->fd, CUTUNE_MSG_COMPILED, &w->out);
}

static int on_setup(Worker *w)
{
    const char *path = cutune_buf_get_str(&w->in);
    CutuneProblem p;
    cutune_buf_get_struct(&w->in, &p, sizeof p);
    uint64_t seed = (uint64_t)cutune_buf_get_i64(&w->in);
    int arch = (int)cutune_buf_get_u32(&w->in);
    const char *cache = cutune_buf_get_str(&w->in);
    if (w->in.bad || !w->has_device)
        return send_error(w, CUTUNE_ERR_INVALID, "malformed setup request");
    teardown(w);
    cutune_error_clear(&w->err);
    int rc = cutune_op_open(path, &w->op, &w->err);
    if (rc)
        return send_error(w, rc, w->err.msg);
    /* the host context keeps pointers to these strings: they live in w->in, which the
     * next message overwrites, so keep a copy of the cache folder */
    static char cache_dir[4096];
    snprintf(cache_dir, sizeof cache_dir, "%s", cache);
    cutune_host_init(&w->hc, arch, *cache_dir ? cache_dir : NULL, &w->err);
    w->problem = p;
    w->has_problem = 1;
    rc = w->op.op->setup(&w->hc.host, &w->problem, seed, &w->state);
    if (rc) {
        char msg[sizeof w->err.msg + 128];
        snprintf(msg, sizeof msg, "op %s: setting up the problem failed: %s", w->op.op->name,
                 w->err.msg[0] ? w->err.msg : cutune_strerror(rc));
        w->state = NULL;
        teardown(w);
        return send_error(w, rc, msg);
    }
    return send_empty(w, CUTUNE_MSG_OK);
}

/* The op's yardstick, `reps` calls back to back: a cudaError_t, as timing.c expects. */
static int enqueue_yardstick(void *user, int reps)
{
    const CutuneYardstick *ys = user;
    for (int i = 0; i < reps; i++)
        if (ys->run(ys->user, NULL) != 0) {
            cudaError_t e = cudaPeekAtLastError();
            return (int)(e != cudaSuccess ? e : cudaErrorUnknown);
        }
    return (int)cudaSuccess;
}

/* Poison the op's output, run the yardstick once, and check it as a kernel is checked:
 * a yardstick that does not compute the op is no yardstick. 0, or an error sent. */
static int check_yardstick(Worker *w, const CutuneYardstick *ys, int *sent)
{
    const CutuneOp *op = w->op.op;
    CutuneCheck chk = {0};
    char msg[sizeof w->err.msg + 256];
    if (op->poison_output(&w->hc.host, w->state) != 0 || ys->run(ys->user, NULL) != 0 ||
        cudaDeviceSynchronize() != cudaSuccess || op->check(&w->hc.host, w->state, &chk) != 0) {
        snprintf(msg, sizeof msg, "yardstick %s of op %s could not run: %s", ys->name, op->name,
                 w->err.msg[0] ? w->err.msg : cudaGetErrorString(cudaGetLastError()));
        *sent = 1;
        return send_error(w, CUTUNE_ERR_CUDA, msg);
    }
    if (!chk.passed) {
        snprintf(msg, sizeof msg, "yardstick %s fails the check of op %s: %s", ys->name, op->name,
                 chk.message);
        *sent = 1;
        return send_error(w, CUTUNE_ERR_WRONG_RESULT, msg);
    }
    return 0;
}

/* Time the op's vendor routine on the problem's inputs (see cutune/op.h). Sets *lost when
 * the CUDA context is gone. */
static int on_yardstick(Worker *w, int *lost)
{
    CutuneMeasureSettings s;
    cutune_buf_get_struct(&w->in, &s, sizeof s);
    if (w->in.bad || !w->has_problem || !w->state)
        return send_error(w, CUTUNE_ERR_INVALID, "malformed yardstick request, or no problem");
    const CutuneOp *op = w->op.op;
    int (*make)(const CutuneHost *, void *, const CutuneProblem *,
                CutuneYardstick *) = CUTUNE_OP_FIELD(op, yardstick);
    char msg[sizeof w->err.msg + 128];
    if (!make) {
        snprintf(msg, sizeof msg, "op %s offers no yardstick", op->name);
        return send_error(w, CUTUNE_ERR_NOT_FOUND, msg);
    }
    CutuneYardstick ys;
    memset(&ys, 0, sizeof ys);
    cutune_error_clear(&w->err);
    int rc = make(&w->hc.host, w->state, &w->problem, &ys);
    if (rc || !ys.run) {
        snprintf(msg, sizeof msg, "op %s: no yardstick: %s", op->name,
                 w->err.msg[0] ? w->err.msg : cutune_strerror(rc ? rc : CUTUNE_ERR_PLUGIN));
        return send_error(w, rc ? rc : CUTUNE_ERR_PLUGIN, msg);
    }
    ys.name[sizeof ys.name - 1] = '\0';
    int sent = 0;
    CutuneEvalResult res;
    memset(&res, 0, sizeof res);
    if (ys.checkable)
        rc = check_yardstick(w, &ys, &sent);
    if (!sent) {
        double t0 = cutune_now();
        cutune_time_calls(enqueue_yardstick, &ys, &s, 0, 0, &res);
        res.measure_ms = 1e3 * (cutune_now() - t0);
        *lost = res.context_lost;
    }
    if (ys.close && !*lost)
        ys.close(ys.user);
    if (sent)
        return rc;
    cutune_buf_reset(&w->out);
    cutune_buf_put_str(&w->out, ys.name);
    cutune_buf_put_bytes(&w->out, &res, sizeof res);
    return cutune_msg_send(w->fd, CUTUNE_MSG_YARDSTICK_RESULT, &w->out);
}

/* The library variant plugin at path, opened once for every config of it. NULL with why
 * filled when it cannot be loaded or is no library variant. */
static const CutuneVariant *library_at(Worker *w, const char *path, char *why, size_t len)
{
    if (!w->lib.path || strcmp(w->lib.path, path) != 0) {
        cutune_variant_close(&w->lib);
        CutuneError e = {0};
        if (cutune_variant_plugin_open(path, &w->lib, &e) != 0) {
            snprintf(why, len, "the library variant could not be loaded: %.400s", e.msg);
            return NULL;
        }
    }
    const CutuneVariant *v = cutune_variant_library(&w->lib);
    if (!v)
        snprintf(why, len, "%s is a variant plugin without library_run (a kernel variant)", path);
    return v;
}

/* Returns 1 when the context is lost and the worker must exit after answering. */
static int on_eval(Worker *w, int *lost)
{
    size_t n = cutune_buf_get_u32(&w->in);
    if (n > CUTUNE_MAX_PARAMS)
        w->in.bad = 1;
    const char *names[CUTUNE_MAX_PARAMS];
    int64_t values[CUTUNE_MAX_PARAMS];
    for (size_t i = 0; i < n && !w->in.bad; i++) {
        names[i] = cutune_buf_get_str(&w->in);
        values[i] = cutune_buf_get_i64(&w->in);
    }
    size_t cubin_size;
    const void *cubin = cutune_buf_get_bytes(&w->in, &cubin_size);
    const char *kernel_name = cutune_buf_get_str(&w->in);
    const char *library = cutune_buf_get_str(&w->in);
    CutuneLaunch launch;
    cutune_buf_get_struct(&w->in, &launch, sizeof launch);
    CutuneTensorMaps maps;
    cutune_buf_get_struct(&w->in, &maps, sizeof maps);
    if (maps.n < 0 || maps.n > CUTUNE_MAX_TENSOR_MAPS)
        w->in.bad = 1;
    double best_ms = cutune_buf_get_f64(&w->in);
    CutuneMeasureSettings s;
    cutune_buf_get_struct(&w->in, &s, sizeof s);
    if (w->in.bad || !w->has_problem || !cubin)
        return send_error(w, CUTUNE_ERR_INVALID, "malformed evaluation request");
    CutuneEvalResult res;
    memset(&res, 0, sizeof res);
    const CutuneVariant *lib = NULL;
    if (*library && !(lib = library_at(w, library, res.message, sizeof res.message))) {
        res.status = CUTUNE_STATUS_LAUNCH_ERROR;
        cutune_buf_reset(&w->out);
        cutune_buf_put_bytes(&w->out, &res, sizeof res);
        return cutune_msg_send(w->fd, CUTUNE_MSG_RESULT, &w->out);
    }
    /* the cubin must stay aligned for the loader: copy it out of the message */
    void *image = lib ? NULL : malloc(cubin_size ? cubin_size : 1);
    if (!lib && !image)
        return send_error(w, CUTUNE_ERR_NOMEM, "out of memory");
    if (image)
        memcpy(image, cubin, cubin_size);
    CutuneConfig cfg = {n, names, values};
    CutuneEvalInput in = {
        .op = w->op.op,
        .host = &w->hc.host,
        .state = w->state,
        .problem = &w->problem,
        .config = &cfg,
        .cubin = image,
        .kernel_name = kernel_name,
        .launch = &launch,
        .maps = &maps,
        .device = &w->dev,
        .best_ms = best_ms,
        .library = lib,
    };
    /* a failure return means this process can no longer trust the GPU (a sticky error, or
     * the plugin's poison or check failing through CUDA): answer, then exit, so that the
     * tuner replaces us rather than blaming the next configs */
    if (cutune_evaluate(&in, &s, &res) != 0)
        res.context_lost = 1;
    free(image);
    *lost = res.context_lost;
    cutune_buf_reset(&w->out);
    cutune_buf_put_bytes(&w->out, &res, sizeof res);
    return cutune_msg_send(w->fd, CUTUNE_MSG_RESULT, &w->out);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "cutune-worker is started by cutune (libcutune), not by hand\n");
        return 2;
    }
    /* Die with the tuner, even when it is killed with SIGKILL: a worker left behind would
     * hold the GPU. (The tuner spawns it from its main thread, which lives as long as the
     * process.) Ctrl-C belongs to the tuner, which stops after the trial in flight. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() == 1)
        return 1;
    signal(SIGINT, SIG_IGN);
    Worker w;
    memset(&w, 0, sizeof w);
    w.fd = atoi(argv[1]);
    int rc = 0, lost = 0;
    while (rc == 0 && !lost) {
        uint32_t type;
        if (cutune_msg_recv(w.fd, &type, &w.in) != 0)
            break; /* the tuner closed the socket: done */
        switch (type) {
        case CUTUNE_MSG_HELLO: rc = on_hello(&w); break;
        case CUTUNE_MSG_COUNT: rc = on_count(&w); break;
        case CUTUNE_MSG_COMPILE: rc = on_compile(&w); break;
        case CUTUNE_MSG_SETUP: rc = on_setup(&w); break;
        case CUTUNE_MSG_EVAL: rc = on_eval(&w, &lost); break;
        case CUTUNE_MSG_YARDSTICK: rc = on_yardstick(&w, &lost); break;
        case CUTUNE_MSG_TEARDOWN:
            teardown(&w);
            rc = send_empty(&w, CUTUNE_MSG_OK);
            break;
        default: rc = send_error(&w, CUTUNE_ERR_INVALID, "unknown request"); break;
        }
    }
    if (lost) { /* the context is gone: free host memory only, nothing through CUDA */
        free(w.hc.allocs);
        cutune_variant_close(&w.lib);
        cutune_buf_free(&w.in);
        cutune_buf_free(&w.out);
        return 3;
    }
    teardown(&w);
    cutune_variant_close(&w.lib);
    cutune_buf_free(&w.in);
    cutune_buf_free(&w.out);
    return 0;
}
