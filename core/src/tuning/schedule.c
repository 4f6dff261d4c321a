/* The run's time policy (see schedule.h). */
#include "schedule.h"

#include <math.h>

/* A size gets at least this part of an equal split of the time left. */
#define SIZE_FLOOR 0.5
/* the patience of a leader and of a trailing variant (schedule.h) */
enum { PATIENCE_MIN = 50, PATIENCE_TENTHS = 12, PATIENCE_TRAILING = 25, WHOLE_PART = 16 };
/* A whole search is late when the rest would take over twice its time left: one a little
 * slower than estimated runs to its deadline, and the next round gives it more time. */
#define LATE_FACTOR 2.0
/* A variant within this factor of the size's best ties it: timing noise (schedule.h). */
#define WHOLE_TIE 1.01
/* a variant's warm start goes on within this factor of the best past its first
 * CUTUNE_WARM_SHOWN configs, and within the first past its first CUTUNE_WARM_EARLY */
#define WARM_CUT 1.5
#define WARM_CUT_EARLY 1.6

void cutune_cost_init(CutuneCostModel *m, int threads)
{
    *m = (CutuneCostModel){
        .threads = threads > 0 ? threads : 1,
        .compile_s = 0.8, /* matmul_async on one core of a GPU host; learned below */
        .overhead_s = 0.02,
        .launches = 20,
        .flop_rate = 2e13,
        .byte_rate = 1e12,
    };
}

/* Exponential average that trusts the first observations fully. */
static double blend(double old, double x, size_t n)
{
    double w = n < 8 ? 1.0 / (double)(n + 1) : 0.1;
    return old + w * (x - old);
}

void cutune_cost_observe(CutuneCostModel *m, double compile_ms, double measure_ms, double median_ms,
                         double flops, double bytes)
{
    if (compile_ms > 0)
        m->compile_s = blend(m->compile_s, compile_ms / 1e3, m->nobs);
    if (median_ms > 0 && measure_ms > 0) {
        double launch_s = median_ms / 1e3;
        if (flops > 0 && flops / launch_s > m->flop_rate)
            m->flop_rate = flops / launch_s;
        if (bytes > 0 && bytes / launch_s > m->byte_rate)
            m->byte_rate = bytes / launch_s;
        /* time beyond the launches is overhead only for short kernels; long ones tell how
         * many launch-times an evaluation takes */
        double ratio = measure_ms / median_ms;
        if (median_ms >= 1.0 && ratio >= 3 && ratio <= 1000)
            m->launches = blend(m->launches, ratio, m->nobs);
        else if (median_ms < 0.1)
            m->overhead_s = blend(m->overhead_s, measure_ms / 1e3, m->nobs);
    }
    m->nobs++;
}

double cutune_cost_eval_s(const CutuneCostModel *m, double flops, double bytes,
                          double cold_fraction)
{
    double launch = fmax(flops > 0 ? flops / m->flop_rate : 0,
                         bytes > 0 ? bytes / m->byte_rate : 0);
    double gpu = m->overhead_s + m->launches * launch;
    double cpu = cold_fraction * m->compile_s / (double)m->threads;
    return fmax(gpu, cpu);
}

double cutune_schedule_size_share(double time_left, int lanes, double cost_this, double cost_rest,
                                  size_t sizes_left)
{
    if (!(time_left > 0))
        return 0;
    if (!(cost_this > 0) || !(cost_rest >= cost_this))
        return time_left;
    double k = lanes > 0 ? lanes : 1;
    double share = k * time_left * cost_this / cost_rest;
    /* every size also compiles its warm start, whatever its launches cost */
    double floor = sizes_left ? SIZE_FLOOR * k * time_left / (double)sizes_left : 0;
    share = share > floor ? share : floor;
    return share < time_left ? share : time_left;
}

