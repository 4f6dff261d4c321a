/* The worker protocol and deadlines, without a GPU: payload fields round-trip, malformed
 * and truncated payloads are caught, messages cross a socket whole, an oversized header
 * is refused, and the evaluation deadline follows its documented formula. (The whole
 * worker life cycle is tested through the cutune command in test_isolation.sh.) */
#include "check.h"
#include "space_limits.h"
#include "measure.h"
#include "proto.h"
#include "util.h"
#include "worker_client.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static void fields(void)
{
    CutuneBuf b = {0};
    CutuneDeviceInfo d;
    memset(&d, 0, sizeof d);
    snprintf(d.uuid, sizeof d.uuid, "GPU-1234");
    d.sm_count = 132;
    cutune_buf_put_u32(&b, 0xdeadbeefu);
    cutune_buf_put_i64(&b, -42);
    cutune_buf_put_f64(&b, 0.125);
    cutune_buf_put_str(&b, "TILE");
    cutune_buf_put_str(&b, NULL);
    cutune_buf_put_bytes(&b, &d, sizeof d);
    CHECK(!b.bad);
    CHECK_EQ_INT(cutune_buf_get_u32(&b), 0xdeadbeefu);
    CHECK_EQ_INT(cutune_buf_get_i64(&b), -42);
    CHECK(cutune_buf_get_f64(&b) == 0.125);
    CHECK(!strcmp(cutune_buf_get_str(&b), "TILE"));
    CHECK(!strcmp(cutune_buf_get_str(&b), ""));
    CutuneDeviceInfo e;
    cutune_buf_get_struct(&b, &e, sizeof e);
    CHECK(!b.bad && !strcmp(e.uuid, "GPU-1234") && e.sm_count == 132);
    /* reading past the end: bad, zeros */
    CHECK_EQ_INT(cutune_buf_get_u32(&b), 0);
    CHECK(b.bad);

    /* a struct of the wrong size (a worker from another build) is refused */
    cutune_buf_reset(&b);
    cutune_buf_put_bytes(&b, &d, sizeof d - 4);
    cutune_buf_get_struct(&b, &e, sizeof e);
    CHECK(b.bad);
    /* a string without its NUL, or with one inside, is refused */
    cutune_buf_reset(&b);
    cutune_buf_put_bytes(&b, "abc", 3);
    CHECK(!strcmp(cutune_buf_get_str(&b), "") && b.bad);
    cutune_buf_reset(&b);
    cutune_buf_put_bytes(&b, "a\0bc", 5);
    CHECK(!strcmp(cutune_buf_get_str(&b), "") && b.bad);
    /* a length field larger than what follows */
    cutune_buf_reset(&b);
    cutune_buf_put_u32(&b, 1000);
    cutune_buf_put_u32(&b, 7);
    size_t n = 99;
    CHECK(cutune_buf_get_bytes(&b, &n) == NULL && n == 0 && b.bad);
    cutune_buf_free(&b);
}

