/* A stand-in for cutune-worker, for testing the tuner's side of the worker protocol on a
 * machine without a GPU (selected with CUTUNE_WORKER=<this program>). It speaks the real
 * protocol (core/src/worker/proto.h), reports a fake device, accepts any problem, and "evaluates"
 * a config deterministically from its text, never touching CUDA:
 *
 *   median time  1 + (FNV-1a hash of the config text % 1000) / 100 ms
 *   CUTUNE_FAKE_RULES  "ACTION=CONFIG;ACTION=CONFIG;..." with CONFIG the canonical text
 *                      ("BLOCK=64,ITEMS=2") and ACTION one of
 *       abort    abort() while evaluating (SIGABRT, like a failed assertion)
 *       segv     raise SIGSEGV (like a driver crash)
 *       exit     _exit(1) without answering
 *       hang     never answer (like a kernel that loops forever)
 *       lost     answer `crashed` with context_lost set and exit (a sticky CUDA error)
 *       garbage  answer with a malformed message
 *       badstatus  answer a well-formed result whose status is out of range (99)
 *       wrong    answer wrong_result
 *       wrongodd answer wrong_result when a dimension of the problem set up is odd (a
 *                config right only at multiples of its tiles)
 *   CUTUNE_FAKE_SLOW   a config whose text contains this takes 20x its time (a variant
 *                      whose configs all name one parameter: "COPIES=")
 *   CUTUNE_FAKE_SKIP   ";"-separated texts: a config whose text contains one of them is
 *                      skipped_resources (as a GPU's limits or a library's check refuse it)
 *   CUTUNE_FAKE_DELAY_MS  sleep this long in every evaluation (default 0)
 *   CUTUNE_FAKE_SLOW_SIZE an evaluation of this size (as a run names it) sleeps 5 times
 *                         CUTUNE_FAKE_DELAY_MS: a size that keeps its GPU longer
 *   CUTUNE_FAKE_SETUP_MS  sleep this long in every problem setup (default 0)
 *   CUTUNE_FAKE_LOG       append "<pid> <config> <size>" for every evaluation begun (the
 *                         size of the last setup)
 * A correct result's message lists the TMA tensor maps the evaluation carried (say_maps).
 *   CUTUNE_FAKE_NO_DEVICE answer hello (and count) with "no CUDA driver or device"
 *   CUTUNE_FAKE_DEVICES   the GPUs of the fake machine: count answers it, and hello refuses
 *                         an ordinal past it as the real worker does; unset, count answers 1
 *                         and hello takes any ordinal. Device N's UUID ends in N + 1
 *   CUTUNE_FAKE_UUID      the device's UUID instead (default GPU-fa4e0000-...-00000000000<N+1>), and
 *   CUTUNE_FAKE_SMS       its SM count (default 132): GPUs of one model or of two
 *   CUTUNE_FAKE_GONE      a file: while it holds the ordinal of this worker's device, the
 *                         GPU is gone: an evaluation exits without answering and hello
 *                         answers a CUDA error (a GPU lost mid-run, for good)
 *   CUTUNE_FAKE_YARDSTICK the yardstick's answer: unset, "fake SGEMM" at 0.5 ms; "none", the
 *                         op has none (CUTUNE_ERR_NOT_FOUND); "wrong", it fails the check;
 *                         "exit", the worker dies; "exitat:N:FILE", the worker dies at the
 *                         run's N-th yardstick request, counted in FILE across workers (a
 *                         worker killed during that yardstick), and answers the others
 *
 * An evaluation of a library variant (it names the variant's C plugin and carries no cubin)
 * loads that plugin, as the real worker does, and answers like a kernel's (the same rules and
 * times); its log line ends with " library". With CUTUNE_FAKE_PREPARE=1 it first calls the
 * plugin's own library_prepare, with no device memory (for a library that is missing, which
 * the plugin finds before it touches a GPU), and answers its refusal as the worker does.
 *
 * It tests the parent's logic only; the real worker and real faulting kernels are tested on
 * the GPU (tests/test_faulty_gpu.c). */
#include "measure.h"
#include "proto.h"
#include "util.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static int fd;
static CutuneBuf in, out;
static char setup_size[64] = "-"; /* the problem of the last setup, for the log */
static CutuneProblem setup_problem;
static int setup_odd; /* a dimension of it is odd */