double cutune_schedule_judge(const CutuneJudgedSize *sizes, size_t n, size_t self, double budget_s)
{
    double left = budget_s, cost_rest = 0;
    size_t open = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == self || sizes[i].open) {
            cost_rest += sizes[i].cost;
            open += sizes[i].cost > 0;
        } else
            left -= sizes[i].taken;
    }
    if (!(left > 0))
        return -1;
    return cutune_schedule_size_share(left, 1, sizes[self].cost, cost_rest, open);
}

double cutune_schedule_promise(double variant_best_ms, double size_best_ms, size_t left)
{
    if (left == 0)
        return 0;
    if (!(variant_best_ms > 0))
        return 0.25;
    if (!(size_best_ms > 0) || variant_best_ms <= 1.05 * size_best_ms)
        return 1;
    return variant_best_ms <= 1.3 * size_best_ms ? 0.25 : 0;
}

int cutune_schedule_warm_on(double variant_best_ms, double size_best_ms, size_t shown)
{
    double cut = shown < CUTUNE_WARM_SHOWN ? WARM_CUT_EARLY : WARM_CUT;
    return !(variant_best_ms > 0 && size_best_ms > 0) || variant_best_ms <= cut * size_best_ms;
}

int cutune_schedule_whole(double need, double share, double variant_best_ms, double size_best_ms)
{
    if (!(need <= share) || !(variant_best_ms > 0))
        return 0;
    return !(size_best_ms > 0) || variant_best_ms <= WHOLE_TIE * size_best_ms;
}

size_t cutune_schedule_whole_patience(size_t patience, size_t nconfigs)
{
    return patience > nconfigs / WHOLE_PART ? patience : nconfigs / WHOLE_PART;
}

size_t cutune_schedule_lane_window(int window, int searching)
{
    int threads = window > 2 ? window - 2 : 1;
    int w = threads / (searching > 1 ? searching : 1) + 2;
    return (size_t)(w < window ? w : window > 0 ? window : 1);
}

int cutune_schedule_may_propose(size_t inflight, size_t fair, size_t window, int pending,
                                int threads)
{
    return inflight < fair || (inflight < window && pending < threads);
}

int cutune_schedule_takes_late(size_t patience, size_t late_patience)
{
    return late_patience > 0 && (patience == 0 || patience > late_patience);
}

size_t cutune_schedule_patience(size_t window, double promise)
{
    size_t w = PATIENCE_TENTHS * window / 10; /* 1.2 windows */
    size_t p = w > PATIENCE_MIN ? w : PATIENCE_MIN;
    size_t trailing = w / 4 > PATIENCE_TRAILING ? w / 4 : PATIENCE_TRAILING;
    return promise < 1 ? trailing : p;
}

int cutune_schedule_late(size_t measured, double elapsed_s, size_t rest, double time_left_s,
                         size_t window)
{
    if (measured < 2 * (window ? window : 1) || !(elapsed_s > 0))
        return 0;
    return (double)rest * elapsed_s / (double)measured > LATE_FACTOR * time_left_s;
}

void cutune_schedule_split(const double *need, const double *promise, size_t n, double time,
                           double *share)
{
    for (size_t i = 0; i < n; i++)
        share[i] = -1; /* not settled yet */
    double left = time > 0 ? time : 0;
    for (;;) {
        double w = 0;
        for (size_t i = 0; i < n; i++)
            if (share[i] < 0) {
                if (!(promise[i] > 0) || !(need[i] > 0))
                    share[i] = 0;
                else
                    w += promise[i];
            }
        if (!(w > 0))
            break;
        /* settle every variant whose need fits its proportional part; the others share
         * what is left once no more fit */
        int settled = 0;
        for (size_t i = 0; i < n; i++)
            if (share[i] < 0 && need[i] <= left * promise[i] / w) {
                share[i] = need[i];
                settled = 1;
            }
        if (settled) {
            left = time;
            for (size_t i = 0; i < n; i++)
                if (share[i] >= 0)
                    left -= share[i];
            left = left > 0 ? left : 0;
            continue;
        }
        for (size_t i = 0; i < n; i++)
            if (share[i] < 0)
                share[i] = left * promise[i] / w;
        break;
    }
}
