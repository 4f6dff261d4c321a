/* Problem sizes, hashing, the seeded generator, strategies, the thread pool and the kernel
 * cache. Needs no GPU. */
#include "check.h"
#include "csv.h"
#include "host.h"
#include "kernel_cache.h"
#include "pool.h"
#include "registry.h"
#include "strategy.h"
#include "utf8.h"
#include "util.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void problem_sizes(void)
{
    CutuneProblem p;
    CutuneError err = {0};
    char buf[64];
    CHECK(cutune_problem_parse("4096x1024x8192", &p, &err) == 0);
    CHECK(p.ndims == 3 && p.dim[0] == 4096 && p.dim[1] == 1024 && p.dim[2] == 8192);
    cutune_problem_format(&p, buf, sizeof buf);
    CHECK(strcmp(buf, "4096x1024x8192") == 0);
    CHECK(cutune_problem_parse("7", &p, &err) == 0 && p.ndims == 1 && p.dim[0] == 7);
    CHECK(cutune_problem_parse("2147483647x1", &p, &err) == 0);
    /* an element type and a layout after the dimensions, in either order */
    CHECK(cutune_problem_parse("64x32x16-nt-bf16", &p, &err) == 0 && p.dtype == CUTUNE_DTYPE_BF16 &&
          p.layout == CUTUNE_LAYOUT_NT);
    cutune_problem_format(&p, buf, sizeof buf);
    CHECK_MSG(strcmp(buf, "64x32x16-bf16-nt") == 0, "%s", buf);
    /* an epilogue among them, in any place; written last, "none" left out */
    CHECK(cutune_problem_parse("64x32x16-bias-nt-bf16", &p, &err) == 0 &&
          p.dtype == CUTUNE_DTYPE_BF16 && p.layout == CUTUNE_LAYOUT_NT &&
          p.epilogue == CUTUNE_EPILOGUE_BIAS);
    cutune_problem_format(&p, buf, sizeof buf);
    CHECK_MSG(strcmp(buf, "64x32x16-bf16-nt-bias") == 0, "%s", buf);
    CHECK(cutune_problem_parse("8x8x8-bias", &p, &err) == 0 && p.dtype == CUTUNE_DTYPE_FP32 &&
          p.layout == CUTUNE_LAYOUT_NN && p.epilogue == CUTUNE_EPILOGUE_BIAS);
    cutune_problem_format(&p, buf, sizeof buf);
    CHECK_MSG(strcmp(buf, "8x8x8-bias") == 0, "%s", buf);
    CHECK(cutune_problem_parse("8x8x8-fp16-none", &p, &err) == 0 &&
          p.epilogue == CUTUNE_EPILOGUE_NONE);
    cutune_problem_format(&p, buf, sizeof buf);
    CHECK_MSG(strcmp(buf, "8x8x8-fp16") == 0, "%s", buf);
    static const struct {
        const char *text, *phrase;
        int code;
    } bad[] = {
        {"", "empty problem size", CUTUNE_ERR_PARSE},
        {"0x5", "dimension 1 is zero", CUTUNE_ERR_RANGE},
        {"5x-3", "dimension 2 is negative", CUTUNE_ERR_PARSE},
        {"2147483648", "larger than 2147483647", CUTUNE_ERR_RANGE},
        {"99999999999999999999999", "larger than", CUTUNE_ERR_RANGE},
        {"12xab", "expected a number at 'ab'", CUTUNE_ERR_PARSE},
        {"12x", "dimension 2 is missing", CUTUNE_ERR_PARSE},
        {"12*4", "unexpected '*'", CUTUNE_ERR_PARSE},
        {"1x2x3x4x5", "more than 4 dimensions", CUTUNE_ERR_PARSE},
        {" 12", "expected a number", CUTUNE_ERR_PARSE},
        /* a multiplication sign: the whole character, never its lone first byte \xc3 */
        {"4096\xc3\x97"
         "4096",
         "unexpected '\xc3\x97' (U+00D7) after dimension 1", CUTUNE_ERR_PARSE},
        {"4096\xc3", "unexpected '\\xc3'", CUTUNE_ERR_PARSE},
        {"8x8x8-bf16-fp16", "names two element types", CUTUNE_ERR_PARSE},
        {"8x8x8-nt-bf16-nn", "names two layouts", CUTUNE_ERR_PARSE},
        {"8x8x8-tn", "'tn' is not an element type", CUTUNE_ERR_PARSE},
        {"8x8x8-bias-none", "names two epilogues", CUTUNE_ERR_PARSE},
        {"8x8x8-relu", "or an epilogue (none, bias)", CUTUNE_ERR_PARSE},
        {"40\x1b[2J", "problem size '40\\x1b[2J': unexpected '\\x1b'", CUTUNE_ERR_PARSE},
        {"4x\xe2\x80\x8b"
         "4",
         "expected a number at '\xe2\x80\x8b"
         "4'",
         CUTUNE_ERR_PARSE},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cutune_error_clear(&err);
        int rc = cutune_problem_parse(bad[i].text, &p, &err);
        CHECK_MSG(rc == bad[i].code, "'%s': rc %d", bad[i].text, rc);
        CHECK_STR_CONTAINS(err.msg, bad[i].phrase);
        /* the message is text: valid UTF-8, no control character */
        for (size_t k = 0, n; err.msg[k]; k += n) {
            uint32_t cp = 0;
            n = cutune_utf8_decode((const unsigned char *)err.msg + k, strlen(err.msg + k), &cp);
            CHECK_MSG(n > 0 && cp >= 0x20 && cp != 0x7f, "'%s': byte %zu of: %s", bad[i].text, k,
                      err.msg);
            if (!n)
                break;
        }
    }
}