static void sleep_ms(double ms)
{
    struct timespec ts = {(time_t)(ms / 1e3),
                          (long)(1e6 * (ms - 1e3 * (double)(time_t)(ms / 1e3)))};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

/* The action a rule gives the config, or NULL. */
static const char *rule_for(const char *config, char *action, size_t len)
{
    const char *rules = getenv("CUTUNE_FAKE_RULES");
    if (!rules)
        return NULL;
    const char *p = rules;
    while (*p) {
        const char *end = strchr(p, ';');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        const char *eq = memchr(p, '=', n);
        if (eq) {
            size_t an = (size_t)(eq - p), cn = n - an - 1;
            if (cn == strlen(config) && memcmp(eq + 1, config, cn) == 0 && an < len) {
                memcpy(action, p, an);
                action[an] = '\0';
                return action;
            }
        }
        p += n;
        if (*p == ';')
            p++;
    }
    return NULL;
}

static void send_ok(uint32_t type)
{
    if (cutune_msg_send(fd, type, &out) != 0)
        exit(1);
}

static void send_error(int code, const char *msg)
{
    cutune_buf_reset(&out);
    cutune_buf_put_u32(&out, (uint32_t)code);
    cutune_buf_put_str(&out, msg);
    send_ok(CUTUNE_MSG_ERROR);
}

/* 1 when config contains one of CUTUNE_FAKE_SKIP's texts. */
static int skipped(const char *config)
{
    const char *list = getenv("CUTUNE_FAKE_SKIP");
    char text[256];
    while (list && *list) {
        size_t n = strcspn(list, ";");
        if (n > 0 && n < sizeof text) {
            memcpy(text, list, n);
            text[n] = '\0';
            if (strstr(config, text))
                return 1;
        }
        list += n + (list[n] == ';');
    }
    return 0;
}

/* CUTUNE_FAKE_DEVICES, or 0 when it is unset (any ordinal is taken). */
static int fake_devices(void)
{
    const char *n = getenv("CUTUNE_FAKE_DEVICES");
    return n && *n ? atoi(n) : 0;
}

static int my_device = -1;

/* CUTUNE_FAKE_GONE names this device. */
static int device_gone(int device)
{
    const char *path = getenv("CUTUNE_FAKE_GONE");
    FILE *f = path && *path ? fopen(path, "r") : NULL;
    int gone = -1;
    if (f) {
        if (fscanf(f, "%d", &gone) != 1)
            gone = -1;
        fclose(f);
    }
    return gone >= 0 && gone == device;
}

static void on_count(void)
{
    if (getenv("CUTUNE_FAKE_NO_DEVICE")) {
        send_error(CUTUNE_ERR_NO_DEVICE, "no CUDA driver or device (fake worker)");
        return;
    }
    int n = fake_devices();
    cutune_buf_reset(&out);
    cutune_buf_put_u32(&out, (uint32_t)(n > 0 ? n : 1));
    send_ok(CUTUNE_MSG_OK);
}

static void on_hello(void)
{
    (void)cutune_buf_get_u32(&in); /* the protocol version */
    int device = (int)cutune_buf_get_u32(&in), count = fake_devices();
    if (getenv("CUTUNE_FAKE_NO_DEVICE")) {
        send_error(CUTUNE_ERR_NO_DEVICE, "no CUDA driver or device (fake worker)");
        return;
    }
    if (device_gone(device)) {
        send_error(CUTUNE_ERR_CUDA, "cudaErrorDevicesUnavailable: the GPU fell off the bus (fake)");
        return;
    }
    my_device = device;
    if (count > 0 && (device < 0 || device >= count)) {
        char msg[128];
        snprintf(msg, sizeof msg, "no CUDA device %d: this machine has %d (0 to %d) (fake)", device,
                 count, count - 1);
        send_error(CUTUNE_ERR_NOT_FOUND, msg);
        return;
    }
    cutune_buf_reset(&out);
    CutuneDeviceInfo d;
    memset(&d, 0, sizeof d);
    const char *uuid = getenv("CUTUNE_FAKE_UUID"), *sms = getenv("CUTUNE_FAKE_SMS");
    d.index = device;
    snprintf(d.name, sizeof d.name, "cutune fake GPU");
    if (uuid)
        snprintf(d.uuid, sizeof d.uuid, "%s", uuid);
    else
        snprintf(d.uuid, sizeof d.uuid, "GPU-fa4e0000-0000-0000-0000-%012x", device + 1);
    d.cc_major = 9;
    d.sm_count = sms ? atoi(sms) : 132;
    d.total_mem = 80ull << 30;
    d.max_threads_per_block = 1024;
    d.max_shared_per_block = 232448;
    d.max_shared_per_sm = 233472;
    d.max_regs_per_block = 65536;
    d.warp_size = 32;
    d.l2_bytes = 50 << 20;
    cutune_buf_put_bytes(&out, &d, sizeof d);
    cutune_buf_put_u32(&out, 1980000); /* an H100 SXM's peak SM and memory clocks, kHz */
    cutune_buf_put_u32(&out, 2619000);
    send_ok(CUTUNE_MSG_DEVICE);
}

static int fake_fail(void *ctx, int code, const char *fmt, ...)
{
    (void)ctx;
    (void)fmt;
    return code;
}

/* A library variant's plugin, loaded as the worker loads it: 1 when the evaluation is
 * answered (*r filled) without a time: the plugin cannot be loaded or is no library
 * variant (launch_error), or CUTUNE_FAKE_PREPARE is set and its prepare refuses. */
static int library_refuses(const char *path, const CutuneConfig *cfg, CutuneEvalResult *r)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    void *sym = h ? dlsym(h, CUTUNE_PLUGIN_SYMBOL) : NULL;
    CutunePluginEntry entry;
    memcpy(&entry, &sym, sizeof sym);
    const CutuneVariant *v = entry ? entry() : NULL;
    if (!v || v->struct_size < sizeof *v || !v->library_prepare || !v->library_run) {
        r->status = CUTUNE_STATUS_LAUNCH_ERROR;
        snprintf(r->message, sizeof r->message, "fake worker: %s is no library variant", path);
        if (h)
            dlclose(h);
        return 1;
    }
    int answered = 0;
    const char *prep = getenv("CUTUNE_FAKE_PREPARE");
    if (prep && !strcmp(prep, "1")) {
        CutuneHost host = {.abi_major = CUTUNE_ABI_MAJOR,
                           .abi_minor = CUTUNE_ABI_MINOR,
                           .struct_size = sizeof host,
                           .fail = fake_fail};
        void *null = NULL, *handle = NULL;
        int dims[3] = {(int)setup_problem.dim[0], (int)setup_problem.dim[1],
                       (int)setup_problem.dim[2]};
        void *args[] = {&null, &null, &null, &dims[0], &dims[1], &dims[2]};
        int rc = v->library_prepare(&host, (void *const *)args, &setup_problem, cfg, &handle,
                                    r->message, sizeof r->message);
        if (rc) {
            r->status = cutune_library_refusal(rc);
            answered = 1;
        } else {
            v->library_release(handle);
            r->message[0] = '\0';
        }
    }
    dlclose(h);
    return answered;
}

