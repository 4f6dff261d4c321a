/* The tuner's pipeline (core/src/tuning/pipeline.c): it hands out the compiles in the order
 * they finish, the earliest queued first among those finished; a search that ends gives up
 * what it has in flight without waiting (the queued jobs never run, the running ones finish
 * and are freed by the pool, their NVRTC time counted). The jobs here wait for the test to
 * open their gate instead of compiling. Then the compile pool given one config from several
 * lanes at once (several GPUs tuning sizes that compile the same configs): NVRTC compiles it
 * once, the others read it from the cache. */
#include "check.h"
#include "pipeline.h"
#include "tmpdir.h"

#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

enum { N = 10 };
static atomic_int gate[N], ran[N];

static void gated(CutuneJob *job)
{
    CutuneCompileJob *c = (CutuneCompileJob *)job;
    atomic_store(&ran[c->index], 1);
    while (!atomic_load(&gate[c->index]))
        usleep(200);
    c->bin.compile_ms = 1.5; /* as NVRTC's time of it */
}

/* Queue job `index` in the next free slot and start it. */
static CutuneCompileJob *start(TunePipeline *pl, CutunePool *pool, size_t index)
{
    CutuneCompileJob *c = pipeline_slot(pl);
    memset(c, 0, sizeof *c);
    c->job.run = gated;
    c->index = index;
    cutune_pool_submit(pool, &c->job);
    return c;
}

/* Open job index's gate and wait until it has run. */
static void finish(CutunePool *pool, CutuneCompileJob *c)
{
    atomic_store(&gate[c->index], 1);
    cutune_pool_wait(pool, &c->job);
}

/* The next job taken is want, and inflight is left; then its slot is freed. */
static void take_is(TunePipeline *pl, CutunePool *pool, const CutuneCompileJob *want,
                    size_t inflight)
{
    size_t index = want->index;
    CutuneCompileJob *t = pipeline_take(pl, pool);
    CHECK_MSG(t == want && t->index == index && pl->inflight == inflight,
              "took job %zu with %zu left in flight, want job %zu and %zu", t->index, pl->inflight,
              index, inflight);
    pipeline_release(t);
}

/* Eight lanes ask for one kernel at once on eight threads, with an empty cache. */
static void same_compile_at_once(void)
{
    enum { LANES = 8 };
    static const char src[] = "extern \"C\" __global__ void k(float *x) { x[threadIdx.x] *= 2; }";
    CutunePool *pool = NULL;
    CHECK(cutune_pool_create(LANES, &pool) == 0);
    if (!pool || make_tmpdir(tmpdir, sizeof tmpdir, "cutune-pipeline") != 0)
        return;
    CutuneSpace sp;
    memset(&sp, 0, sizeof sp);
    static CutuneCompileJob c[LANES];
    for (size_t i = 0; i < LANES; i++) {
        cutune_compile_job_init(&c[i], src, "k", &sp, NULL, NULL, 90, tmpdir, i);
        cutune_pool_submit(pool, &c[i].job);
    }
    size_t compiled = 0, cached = 0;
    for (size_t i = 0; i < LANES; i++) {
        cutune_pool_wait(pool, &c[i].job);
        CHECK_MSG(c[i].rc == 0 && c[i].bin.cubin && c[i].bin.size > 0, "lane %zu: %s", i,
                  c[i].err.msg);
        compiled += !c[i].bin.from_cache;
        cached += c[i].bin.from_cache && c[i].bin.compile_ms == 0;
        CHECK(c[i].bin.size == c[0].bin.size &&
              !memcmp(c[i].bin.cubin, c[0].bin.cubin, c[0].bin.size));
    }
    for (size_t i = 0; i < LANES; i++)
        cutune_compile_job_clear(&c[i]);
    CHECK_MSG(compiled == 1 && cached == LANES - 1,
              "%zu compiled, %zu from the cache; want 1 and %d", compiled, cached, LANES - 1);
    cutune_pool_destroy(&pool);
    rm_tree(tmpdir);
}

/* Two threads, four jobs in flight: two compile, two wait in the queue. The search ends:
 * pipeline_abandon returns without waiting on the two still compiling, the queued two never
 * run, and the two compiling are freed by the pool once their gates open (ASan sees any
 * leak or use after free), their NVRTC time counted. */
static void abandon_in_flight(void)
{
    CutunePool *pool = NULL;
    TunePipeline pl;
    _Atomic long long cpu_us = 0;
    CHECK(cutune_pool_create(2, &pool) == 0);
    CHECK(pipeline_init(&pl, 4) == 0);
    if (!pool || !pl.queue)
        return;
    pl.abandoned_us = &cpu_us;
    for (size_t k = 6; k < 10; k++)
        start(&pl, pool, k);
    while (!atomic_load(&ran[6]) || !atomic_load(&ran[7])) /* the first two compile */
        usleep(200);
    pipeline_abandon(&pl, pool); /* returns with 6 and 7 still held at their gates */
    CHECK_MSG(pl.inflight == 0 && cutune_pool_pending(pool) == 2,
              "%zu in flight, %d jobs pending in the pool after abandoning; want 0 and 2",
              pl.inflight, cutune_pool_pending(pool));
    atomic_store(&gate[6], 1);
    atomic_store(&gate[7], 1);
    atomic_store(&gate[8], 1);
    atomic_store(&gate[9], 1);
    cutune_pool_destroy(&pool); /* finishes what runs: 6 and 7, freed by the pool */
    CHECK_MSG(!atomic_load(&ran[8]) && !atomic_load(&ran[9]),
              "a job taken back from the queue ran (8: %d, 9: %d)", atomic_load(&ran[8]),
              atomic_load(&ran[9]));
    CHECK_MSG(atomic_load(&cpu_us) == 3000, "abandoned NVRTC time %lld us, want 3000",
              (long long)atomic_load(&cpu_us));
    pipeline_free(&pl);
}

int main(void)
{
    CutunePool *pool = NULL;
    TunePipeline pl;
    CHECK(cutune_pool_create(4, &pool) == 0);
    CHECK(pipeline_init(&pl, 4) == 0);
    if (!pool || !pl.queue)
        return check_result("pipeline");
    CutuneCompileJob *c[N];
    for (size_t k = 0; k < 4; k++)
        c[k] = start(&pl, pool, k);
    CHECK(pl.inflight == 4);

    /* the third finishes first: it is taken while the others still run */
    atomic_store(&gate[2], 1);
    take_is(&pl, pool, c[2], 3);

    /* the fourth, then the second finish: the second, queued earlier, is taken first */
    finish(pool, c[3]);
    finish(pool, c[1]);
    take_is(&pl, pool, c[1], 2);
    take_is(&pl, pool, c[3], 1);

    /* a new job queues behind the first, still running */
    c[4] = start(&pl, pool, 4);
    finish(pool, c[4]);
    finish(pool, c[0]);
    take_is(&pl, pool, c[0], 1);
    take_is(&pl, pool, c[4], 0);
    pipeline_free(&pl);
    cutune_pool_destroy(&pool);
    abandon_in_flight();
    same_compile_at_once();
    return check_result("pipeline");
}