static void hashing(void)
{
    CutuneHash a, b;
    char ha[33], hb[33];
    cutune_hash_init(&a);
    cutune_hash_str(&a, "ab");
    cutune_hash_str(&a, "c");
    cutune_hash_init(&b);
    cutune_hash_str(&b, "a");
    cutune_hash_str(&b, "bc");
    cutune_hash_hex(&a, ha);
    cutune_hash_hex(&b, hb);
    CHECK(strlen(ha) == 32 && strcmp(ha, hb) != 0);
    cutune_hash_init(&b);
    cutune_hash_str(&b, "ab");
    cutune_hash_str(&b, "c");
    cutune_hash_hex(&b, hb);
    CHECK(strcmp(ha, hb) == 0);
}

/* A fill split over threads draws exactly the values of one thread drawing them in order,
 * element i being the stream's (i+1)-th splitmix64 output (parts of 2^22 elements: four
 * threads here, the last part short). */
static void random_inputs_threaded(void)
{
    const size_t n = 3 * ((size_t)1 << 22) + 12345;
    float *one = malloc(n * sizeof *one), *four = malloc(n * sizeof *four);
    CHECK(one && four);
    if (one && four) {
        cutune_random_uniform_threads(7, 3, one, n, -2.0f, 0.5f, 1);
        cutune_random_uniform_threads(7, 3, four, n, -2.0f, 0.5f, 4);
        CHECK(memcmp(one, four, n * sizeof *one) == 0);
        uint64_t x = 7 ^ (0xd1b54a32d192ed03ULL * 4); /* the stream's state, drawn in order */
        size_t same = 0;
        for (size_t i = 0; i < n; i++) {
            double u = (double)(cutune_splitmix64(&x) >> 11) * 0x1.0p-53;
            float v = (float)(-2.0f + 2.5f * u);
            same += four[i] == (v < 0.5f ? v : -2.0f);
        }
        CHECK_MSG(same == n, "%zu of %zu elements as drawn in order", same, n);
    }
    free(one);
    free(four);
}