/* The tensor maps an evaluation received, as the message of its result: "maps A:0 on 2
 * 4096x4096 64x128 sw128; B:1 off" (name:argument, then for one enabled its rank, dims, box
 * and swizzle), so that a test sees them cross the protocol. Nothing without maps. */
static void say_maps(const CutuneTensorMaps *m, char *buf, size_t len)
{
    size_t used = 0;
    for (int i = 0; i < m->n && used < len; i++) {
        const CutuneTensorMap *t = &m->map[i];
        int k = snprintf(buf + used, len - used, "%s%s:%d %s", i ? "; " : "maps ", t->name, t->arg,
                         t->enabled ? "on" : "off");
        for (int d = 0; t->enabled && k > 0 && d < 2 * t->rank && used + (size_t)k < len; d++) {
            int e = snprintf(buf + used + k, len - used - (size_t)k, "%s%lld",
                             d == 0         ? " "
                             : d == t->rank ? " "
                                            : "x",
                             d < t->rank ? (long long)t->dims[d] : (long long)t->box[d - t->rank]);
            k = e > 0 ? k + e : k;
        }
        if (t->enabled && k > 0 && used + (size_t)k < len)
            k += snprintf(buf + used + k, len - used - (size_t)k, " sw%d", t->swizzle);
        if (k < 0 || used + (size_t)k >= len)
            return;
        used += (size_t)k;
    }
}

