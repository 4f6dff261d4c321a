/* The tuner's pipeline (core/src/tuning/pipeline.c): it hands out the compiles in the order
 * they finish, the earliest queued first among those finished, and reuses the slots it
 * frees. The jobs here wait for the test to open their gate instead of compiling. */
#include "check.h"
#include "pipeline.h"

#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

enum { N = 6 };
static atomic_int gate[N];

static void gated(CutuneJob *job)
{
    const CutuneCompileJob *c = (const CutuneCompileJob *)job;
    while (!atomic_load(&gate[c->index]))
        usleep(200);
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
    pipeline_release(pl, t);
}

int main(void)
{
    CutunePool *pool = NULL;
    TunePipeline pl;
    CHECK(cutune_pool_create(4, &pool) == 0);
    CHECK(pipeline_init(&pl, 4) == 0);
    if (!pool || !pl.slot)
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

    /* freed slots are used again, and a new job queues behind the first, still running */
    c[4] = start(&pl, pool, 4);
    CHECK(c[4] != c[0] && (c[4] == &pl.slot[1] || c[4] == &pl.slot[2] || c[4] == &pl.slot[3]));
    finish(pool, c[4]);
    finish(pool, c[0]);
    take_is(&pl, pool, c[0], 1);
    take_is(&pl, pool, c[4], 0);
    CHECK(!pl.busy[0] && !pl.busy[1] && !pl.busy[2] && !pl.busy[3]);

    pipeline_free(&pl);
    cutune_pool_destroy(&pool);
    return check_result("pipeline");
}