static void random_inputs(void)
{
    enum { N = 100000 };
    float *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y), *z = malloc(N * sizeof *z);
    CHECK(x && y && z);
    if (!x || !y || !z)
        goto out;
    cutune_random_uniform(42, 0, x, N, -1.0f, 1.0f);
    cutune_random_uniform(42, 0, y, N, -1.0f, 1.0f);
    cutune_random_uniform(42, 1, z, N, -1.0f, 1.0f);
    CHECK(memcmp(x, y, N * sizeof *x) == 0); /* same seed and stream: same values */
    CHECK(memcmp(x, z, N * sizeof *x) != 0); /* another stream: other values */
    size_t shifted = 0;                      /* and not the same values further on */
    for (int i = 0; i + 2 < N; i++)
        shifted += x[i] == z[0] && x[i + 1] == z[1] && x[i + 2] == z[2];
    CHECK(shifted == 0);
    double sum = 0, lo = 1, hi = -1;
    size_t zeros = 0;
    for (int i = 0; i < N; i++) {
        sum += x[i];
        lo = x[i] < lo ? x[i] : lo;
        hi = x[i] > hi ? x[i] : hi;
        zeros += x[i] == 0.0f;
    }
    CHECK(lo >= -1.0 && hi < 1.0);
    CHECK(lo < -0.999 && hi > 0.999);
    CHECK(sum / N > -0.01 && sum / N < 0.01); /* mean of U(-1,1): 0, sd of the mean 0.0018 */
    CHECK(zeros < 5);
out:
    free(x), free(y), free(z);
}

static void strategies(void)
{
    enum { N = 57 };
    int64_t values[N];
    for (int i = 0; i < N; i++)
        values[i] = i;
    CutuneConfigList cl = {1, N, values, NULL};
    CutuneStrategyArgs a = {.configs = &cl, .seed = 7, .budget = N};
    for (int s = 0; cutune_strategy_list[s]; s++) {
        const CutuneStrategyOps *ops = cutune_strategy_list[s];
        int seen[N] = {0}, order1[N], order2[N];
        for (int rep = 0; rep < 2; rep++) {
            void *st = NULL;
            CHECK(ops->create(&a, &st) == 0);
            size_t idx;
            int n = 0;
            while (st && ops->next(st, &idx) == CUTUNE_NEXT_READY && n < N + 1) {
                CHECK(idx < N);
                (rep ? order2 : order1)[n++] = (int)idx;
                if (rep == 0 && idx < N)
                    seen[idx]++;
                ops->feedback(st, idx, CUTUNE_STATUS_OK, 1.0);
            }
            CHECK_MSG(n == N, "%s proposed %d of %d", ops->name, n, N);
            if (st)
                ops->destroy(st);
        }
        for (int i = 0; i < N; i++)
            CHECK_MSG(seen[i] == 1, "%s proposed %d %d times", ops->name, i, seen[i]);
        CHECK_MSG(memcmp(order1, order2, sizeof order1) == 0, "%s is not reproducible", ops->name);
    }
    /* random is a permutation that differs from enumeration order and depends on the seed */
    void *s1, *s2;
    CutuneStrategyArgs b = a;
    b.seed = 8;
    CHECK(cutune_strategy_random.create(&a, &s1) == 0 &&
          cutune_strategy_random.create(&b, &s2) == 0);
    int same = 0, in_order = 0;
    for (int i = 0; i < N; i++) {
        size_t x, y;
        cutune_strategy_random.next(s1, &x);
        cutune_strategy_random.next(s2, &y);
        same += x == y;
        in_order += x == (size_t)i;
    }
    CHECK(same < N / 2 && in_order < N / 2);
    cutune_strategy_random.destroy(s1);
    cutune_strategy_random.destroy(s2);
    CHECK(cutune_strategy_find("exhaustive") == &cutune_strategy_exhaustive);
    CHECK(cutune_strategy_find("nope") == NULL);
}

typedef struct {
    CutuneJob job;
    int in, out;
} Square;

static void square(CutuneJob *j)
{
    Square *s = (Square *)j;
    s->out = s->in * s->in;
}

static void pool(void)
{
    CutunePool *p = NULL;
    CHECK(cutune_pool_create(3, &p) == 0);
    CHECK(cutune_pool_threads(p) == 3);
    Square jobs[100];
    for (int i = 0; i < 100; i++) {
        jobs[i] = (Square){{.run = square}, i, -1};
        cutune_pool_submit(p, &jobs[i].job);
    }
    int ok = 1;
    for (int i = 99; i >= 0; i--) {
        cutune_pool_wait(p, &jobs[i].job);
        ok &= jobs[i].out == i * i;
    }
    CHECK(ok);
    cutune_pool_destroy(&p);
    CHECK(p == NULL);
}