static void messages(void)
{
    int sv[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    CutuneBuf out = {0}, in = {0};
    /* a payload larger than the socket buffer crosses whole (the reader runs in a child) */
    size_t big = 3u << 20;
    unsigned char *blob = malloc(big);
    CHECK(blob != NULL);
    for (size_t i = 0; blob && i < big; i++)
        blob[i] = (unsigned char)(i * 131 + 7);
    pid_t pid = fork();
    if (pid == 0) {
        uint32_t type = 0;
        size_t len = 0;
        int ok = cutune_msg_recv(sv[1], &type, &in) == 0 && type == CUTUNE_MSG_EVAL;
        const unsigned char *p = cutune_buf_get_bytes(&in, &len);
        ok = ok && p && len == big && memcmp(p, blob, big) == 0;
        _exit(ok ? 0 : 1);
    }
    cutune_buf_put_bytes(&out, blob, big);
    CHECK(cutune_msg_send(sv[0], CUTUNE_MSG_EVAL, &out) == 0);
    int st = 0;
    CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
    /* an empty message, then an oversized header, then EOF */
    cutune_buf_reset(&out);
    CHECK(cutune_msg_send(sv[0], CUTUNE_MSG_OK, &out) == 0);
    uint32_t hdr[2] = {CUTUNE_MSG_RESULT, CUTUNE_PROTO_MAX_PAYLOAD + 1u};
    CHECK(write(sv[0], hdr, sizeof hdr) == (ssize_t)sizeof hdr);
    uint32_t type = 0;
    CHECK(cutune_msg_recv(sv[1], &type, &in) == 0 && type == CUTUNE_MSG_OK && in.len == 0);
    CHECK_EQ_INT(cutune_msg_recv(sv[1], &type, &in), CUTUNE_ERR_RANGE);
    close(sv[0]);
    CHECK_EQ_INT(cutune_msg_recv(sv[1], &type, &in), CUTUNE_ERR_IO);
    /* sending to a closed peer fails without SIGPIPE killing us */
    CHECK_EQ_INT(cutune_msg_send(sv[1], CUTUNE_MSG_OK, &out), CUTUNE_ERR_IO);
    close(sv[1]);
    free(blob);
    cutune_buf_free(&out);
    cutune_buf_free(&in);
}

static void deadlines(void)
{
    CutuneWorkerLimits l;
    cutune_worker_limits_defaults(&l);
    CHECK(l.timeout_factor == 10 && l.timeout_floor_s == 2);
    CutuneMeasureSettings s;
    cutune_measure_defaults(&s); /* warm-up 2, cap 1 s */
    /* no best yet: the floor; (2 + 4) x 2 + 1 + 1 */
    CHECK(fabs(cutune_worker_eval_limit(&l, &s, 0) - 14.0) < 1e-9);
    /* a fast best stays at the floor */
    CHECK(fabs(cutune_worker_eval_limit(&l, &s, 5.0) - 14.0) < 1e-9);
    /* a slow best: 10 x 500 ms = 5 s a launch; 6 x 5 + 2 */
    CHECK(fabs(cutune_worker_eval_limit(&l, &s, 500.0) - 32.0) < 1e-9);
    l.timeout_factor = 3;
    l.timeout_floor_s = 0.25;
    s.warmup = 0; /* counted as 1 */
    s.max_seconds = 0.5;
    CHECK(fabs(cutune_worker_eval_limit(&l, &s, 100.0) - (5 * 0.3 + 1.5)) < 1e-9);
}

/* A launch cannot win when it is over early_stop x the best (plus the checked launch's
 * allowance), and ends the timing alone when it is also over 20x the best or over 20 ms long
 * (beyond the allowance); a config cut short is recorded as its last launch alone. */
static void hopeless(void)
{
    CutuneMeasureSettings s;
    cutune_measure_defaults(&s);
    CHECK(s.early_stop == 3.0 && s.race == 1.1);
    CHECK(!cutune_hopeless(1000.0, 0, &s, 0)); /* no best yet: never */
    CHECK(!cutune_hopeless(3.0, 1.0, &s, 0));  /* exactly 3x: still timed */
    CHECK_EQ_INT(cutune_hopeless(3.01, 1.0, &s, 0), 1);
    CHECK(!cutune_hopeless(12.9, 1.0, &s, 10.0)); /* within the allowance */
    CHECK_EQ_INT(cutune_hopeless(13.1, 1.0, &s, 10.0), 1);
    CHECK_EQ_INT(cutune_hopeless(20.0, 1.0, &s, 0), 1);  /* exactly 20x: needs a second launch */
    CHECK_EQ_INT(cutune_hopeless(20.01, 1.0, &s, 0), 2); /* hopeless on its own */
    CHECK_EQ_INT(cutune_hopeless(29.9, 1.0, &s, 10.0), 1);
    CHECK_EQ_INT(cutune_hopeless(30.1, 1.0, &s, 10.0), 2);
    /* long launches: over 20 ms beyond the allowance, 3x the best is enough alone */
    CHECK_EQ_INT(cutune_hopeless(19.0, 6.0, &s, 0), 1);    /* 3.2x, short: a second launch */
    CHECK_EQ_INT(cutune_hopeless(20.5, 6.0, &s, 0), 2);    /* 3.4x and over 20 ms */
    CHECK_EQ_INT(cutune_hopeless(29.5, 6.0, &s, 10.0), 1); /* 19.5 ms beyond the allowance */
    CHECK_EQ_INT(cutune_hopeless(30.5, 6.0, &s, 10.0), 2);
    CHECK_EQ_INT(cutune_hopeless(250.0, 100.0, &s, 0), 0); /* long, but 2.5x: it may win */
    s.early_stop = 50; /* a factor above 20: one launch alone needs over 50x too */
    CHECK_EQ_INT(cutune_hopeless(49.0, 1.0, &s, 0), 0);
    CHECK_EQ_INT(cutune_hopeless(50.1, 1.0, &s, 0), 2);
    s.early_stop = 0; /* off: never */
    CHECK(!cutune_hopeless(1e9, 1.0, &s, 0));
    s.early_stop = 3.0;
    CutuneEvalResult r;
    memset(&r, 0, sizeof r);
    r.samples = 7;
    cutune_single_sample(&r, 214.25, 2, 20.0, &s);
    CHECK(r.status == CUTUNE_STATUS_OK && r.stopped_early && r.samples == 1);
    CHECK(r.median_ms == 214.25 && r.min_ms == 214.25 && r.mean_ms == 214.25 && r.stddev_ms == 0);
    CHECK_STR_CONTAINS(r.message, "two launches in a row took over 3x the best so far, the last "
                                  "214.2 ms");
    cutune_single_sample(&r, 1850.25, 1, 25.0, &s);
    CHECK(r.samples == 1 && r.median_ms == 1850.25 && r.stopped_early);
    CHECK_STR_CONTAINS(r.message, "one launch took 1850 ms, 74x the best so far (over 20x, or "
                                  "over 3x and 20 ms long,");
}

static void path_override(void)
{
    char buf[4096];
    CutuneError err = {0};
    setenv("CUTUNE_WORKER", "/nonexistent/cutune-worker", 1);
    CHECK_EQ_INT(cutune_worker_path(buf, sizeof buf, &err), CUTUNE_ERR_NOT_FOUND);
    CHECK_STR_CONTAINS(err.msg, "CUTUNE_WORKER is '/nonexistent/cutune-worker'");
    setenv("CUTUNE_WORKER", "/bin/sh", 1);
    CHECK(cutune_worker_path(buf, sizeof buf, NULL) == 0 && !strcmp(buf, "/bin/sh"));
    unsetenv("CUTUNE_WORKER");
}

/* The real cutune-worker (found beside libcutune): it answers hello with the device, or
 * on a machine without a GPU with the CUDA error. A program that is not a worker is
 * reported as such, not waited on. */
static void real_worker(void)
{
    CutuneWorker *w = NULL;
    CutuneDeviceInfo dev;
    CutuneError err = {0};
    int rc = cutune_worker_start(0, NULL, &w, &dev, &err);
    if (rc == 0) {
        CHECK_MSG(!strncmp(dev.uuid, "GPU-", 4), "device uuid '%s'", dev.uuid);
        CHECK_EQ_INT(cutune_worker_starts(w), 1);
        cutune_worker_stop(&w);
        CHECK(w == NULL);
    } else {
        CHECK_EQ_INT(rc, CUTUNE_ERR_NO_DEVICE);
        CHECK_STR_CONTAINS(err.msg, "no CUDA driver or device");
        CHECK(w == NULL);
    }
    setenv("CUTUNE_WORKER", "/bin/true", 1);
    cutune_error_clear(&err);
    double t0 = cutune_now();
    CHECK(cutune_worker_start(0, NULL, &w, &dev, &err) == CUTUNE_ERR_IO && w == NULL);
    CHECK_STR_CONTAINS(err.msg,
                       "starting the worker process: the worker process exited with status 0");
    CHECK(cutune_now() - t0 < 30);
    unsetenv("CUTUNE_WORKER");
}

/* A config with more parameters than names[] can hold is refused before anything of it
 * is read (no names array is even given here). */
static void oversized_config(void)
{
    CutuneConfig cfg = {CUTUNE_MAX_PARAMS + 1, NULL, NULL};
    CutuneEvalResult res;
    CutuneMeasureSettings ms;
    memset(&ms, 0, sizeof ms);
    CutuneError err = {0};
    CHECK(cutune_worker_eval(NULL, &cfg, "", 0, "k", NULL, NULL, 0, &ms, &res, &err) ==
          CUTUNE_ERR_INVALID);
    CHECK_STR_CONTAINS(err.msg, "at most 48");
    CHECK(res.status == CUTUNE_STATUS_LAUNCH_ERROR);
}

/* A fake worker (tests/fake_worker.c) whose yardstick answers as `how` says (its
 * CUTUNE_FAKE_YARDSTICK), with a problem set up. */
static CutuneWorker *fake_with_problem(const char *how)
{
    if (how)
        setenv("CUTUNE_FAKE_YARDSTICK", how, 1);
    else
        unsetenv("CUTUNE_FAKE_YARDSTICK");
    CutuneWorker *w = NULL;
    CutuneDeviceInfo dev;
    CutuneError err = {0};
    CutuneProblem p = {.ndims = 1, .dim = {4096}};
    CHECK_MSG(cutune_worker_start(0, NULL, &w, &dev, &err) == 0, "%s", err.msg);
    CHECK_MSG(w && cutune_worker_setup(w, "/nonexistent/op.so", &p, 1, 90, NULL, &err) == 0, "%s",
              err.msg);
    return w;
}

/* The yardstick through the fake worker: a result, an op without one, one that fails its
 * check, and one that kills the worker, which is replaced and set up again so that the run
 * goes on. */
static void yardstick(void)
{
    const char *fake = getenv("CUTUNE_TEST_FAKE_WORKER");
    CHECK(fake != NULL);
    if (!fake)
        return;
    setenv("CUTUNE_WORKER", fake, 1);
    CutuneWorker *w = NULL;
    CutuneDeviceInfo dev;
    CutuneError err = {0};
    CHECK_MSG(cutune_worker_start(0, NULL, &w, &dev, &err) == 0, "%s", err.msg);
    char name[64];
    double ms = 0;
    int n = 0;
    CHECK(w && cutune_worker_yardstick(w, name, sizeof name, &ms, &n, &err) == CUTUNE_ERR_INVALID);
    CHECK_STR_CONTAINS(err.msg, "set a problem up first");
    cutune_worker_stop(&w);

    w = fake_with_problem(NULL);
    cutune_error_clear(&err);
    CHECK_MSG(w && cutune_worker_yardstick(w, name, sizeof name, &ms, &n, &err) == 0, "%s",
              err.msg);
    CHECK(!strcmp(name, "fake SGEMM") && ms == 0.5 && n == 5);
    cutune_worker_stop(&w);

    w = fake_with_problem("none");
    cutune_error_clear(&err);
    CHECK(w &&
          cutune_worker_yardstick(w, name, sizeof name, &ms, &n, &err) == CUTUNE_ERR_NOT_FOUND);
    CHECK_STR_CONTAINS(err.msg, "cuBLAS is not installed here");
    CHECK(ms == 0 && n == 0 && name[0] == '\0');
    cutune_worker_stop(&w);

    w = fake_with_problem("wrong");
    cutune_error_clear(&err);
    CHECK(w &&
          cutune_worker_yardstick(w, name, sizeof name, &ms, &n, &err) == CUTUNE_ERR_WRONG_RESULT);
    CHECK_EQ_INT(cutune_worker_starts(w), 1); /* an answered failure keeps the worker */
    cutune_worker_stop(&w);

    w = fake_with_problem("exit");
    cutune_error_clear(&err);
    CHECK(w && cutune_worker_yardstick(w, name, sizeof name, &ms, &n, &err) == CUTUNE_ERR_IO);
    CHECK_STR_CONTAINS(err.msg, "the yardstick ended the worker");
    CHECK_EQ_INT(cutune_worker_starts(w), 2); /* replaced, with the problem set up again */
    cutune_worker_stop(&w);
    unsetenv("CUTUNE_FAKE_YARDSTICK");
    unsetenv("CUTUNE_WORKER");
}

/* A config's TMA tensor maps cross the protocol whole (the fake worker's result message
 * lists what it read): names, argument indices, the enabled flag, dims, box and swizzle; and
 * without maps nothing is said. */
static void tensor_maps(void)
{
    const char *fake = getenv("CUTUNE_TEST_FAKE_WORKER");
    CHECK(fake != NULL);
    if (!fake)
        return;
    setenv("CUTUNE_WORKER", fake, 1);
    CutuneWorker *w = fake_with_problem(NULL);
    CutuneTensorMaps maps;
    memset(&maps, 0, sizeof maps);
    maps.n = 2;
    maps.map[0] = (CutuneTensorMap){.name = "A",
                                    .arg = 0,
                                    .enabled = 1,
                                    .rank = 2,
                                    .dtype = CUTUNE_DTYPE_BF16,
                                    .swizzle = 128,
                                    .dims = {4096, 1000},
                                    .box = {64, 128}};
    maps.map[1] = (CutuneTensorMap){.name = "B", .arg = 1};
    const char *names[] = {"TILE"};
    const int64_t values[] = {16};
    CutuneConfig cfg = {1, names, values};
    CutuneLaunch launch = {{1, 1, 1}, {32, 1, 1}, 0};
    CutuneMeasureSettings ms;
    cutune_measure_defaults(&ms);
    CutuneEvalResult res;
    CutuneError err = {0};
    CHECK_MSG(w && cutune_worker_eval(w, &cfg, "cubin", 5, "k", &launch, &maps, 0, &ms, &res,
                                      &err) == 0,
              "%s", err.msg);
    CHECK_MSG(res.status == CUTUNE_STATUS_OK &&
                  !strcmp(res.message, "maps A:0 on 4096x1000 64x128 sw128; B:1 off"),
              "status %d, message '%s'", res.status, res.message);
    CHECK_MSG(w && cutune_worker_eval(w, &cfg, "cubin", 5, "k", &launch, NULL, 0, &ms, &res,
                                      &err) == 0,
              "%s", err.msg);
    CHECK(res.status == CUTUNE_STATUS_OK && res.message[0] == '\0');
    cutune_worker_stop(&w);
    unsetenv("CUTUNE_WORKER");
}

int main(void)
{
    fields();
    messages();
    deadlines();
    hopeless();
    path_override();
    real_worker();
    oversized_config();
    yardstick();
    tensor_maps();
    return check_result("worker");
}