static void on_eval(void)
{
    char config[512] = "";
    size_t used = 0;
    uint32_t n = cutune_buf_get_u32(&in);
    const char *names[64];
    int64_t values[64];
    for (uint32_t i = 0; i < n && !in.bad && i < 64; i++) {
        const char *name = names[i] = cutune_buf_get_str(&in);
        long long v = (long long)(values[i] = cutune_buf_get_i64(&in));
        int k = snprintf(config + used, sizeof config - used, "%s%s=%lld", i ? "," : "", name, v);
        if (k > 0 && (size_t)k < sizeof config - used)
            used += (size_t)k;
    }
    size_t cubin_size;
    const void *cubin = cutune_buf_get_bytes(&in, &cubin_size);
    const char *kernel = cutune_buf_get_str(&in);
    const char *library = cutune_buf_get_str(&in);
    CutuneLaunch launch;
    cutune_buf_get_struct(&in, &launch, sizeof launch);
    CutuneTensorMaps maps;
    cutune_buf_get_struct(&in, &maps, sizeof maps);
    double best_ms = cutune_buf_get_f64(&in);
    CutuneMeasureSettings s;
    cutune_buf_get_struct(&in, &s, sizeof s);
    int kernel_ok = cubin && cubin_size > 0 && *kernel && !*library;
    int library_ok = cubin && cubin_size == 0 && !*kernel && *library;
    if (in.bad || !(kernel_ok || library_ok) || launch.block[0] == 0 || maps.n < 0 ||
        maps.n > CUTUNE_MAX_TENSOR_MAPS) {
        fprintf(stderr, "fake worker: malformed eval request\n");
        exit(2);
    }
    (void)best_ms;
    const char *log = getenv("CUTUNE_FAKE_LOG");
    if (log && *log) {
        int lfd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
        char line[600];
        int k = snprintf(line, sizeof line, "%d %s %s%s\n", (int)getpid(), config, setup_size,
                         *library ? " library" : "");
        if (lfd >= 0 && k > 0 && write(lfd, line, (size_t)k) != k)
            exit(2);
        if (lfd >= 0)
            close(lfd);
    }
    const char *delay = getenv("CUTUNE_FAKE_DELAY_MS"), *slow = getenv("CUTUNE_FAKE_SLOW_SIZE");
    if (delay && *delay)
        sleep_ms(atof(delay) * (slow && strcmp(slow, setup_size) == 0 ? 5 : 1));
    if (device_gone(my_device))
        _exit(1);
    CutuneEvalResult r;
    memset(&r, 0, sizeof r);
    CutuneConfig cfg = {n < 64 ? n : 64, names, values};
    if (*library && library_refuses(library, &cfg, &r)) {
        cutune_buf_reset(&out);
        cutune_buf_put_bytes(&out, &r, sizeof r);
        send_ok(CUTUNE_MSG_RESULT);
        return;
    }
    if (skipped(config)) {
        r.status = CUTUNE_STATUS_SKIPPED_RESOURCES;
        snprintf(r.message, sizeof r.message, "refused before it ran (fake)");
        cutune_buf_reset(&out);
        cutune_buf_put_bytes(&out, &r, sizeof r);
        send_ok(CUTUNE_MSG_RESULT);
        return;
    }
    char action[32];
    const char *a = rule_for(config, action, sizeof action);
    if (a && !strcmp(a, "abort"))
        abort();
    if (a && !strcmp(a, "segv")) {
        signal(SIGSEGV, SIG_DFL); /* die of it, also under ASan, which would catch it */
        raise(SIGSEGV);
    }
    if (a && !strcmp(a, "exit"))
        _exit(1);
    if (a && !strcmp(a, "hang"))
        for (;;)
            pause();
    if (a && !strcmp(a, "garbage")) {
        cutune_buf_reset(&out);
        cutune_buf_put_u32(&out, 7);
        send_ok(CUTUNE_MSG_RESULT);
        return;
    }
    if (a && !strcmp(a, "lost")) {
        r.status = CUTUNE_STATUS_CRASHED;
        r.context_lost = 1;
        snprintf(r.message, sizeof r.message,
                 "checked launch: cudaErrorIllegalAddress: an illegal memory access was "
                 "encountered (fake)");
    } else if (a && !strcmp(a, "badstatus")) {
        r.status = (CutuneStatus)99;
    } else if (a && (!strcmp(a, "wrong") || (!strcmp(a, "wrongodd") && setup_odd))) {
        r.status = CUTUNE_STATUS_WRONG_RESULT;
        r.error = 1;
        r.tolerance = 1e-6;
        snprintf(r.message, sizeof r.message, "fake wrong result");
    } else {
        CutuneHash h;
        cutune_hash_init(&h);
        cutune_hash_str(&h, config);
        double ms = 1 + (double)(h.a % 1000) / 100;
        const char *slow = getenv("CUTUNE_FAKE_SLOW");
        if (slow && *slow && strstr(config, slow))
            ms *= 20;
        r.status = CUTUNE_STATUS_OK;
        r.median_ms = r.min_ms = r.mean_ms = ms;
        r.samples = 5;
        r.launches_per_sample = 1;
        say_maps(&maps, r.message, sizeof r.message);
    }
    cutune_buf_reset(&out);
    cutune_buf_put_bytes(&out, &r, sizeof r);
    send_ok(CUTUNE_MSG_RESULT);
    if (r.context_lost)
        exit(3);
}