/* A job that runs until the test opens its gate. */
static atomic_int gate_open;

static void wait_for_gate(CutuneJob *j)
{
    (void)j;
    while (!atomic_load(&gate_open))
        usleep(1000);
}

/* wait_any returns a finished job while an earlier one still runs, and the first finished
 * one (in the caller's order) when several have. */
static void pool_wait_any(void)
{
    CutunePool *p = NULL;
    CHECK(cutune_pool_create(2, &p) == 0);
    CutuneJob g = {.run = wait_for_gate};
    Square a = {{.run = square}, 7, -1}, b = {{.run = square}, 8, -1};
    CHECK(cutune_pool_pending(p) == 0);
    cutune_pool_submit(p, &g);
    cutune_pool_submit(p, &a.job);
    CutuneJob *jobs[3] = {&g, NULL, &a.job};
    CHECK(cutune_pool_wait_any(p, jobs, 3) == 2 && a.out == 49);
    CHECK(cutune_pool_pending(p) == 1); /* the gate's job runs on: pending until it ends */
    atomic_store(&gate_open, 1);
    CutuneJob *gate_only[1] = {&g};
    CHECK(cutune_pool_wait_any(p, gate_only, 1) == 0);
    CHECK(cutune_pool_pending(p) == 0);
    cutune_pool_submit(p, &b.job);
    cutune_pool_wait(p, &b.job);
    CutuneJob *both[2] = {&b.job, &g};
    CHECK(cutune_pool_wait_any(p, both, 2) == 0 && b.out == 64);
    cutune_pool_destroy(&p);
}

static atomic_int released, started;

static void count_release(CutuneJob *j)
{
    (void)j;
    atomic_fetch_add(&released, 1);
}

static void start_then_wait_for_gate(CutuneJob *j)
{
    atomic_store(&started, 1);
    wait_for_gate(j);
}

/* A queued job can be taken back (it never runs); a running one cannot, and is released by
 * the pool once it has run; a job that has run is released at once. */
static void pool_cancel_release(void)
{
    CutunePool *p = NULL;
    CHECK(cutune_pool_create(1, &p) == 0);
    atomic_store(&gate_open, 0);
    CutuneJob g = {.run = start_then_wait_for_gate};
    Square a = {{.run = square}, 5, -1}, b = {{.run = square}, 6, -1};
    cutune_pool_submit(p, &g);
    cutune_pool_submit(p, &a.job); /* queued behind the gate on the one thread */
    CHECK(cutune_pool_cancel(p, &a.job) == 1);
    CHECK(cutune_pool_pending(p) == 1);
    while (!atomic_load(&started))
        usleep(200);
    CHECK(cutune_pool_cancel(p, &g) == 0); /* running: it cannot be taken back */
    cutune_pool_release(p, &g, count_release);
    CHECK(atomic_load(&released) == 0);
    atomic_store(&gate_open, 1);
    cutune_pool_submit(p, &b.job);
    cutune_pool_wait(p, &b.job);
    CHECK(atomic_load(&released) == 1 && b.out == 36);
    cutune_pool_release(p, &b.job, count_release); /* has run: released on this thread */
    CHECK(atomic_load(&released) == 2);
    cutune_pool_destroy(&p);
    CHECK(a.out == -1); /* taken back: never ran */
}

typedef struct {
    CutuneJob job;
    int order; /* when it ran: 1 + how many ran before it */
} Ordered;

static atomic_int ran, idle_released, idle_unrun;

static void note_order(CutuneJob *j)
{
    ((Ordered *)j)->order = 1 + atomic_fetch_add(&ran, 1);
}

static void idle_release(CutuneJob *j)
{
    atomic_fetch_add(&idle_released, 1);
    atomic_fetch_add(&idle_unrun, !j->done);
}

/* An idle job runs only when no other job is queued, in the order queued, and is released
 * once run; one dropped (or left at the pool's end) is released unrun. Idle jobs are not
 * pending. */
