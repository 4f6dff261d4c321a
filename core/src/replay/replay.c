/* Replaying strategies against recordings (see replay.h). */
#include "replay.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void cutune_recording_free(CutuneRecording *r)
{
    if (!r)
        return;
    free(r->param_names);
    cutune_config_list_free(&r->configs);
    free(r->status);
    free(r->median_ms);
    free(r->compile_ms);
    memset(r, 0, sizeof *r);
}

int cutune_replay_once(const CutuneStrategyOps *ops, const CutuneRecording *r, uint64_t seed,
                       size_t budget, size_t window, const size_t *start, size_t nstart,
                       double *best_found, size_t *proposals, size_t *order, double *compile_ms,
                       CutuneError *err)
{
    double compiled = 0;
    if (!compile_ms)
        compile_ms = &compiled;
    *compile_ms = 0;
    size_t n = r->configs.nconfigs;
    if (budget > n)
        budget = n;
    if (window > budget) /* more ahead than the budget is never asked for */
        window = budget;
    if (window < 1)
        window = 1;
    *best_found = 0;
    *proposals = 0;
    CutuneStrategyArgs a = {.space = NULL,
                            .configs = &r->configs,
                            .seed = seed,
                            .budget = budget,
                            .parallel = window,
                            .start = start,
                            .nstart = start ? nstart : 0};
    void *st = NULL;
    unsigned char *seen = calloc(n ? n : 1, 1);
    size_t *ring = cutune_malloc_array(window, sizeof *ring);
    size_t head = 0, inflight = 0, proposed = 0;
    int rc = 0, done = 0;
    if (!seen || !ring) {
        rc = cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
        goto out;
    }
    if ((rc = ops->create(&a, &st))) {
        rc = cutune_error(err, rc, "strategy %s could not start", ops->name);
        goto out;
    }
    /* tune_job.c's loop: ask ahead up to the window; here results come in proposal order */
    for (;;) {
        while (!done && inflight < window && proposed < budget) {
            size_t idx;
            if (!cutune_strategy_next(ops, st, &idx, &done))
                break;
            if (idx >= n || seen[idx]) {
                rc = cutune_error(err, CUTUNE_ERR_INVALID,
                                  "strategy %s proposed config %zu %s (seed %llu, proposal "
                                  "%zu); a strategy must propose each valid config at most once",
                                  ops->name, idx, idx >= n ? "out of range" : "a second time",
                                  (unsigned long long)seed, proposed + 1);
                goto out;
            }
            seen[idx] = 1;
            if (order)
                order[proposed] = idx;
            ring[(head + inflight) % window] = idx;
            inflight++;
            proposed++;
        }
        if (inflight == 0)
            break;
        size_t idx = ring[head];
        head = (head + 1) % window;
        inflight--;
        int s = r->status[idx];
        CutuneStatus status = s == CUTUNE_REPLAY_MISSING ? CUTUNE_STATUS_SKIPPED_RESOURCES
                                                         : (CutuneStatus)s;
        double ms = status == CUTUNE_STATUS_OK ? r->median_ms[idx] : 0;
        if (status == CUTUNE_STATUS_OK && ms > 0 && (*best_found == 0 || ms < *best_found))
            *best_found = ms;
        if (r->compile_ms) /* 0 where unknown */
            *compile_ms += r->compile_ms[idx];
        ops->feedback(st, idx, status, ms);
    }
    *proposals = proposed;
out:
    if (st)
        ops->destroy(st);
    free(seen);
    free(ring);
    return rc;
}

/* Quantile of sorted values by linear interpolation. */
static double quantile(const double *v, size_t n, double q)
{
    double pos = q * (double)(n - 1);
    size_t lo = (size_t)floor(pos), hi = lo + 1 < n ? lo + 1 : lo;
    return v[lo] + (v[hi] - v[lo]) * (pos - (double)lo);
}

int cutune_replay_stats(const CutuneStrategyOps *ops, const CutuneRecording *r, uint64_t seed0,
                        size_t nseeds, const size_t *budgets, size_t nbudgets, size_t window,
                        const size_t *start, size_t nstart, CutuneReplayStat *stats,
                        CutuneError *err)
{
    if (nseeds == 0 || !(r->best_ms > 0))
        return cutune_error(err, CUTUNE_ERR_INVALID,
                            nseeds ? "the recording has no ok config: nothing to find"
                                   : "replay needs at least one seed");
    double *frac = cutune_malloc_array(nseeds, sizeof *frac);
    if (!frac)
        return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
    int rc = 0;
    for (size_t b = 0; b < nbudgets && !rc; b++) {
        CutuneReplayStat *s = &stats[b];
        memset(s, 0, sizeof *s);
        s->budget = budgets[b];
        double t0 = cutune_now(), sum = 0, compiled = 0;
        for (size_t k = 0; k < nseeds; k++) {
            double found, c;
            size_t np;
            if ((rc = cutune_replay_once(ops, r, seed0 + k, budgets[b], window, start, nstart,
                                         &found, &np, NULL, &c, err)))
                break;
            compiled += c;
            frac[k] = found > 0 ? r->best_ms / found : 0;
            sum += frac[k];
        }
        if (rc)
            break;
        s->seconds = (cutune_now() - t0) / (double)nseeds;
        s->compile_s = compiled / 1000.0 / (double)nseeds;
        qsort(frac, nseeds, sizeof *frac, cutune_cmp_double);
        s->min = frac[0];
        s->max = frac[nseeds - 1];
        s->median = quantile(frac, nseeds, 0.5);
        s->p10 = quantile(frac, nseeds, 0.1);
        s->p25 = quantile(frac, nseeds, 0.25);
        s->p75 = quantile(frac, nseeds, 0.75);
        s->mean = sum / (double)nseeds;
    }
    free(frac);
    return rc;
}