static void on_yardstick(void)
{
    CutuneMeasureSettings s;
    cutune_buf_get_struct(&in, &s, sizeof s);
    const char *how = getenv("CUTUNE_FAKE_YARDSTICK");
    cutune_buf_reset(&out);
    if (in.bad) {
        fprintf(stderr, "fake worker: malformed yardstick request\n");
        exit(2);
    }
    if (how && !strcmp(how, "exit"))
        _exit(1);
    const char *count = how && !strncmp(how, "exitat:", 7) ? strchr(how + 7, ':') : NULL;
    if (count) { /* one byte a request: the file's size counts them */
        int cfd = open(count + 1, O_WRONLY | O_CREAT | O_APPEND, 0644);
        off_t n = cfd >= 0 ? lseek(cfd, 0, SEEK_END) : -1;
        if (cfd < 0 || n < 0 || write(cfd, "y", 1) != 1)
            exit(2);
        close(cfd);
        if (n + 1 == atol(how + 7))
            _exit(1);
    }
    if (how && (!strcmp(how, "none") || !strcmp(how, "wrong"))) {
        int none = !strcmp(how, "none");
        cutune_buf_put_u32(&out, (uint32_t)(none ? CUTUNE_ERR_NOT_FOUND : CUTUNE_ERR_WRONG_RESULT));
        cutune_buf_put_str(&out, none ? "cuBLAS is not installed here (fake)"
                                      : "yardstick fake SGEMM fails the check of op axpy (fake)");
        send_ok(CUTUNE_MSG_ERROR);
        return;
    }
    CutuneEvalResult r;
    memset(&r, 0, sizeof r);
    r.status = CUTUNE_STATUS_OK;
    r.median_ms = r.min_ms = r.mean_ms = 0.5;
    r.samples = s.min_samples > 0 ? s.min_samples : 5;
    cutune_buf_put_str(&out, "fake SGEMM");
    cutune_buf_put_bytes(&out, &r, sizeof r);
    send_ok(CUTUNE_MSG_YARDSTICK_RESULT);
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() == 1)
        return 1;
    signal(SIGINT, SIG_IGN);
    fd = atoi(argv[1]);
    uint32_t type;
    while (cutune_msg_recv(fd, &type, &in) == 0) {
        cutune_buf_reset(&out);
        switch (type) {
        case CUTUNE_MSG_HELLO: on_hello(); break;
        case CUTUNE_MSG_COUNT: on_count(); break;
        case CUTUNE_MSG_SETUP: {
            const char *setup_delay = getenv("CUTUNE_FAKE_SETUP_MS");
            if (setup_delay && *setup_delay)
                sleep_ms(atof(setup_delay));
            (void)cutune_buf_get_str(&in); /* the contract */
            CutuneProblem p;
            cutune_buf_get_struct(&in, &p, sizeof p);
            if (!in.bad) {
                setup_problem = p;
                cutune_problem_format(&p, setup_size, sizeof setup_size);
                setup_odd = 0;
                for (int i = 0; i < p.ndims && i < CUTUNE_MAX_DIMS; i++)
                    setup_odd |= (int)(p.dim[i] & 1);
            }
            send_ok(CUTUNE_MSG_OK);
            break;
        }
        case CUTUNE_MSG_TEARDOWN: send_ok(CUTUNE_MSG_OK); break;
        case CUTUNE_MSG_EVAL: on_eval(); break;
        case CUTUNE_MSG_YARDSTICK: on_yardstick(); break;
        default: return 2;
        }
    }
    cutune_buf_free(&in);
    cutune_buf_free(&out);
    return 0;
}