static void pool_idle(void)
{
    CutunePool *p = NULL;
    CHECK(cutune_pool_create(1, &p) == 0);
    atomic_store(&gate_open, 0);
    atomic_store(&started, 0);
    CutuneJob g = {.run = start_then_wait_for_gate};
    Ordered i1 = {{.run = note_order}, 0}, i2 = {{.run = note_order}, 0};
    Ordered a = {{.run = note_order}, 0}, b = {{.run = note_order}, 0};
    cutune_pool_submit(p, &g);
    while (!atomic_load(&started))
        usleep(200);
    cutune_pool_submit_idle(p, &i1.job, idle_release); /* queued first, runs last */
    cutune_pool_submit_idle(p, &i2.job, idle_release);
    cutune_pool_submit(p, &a.job);
    cutune_pool_submit(p, &b.job);
    CHECK(cutune_pool_pending(p) == 3);
    atomic_store(&gate_open, 1);
    while (atomic_load(&idle_released) < 2)
        usleep(200);
    CHECK_MSG(a.order == 1 && b.order == 2 && i1.order == 3 && i2.order == 4,
              "order a %d b %d i1 %d i2 %d", a.order, b.order, i1.order, i2.order);
    CHECK(atomic_load(&idle_unrun) == 0 && cutune_pool_pending(p) == 0);
    /* dropped before a thread is free: released unrun */
    atomic_store(&gate_open, 0);
    atomic_store(&started, 0);
    Ordered i3 = {{.run = note_order}, 0}, i4 = {{.run = note_order}, 0};
    cutune_pool_submit(p, &g);
    while (!atomic_load(&started))
        usleep(200);
    cutune_pool_submit_idle(p, &i3.job, idle_release);
    CHECK(cutune_pool_drop_idle(p) == 1);
    CHECK(atomic_load(&idle_released) == 3 && atomic_load(&idle_unrun) == 1 && i3.order == 0);
    cutune_pool_submit_idle(p, &i4.job, idle_release); /* left to the pool's end */
    atomic_store(&gate_open, 1);
    cutune_pool_wait(p, &g);
    cutune_pool_destroy(&p);
    CHECK(atomic_load(&idle_released) == 4);

    /* idle jobs take half the threads at most: of 2, one; the other stays free */
    CHECK(cutune_pool_create(2, &p) == 0);
    atomic_store(&gate_open, 0);
    atomic_store(&started, 0);
    CutuneJob ig = {.run = start_then_wait_for_gate};
    Ordered i5 = {{.run = note_order}, 0}, c = {{.run = note_order}, 0};
    cutune_pool_submit_idle(p, &ig, idle_release);
    cutune_pool_submit_idle(p, &i5.job, idle_release);
    while (!atomic_load(&started))
        usleep(200);
    usleep(20000);
    CHECK_MSG(i5.order == 0, "a second idle job ran beside the first on 2 threads");
    cutune_pool_submit(p, &c.job);
    cutune_pool_wait(p, &c.job); /* runs while the idle gate holds its thread */
    CHECK(c.order > 0 && i5.order == 0);
    atomic_store(&gate_open, 1);
    while (atomic_load(&idle_released) < 6)
        usleep(200);
    CHECK(i5.order > c.order && atomic_load(&idle_unrun) == 1);
    cutune_pool_destroy(&p);
}

static void kernel_cache(void)
{
    char dir[] = "/tmp/cutune-kcache-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    const char key[] = "0123456789abcdef0123456789abcdef";
    void *data = NULL;
    size_t size = 0;
    CHECK(cutune_kernel_cache_get(dir, key, &data, &size) == -1);
    CHECK(cutune_kernel_cache_put(dir, key, "cubin!", 6) == 0);
    CHECK(cutune_kernel_cache_get(dir, key, &data, &size) == 0);
    CHECK(size == 6 && data && memcmp(data, "cubin!", 6) == 0);
    free(data);
    char path[256];
    snprintf(path, sizeof path, "%s/kernels/%s.cubin", dir, key);
    unlink(path);
    snprintf(path, sizeof path, "%s/kernels", dir);
    rmdir(path);
    rmdir(dir);
}

/* The XDG base directories, read in one place: an absolute $XDG_* wins, a relative one is
 * ignored (the XDG spec), then $HOME; the kernel cache, the database and the space path
 * all follow it. */
static void xdg_paths(void)
{
    char buf[256];
    setenv("HOME", "/home/u", 1);
    setenv("XDG_DATA_HOME", "/xdg/data", 1);
    setenv("XDG_CACHE_HOME", "relative/cache", 1);
    unsetenv("CUTUNE_CACHE_DIR");
    CHECK_EQ_INT(cutune_xdg_path(NULL, CUTUNE_XDG_DATA, "tuning_spaces", buf, sizeof buf), 0);
    CHECK_MSG(strcmp(buf, "/xdg/data/cutune/tuning_spaces") == 0, "%s", buf);
    CHECK_EQ_INT(cutune_xdg_path(NULL, CUTUNE_XDG_CACHE, "", buf, sizeof buf), 0);
    CHECK_MSG(strcmp(buf, "/home/u/.cache/cutune") == 0, "%s", buf);
    CHECK_EQ_INT(cutune_cache_dir(buf, sizeof buf, NULL), 0);
    CHECK_MSG(strcmp(buf, "/home/u/.cache/cutune") == 0, "%s", buf);
    CHECK_EQ_INT(cutune_xdg_path(NULL, CUTUNE_XDG_DATA, "cutune.db", buf, 12), CUTUNE_ERR_RANGE);
    setenv("CUTUNE_CACHE_DIR", "/given/cache", 1);
    CHECK_EQ_INT(cutune_cache_dir(buf, sizeof buf, NULL), 0);
    CHECK_MSG(strcmp(buf, "/given/cache") == 0, "%s", buf);
    unsetenv("CUTUNE_CACHE_DIR");

    /* the space path skips a relative XDG_DATA_HOME as the database does */
    setenv("XDG_DATA_HOME", "relative/data", 1);
    char **dirs = NULL;
    size_t n = 0;
    CHECK_EQ_INT(cutune_space_dirs(&dirs, &n, NULL), 0);
    int user = 0;
    for (size_t i = 0; i < n; i++) {
        CHECK(strstr(dirs[i], "relative/data") == NULL);
        user += strcmp(dirs[i], "/home/u/.local/share/cutune/tuning_spaces") == 0;
    }
    CHECK_EQ_INT(user, 1);
    cutune_path_list_free(dirs, n);

    unsetenv("HOME");
    CHECK_EQ_INT(cutune_xdg_path(NULL, CUTUNE_XDG_DATA, "", buf, sizeof buf), CUTUNE_ERR_NOT_FOUND);
    CutuneError e = {0};
    CHECK_EQ_INT(cutune_cache_dir(buf, sizeof buf, &e), CUTUNE_ERR_NOT_FOUND);
    CHECK_STR_CONTAINS(e.msg, "set CUTUNE_CACHE_DIR");
    unsetenv("XDG_DATA_HOME");
    unsetenv("XDG_CACHE_HOME");
}

/* The one integer parser: strict, with "not an integer" and "out of range" told apart. */
static void integers(void)
{
    static const struct {
        const char *text;
        int rc;
        int64_t v;
    } cases[] = {
        {"0", 0, 0},
        {"+17", 0, 17},
        {"-17", 0, -17},
        {"9223372036854775807", 0, INT64_MAX},
        {"-9223372036854775808", 0, INT64_MIN},
        {"9223372036854775808", CUTUNE_I64_RANGE, 0},
        {"-9223372036854775809", CUTUNE_I64_RANGE, 0},
        {"99999999999999999999", CUTUNE_I64_RANGE, 0},
        {"99999999999999999999x", CUTUNE_I64_NOT_INTEGER, 0}, /* past the overflow, still read */
        {"", CUTUNE_I64_NOT_INTEGER, 0},
        {"-", CUTUNE_I64_NOT_INTEGER, 0},
        {" 1", CUTUNE_I64_NOT_INTEGER, 0},
        {"1 ", CUTUNE_I64_NOT_INTEGER, 0},
        {"1e3", CUTUNE_I64_NOT_INTEGER, 0},
        {"0x10", CUTUNE_I64_NOT_INTEGER, 0},
        {"--1", CUTUNE_I64_NOT_INTEGER, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t v = 12345;
        int rc = cutune_parse_i64(cases[i].text, strlen(cases[i].text), &v);
        CHECK_MSG(rc == cases[i].rc, "'%s': rc %d", cases[i].text, rc);
        CHECK_MSG(v == (rc ? 12345 : cases[i].v), "'%s': %lld", cases[i].text, (long long)v);
    }
    int64_t v = 0;
    CHECK(cutune_parse_i64("123456", 3, &v) == 0 && v == 123); /* only len bytes are read */
    /* the same grammar as sign and magnitude, over the whole uint64 range (the CLI's) */
    int neg = 7;
    uint64_t mag = 7;
    CHECK(cutune_parse_whole("18446744073709551615", 20, &neg, &mag) == 0 && !neg &&
          mag == UINT64_MAX);
    CHECK(cutune_parse_whole("-18446744073709551615", 21, &neg, &mag) == 0 && neg &&
          mag == UINT64_MAX);
    CHECK(cutune_parse_whole("18446744073709551616", 20, &neg, &mag) == CUTUNE_I64_RANGE);
    CHECK(cutune_parse_whole("184467440737095516160x", 22, &neg, &mag) == CUTUNE_I64_NOT_INTEGER);
    CHECK(cutune_parse_whole("-0", 2, &neg, &mag) == 0 && !neg && mag == 0); /* "-0" is 0 */
    CHECK(cutune_parse_whole("+", 1, &neg, &mag) == CUTUNE_I64_NOT_INTEGER);
}

static void text(void)
{
    const char *s = "  a b \t\n";
    size_t len = strlen(s);
    cutune_trim(&s, &len);
    CHECK(len == 3 && strncmp(s, "a b", 3) == 0);
    const char *blank = " \t ";
    len = strlen(blank);
    cutune_trim(&blank, &len);
    CHECK(len == 0);
    char buf[] = "\t x y  ";
    CHECK(strcmp(cutune_trim_in_place(buf), "x y") == 0);
    char small[4];
    cutune_copy_str(small, sizeof small, "abcdef");
    CHECK(strcmp(small, "abc") == 0);
    cutune_copy_str(small, sizeof small, NULL);
    CHECK(small[0] == '\0');
}

static void order_and_rng(void)
{
    double v[] = {3, -1, 2.5, -1, 0};
    qsort(v, 5, sizeof *v, cutune_cmp_double);
    CHECK(v[0] == -1 && v[1] == -1 && v[2] == 0 && v[3] == 2.5 && v[4] == 3);
    /* splitmix64's published first outputs from state 0 */
    uint64_t st = 0;
    CHECK(cutune_splitmix64(&st) == 0xe220a8397b1dcdafULL);
    CHECK(cutune_splitmix64(&st) == 0x6e789e6aa1b965f4ULL);
    uint64_t a = 7, b = 7;
    int counts[5] = {0};
    for (int i = 0; i < 5000; i++) {
        uint64_t x = cutune_splitmix64_below(&a, 5);
        CHECK(x < 5 && x == cutune_splitmix64_below(&b, 5)); /* the same seed, the same draws */
        counts[x < 5 ? x : 0]++;
    }
    for (int i = 0; i < 5; i++)
        CHECK_MSG(counts[i] > 850 && counts[i] < 1150, "%d drawn %d times of 5000", i, counts[i]);
}

static void directories(void)
{
    char dir[] = "/tmp/cutune-mkdir-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[128], file[128];
    CutuneError err = {0};
    snprintf(path, sizeof path, "%s/a/b/c", dir);
    CHECK(cutune_mkdir_p(path, &err) == 0);
    struct stat st;
    CHECK(stat(path, &st) == 0 && S_ISDIR(st.st_mode));
    CHECK(cutune_mkdir_p(path, &err) == 0); /* again: nothing to do */
    snprintf(file, sizeof file, "%s/a/file", dir);
    FILE *f = fopen(file, "w");
    CHECK(f != NULL);
    if (f)
        fclose(f);
    snprintf(path, sizeof path, "%s/a/file/sub", dir);
    CHECK(cutune_mkdir_p(path, &err) == CUTUNE_ERR_IO);
    CHECK_STR_CONTAINS(err.msg, "cannot create directory");
    CHECK_STR_CONTAINS(err.msg, "a/file");
    cutune_error_clear(&err);
    CHECK(cutune_mkdir_p(file, &err) == CUTUNE_ERR_IO);
    CHECK_STR_CONTAINS(err.msg, "not a directory");
    CHECK(cutune_mkdir_p("", &err) == CUTUNE_ERR_INVALID);
    unlink(file);
    snprintf(path, sizeof path, "%s/a/b/c", dir);
    rmdir(path);
    snprintf(path, sizeof path, "%s/a/b", dir);
    rmdir(path);
    snprintf(path, sizeof path, "%s/a", dir);
    rmdir(path);
    rmdir(dir);
}

/* The CSV writer quotes what would add a column or a row, and keeps comments on their line. */
static void csv(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK(f != NULL);
    if (!f)
        return;
    cutune_csv_field(f, "NVIDIA H100, \"SXM\"", 0);
    cutune_csv_field(f, "two\nlines", 0);
    cutune_csv_field(f, NULL, 0);
    cutune_csv_field(f, "plain", 1);
    cutune_csv_comment(f, "device", "evil\n1,2,ok,0.1\r");
    fclose(f);
    CHECK_MSG(strcmp(buf, "\"NVIDIA H100, \"\"SXM\"\"\",\"two\nlines\",,plain\n"
                          "# device: evil 1,2,ok,0.1 \n") == 0,
              "wrote '%s'", buf);
    free(buf);
}

/* The CSV reader keeps every field, empty ones too, and reads back what the writer quoted. */
static void csv_split(void)
{
    char *f[8];
    char a[] = "64,,8, 4 ,ok,";
    CHECK_EQ_INT(cutune_csv_split(a, f, 8), 6);
    CHECK(!strcmp(f[0], "64") && !strcmp(f[1], "") && !strcmp(f[2], "8") && !strcmp(f[3], "4") &&
          !strcmp(f[4], "ok") && !strcmp(f[5], ""));
    char b[] = "\"NVIDIA H100, \"\"SXM\"\"\" ,,plain";
    CHECK_EQ_INT(cutune_csv_split(b, f, 8), 3);
    CHECK_MSG(!strcmp(f[0], "NVIDIA H100, \"SXM\"") && !strcmp(f[1], "") && !strcmp(f[2], "plain"),
              "'%s' '%s' '%s'", f[0], f[1], f[2]);
    char c[] = "", d[] = "a,b,c", e[] = "\"open,b", g[] = "\"x\"y,b";
    CHECK_EQ_INT(cutune_csv_split(c, f, 8), 1);
    CHECK(!strcmp(f[0], ""));
    CHECK_EQ_INT(cutune_csv_split(d, f, 2), CUTUNE_CSV_TOO_MANY);
    CHECK_EQ_INT(cutune_csv_split(e, f, 8), CUTUNE_CSV_BAD_QUOTE);
    CHECK_EQ_INT(cutune_csv_split(g, f, 8), CUTUNE_CSV_BAD_QUOTE);
    /* what the writer wrote, read back field for field */
    static const char *const fields[] = {"a,b", "", "\"q\"", " ", "plain", ""};
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    CHECK(m != NULL);
    if (!m)
        return;
    for (int i = 0; i < 6; i++)
        cutune_csv_field(m, fields[i], i == 5);
    fclose(m);
    buf[len - 1] = '\0'; /* the line end */
    CHECK_EQ_INT(cutune_csv_split(buf, f, 8), 6);
    for (int i = 0; i < 6; i++)
        CHECK_MSG(!strcmp(f[i], fields[i]), "field %d: '%s'", i, f[i]);
    free(buf);
}

int main(void)
{
    problem_sizes();
    hashing();
    random_inputs();
    random_inputs_threaded();
    strategies();
    pool();
    pool_wait_any();
    pool_cancel_release();
    pool_idle();
    kernel_cache();
    xdg_paths();
    integers();
    text();
    order_and_rng();
    directories();
    csv();
    csv_split();
    return check_result("util");
}
