/* Search strategies, replay, recordings and the synthetic landscape. Needs no GPU.
 *
 * Every strategy is checked on the synthetic landscape and on every recording under
 * tests/data/recordings/: proposals are valid indices, never repeated, exactly the
 * budget, the same for the same seed and look-ahead window (and whatever the window, for
 * a strategy that waits for results rather than fill the pipeline), and better than
 * random sampling by a margin that the replay itself shows to be real: the strategy's
 * median must reach random's 75th percentile, and a one-sided Mann-Whitney test over the
 * seeds must give p < 0.01. The default strategy must keep the pipeline full, and hold
 * its targets at the tuner's window; every strategy must honour a warm start. */
#include "check.h"
#include "db_fixture.h"
#include "db.h"
#include "replay.h"
#include "space.h"
#include "strategies/search.h"
#include "strategy.h"
#include "util.h"

#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { SEEDS = 30 };

/* ---- the grid --------------------------------------------------------------------------- */

static void grid_neighbours(void)
{
    /* A in {1,2,4}, B in {0,1}, without (4,1): a hole a move must not land on */
    int64_t values[] = {1, 0, 1, 1, 2, 0, 2, 1, 4, 0};
    CutuneConfigList cl = {2, 5, values, NULL};
    SearchGrid g;
    CHECK_EQ_INT(search_grid_build(&cl, &g), 0);
    CHECK_EQ_INT(g.nlevels[0], 3);
    CHECK_EQ_INT(g.nlevels[1], 2);
    uint16_t hole[2] = {2, 1}, there[2] = {2, 0};
    CHECK(search_grid_find(&g, hole) == -1);
    CHECK(search_grid_find(&g, there) == 4);
    size_t nb[4];
    size_t m = search_grid_neighbours(&g, 2, nb); /* (2,0): (1,0), (4,0), (2,1) */
    CHECK_EQ_INT(m, 3);
    int seen = 0;
    for (size_t i = 0; i < m; i++)
        seen |= 1 << nb[i];
    CHECK_EQ_INT(seen, (1 << 0) | (1 << 4) | (1 << 3));
    CHECK_EQ_INT(search_grid_neighbours(&g, 4, nb), 1); /* (4,0): only (2,0) */
    CHECK(nb[0] == 2);
    search_grid_free(&g);
}

/* ---- statistics ------------------------------------------------------------------------- */

/* One-sided Mann-Whitney U test that x tends to be larger than y, normal approximation
 * with the tie correction; returns the p-value. */
static double mann_whitney_p(const double *x, size_t nx, const double *y, size_t ny)
{
    size_t n = nx + ny;
    double *v = malloc(n * sizeof *v), *rank = malloc(n * sizeof *rank);
    int *from_x = malloc(n * sizeof *from_x);
    if (!v || !rank || !from_x) {
        free(v), free(rank), free(from_x);
        return 1;
    }
    for (size_t i = 0; i < n; i++) {
        v[i] = i < nx ? x[i] : y[i - nx];
        from_x[i] = i < nx;
    }
    for (size_t i = 1; i < n; i++) /* insertion sort: a few hundred values */
        for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
            int f = from_x[j];
            from_x[j] = from_x[j - 1];
            from_x[j - 1] = f;
        }
    double ties = 0, rx = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && v[j] == v[i])
            j++;
        double r = 0.5 * (double)(i + 1 + j), t = (double)(j - i);
        for (size_t k = i; k < j; k++)
            rank[k] = r;
        ties += t * t * t - t;
        i = j;
    }
    for (size_t i = 0; i < n; i++)
        if (from_x[i])
            rx += rank[i];
    double u = rx - (double)nx * (double)(nx + 1) / 2, mu = (double)nx * (double)ny / 2;
    double var = (double)nx * (double)ny / 12 *
                 ((double)(n + 1) - ties / ((double)n * (double)(n - 1)));
    free(v), free(rank), free(from_x);
    if (!(var > 0))
        return 1; /* every value tied: no evidence */
    double z = (u - mu - 0.5) / sqrt(var);
    return 0.5 * erfc(z / sqrt(2));
}

static double sorted_quantile(double *v, size_t n, double q)
{
    qsort(v, n, sizeof *v, cutune_cmp_double);
    double pos = q * (double)(n - 1);
    size_t lo = (size_t)pos, hi = lo + 1 < n ? lo + 1 : lo;
    return v[lo] + (v[hi] - v[lo]) * (pos - (double)lo);
}

/* Fractions of the optimum over SEEDS seeds at one budget and window. */
static int fractions(const CutuneStrategyOps *ops, const CutuneRecording *r, size_t budget,
                     size_t window, double *out)
{
    for (size_t k = 0; k < SEEDS; k++) {
        double found;
        size_t np;
        CutuneError e = {0};
        if (cutune_replay_once(ops, r, 1 + k, budget, window, NULL, 0, &found, &np, NULL, NULL,
                               &e)) {
            CHECK_MSG(0, "%s: %s", ops->name, e.msg);
            return -1;
        }
        out[k] = found > 0 ? r->best_ms / found : 0;
    }
    return 0;
}

/* ---- properties every strategy must have ----------------------------------------------- */

/* How many proposals the strategy makes, told parallel = 34, before it has any result. */
static size_t ahead_of_feedback(const CutuneStrategyOps *ops, const CutuneRecording *r)
{
    CutuneStrategyArgs a = {.configs = &r->configs,
                            .seed = 3,
                            .budget = r->configs.nconfigs,
                            .parallel = 34};
    void *st = NULL;
    size_t idx, k = 0;
    if (ops->create(&a, &st))
        return 0;
    while (k < 34 && ops->next(st, &idx) == CUTUNE_NEXT_READY)
        k++;
    ops->destroy(st);
    return k;
}

static void properties(const char *what, const CutuneRecording *r)
{
    size_t n = r->configs.nconfigs;
    size_t *o1 = malloc((n + 1) * sizeof *o1), *o2 = malloc((n + 1) * sizeof *o2);
    size_t *o3 = malloc((n + 1) * sizeof *o3);
    CHECK(o1 && o2 && o3);
    if (!o1 || !o2 || !o3)
        goto out;
    size_t space_failed = 0;
    for (size_t i = 0; i < n; i++)
        space_failed += r->status[i] != CUTUNE_STATUS_OK;
    const size_t budgets[] = {1, 25, 100, 400, n};
    for (size_t s = 0; cutune_strategy_list[s]; s++) {
        const CutuneStrategyOps *ops = cutune_strategy_list[s];
        for (size_t bi = 0; bi < sizeof budgets / sizeof budgets[0]; bi++) {
            size_t b = budgets[bi], want = b < n ? b : n, np = 0;
            double found = 0;
            CutuneError e = {0};
            int rc = cutune_replay_once(ops, r, 42, b, 34, NULL, 0, &found, &np, o1, NULL, &e);
            CHECK_MSG(rc == 0, "%s on %s, budget %zu: %s", ops->name, what, b, e.msg);
            CHECK_MSG(np == want, "%s on %s: %zu proposals for a budget of %zu (%zu configs)",
                      ops->name, what, np, b, n);
            if (b == n && rc == 0) /* the whole space: best found is the optimum */
                CHECK_MSG(found == r->best_ms, "%s on %s: the whole space but not the optimum",
                          ops->name, what);
        }
        size_t b = n < 400 ? n : 400, np1 = 0, np2 = 0, np3 = 0;
        double f1, f2, f3;
        for (size_t w = 1; w <= 34; w += 33) { /* the same seed and window: the same proposals */
            CHECK(cutune_replay_once(ops, r, 7, b, w, NULL, 0, &f1, &np1, o1, NULL, NULL) == 0);
            CHECK(cutune_replay_once(ops, r, 7, b, w, NULL, 0, &f3, &np3, o3, NULL, NULL) == 0);
            CHECK_MSG(np1 == np3 && memcmp(o1, o3, np1 * sizeof *o1) == 0,
                      "%s on %s: not reproducible with the same seed (window %zu)", ops->name, what,
                      w);
        }
        /* a strategy either fills the pipeline, or waits for results and then proposes the
         * same whatever the window */
        CHECK(cutune_replay_once(ops, r, 7, b, 1, NULL, 0, &f2, &np2, o2, NULL, NULL) == 0);
        size_t ahead = ahead_of_feedback(ops, r), want_ahead = n < 34 ? n : 34;
        CHECK_MSG(ahead == want_ahead || (np1 == np2 && memcmp(o1, o2, np1 * sizeof *o1) == 0),
                  "%s on %s: the proposals depend on the look-ahead window, yet it proposes "
                  "only %zu of %zu ahead of feedback",
                  ops->name, what, ahead, want_ahead);
        if (ops == cutune_strategy_find(cutune_strategy_default_search))
            CHECK_MSG(ahead == want_ahead,
                      "the default strategy proposes %zu of %zu ahead of "
                      "feedback on %s",
                      ahead, want_ahead, what);
        if (ops != &cutune_strategy_exhaustive && n >= 50) {
            CHECK(cutune_replay_once(ops, r, 8, b, 34, NULL, 0, &f2, &np2, o2, NULL, NULL) == 0);
            CHECK_MSG(memcmp(o1, o2, np1 * sizeof *o1) != 0,
                      "%s on %s: seed 8 proposes what seed 7 did", ops->name, what);
        }
        size_t failed = 0;
        for (size_t i = 0; i < np1; i++)
            failed += r->status[o1[i]] != CUTUNE_STATUS_OK;
        printf("  %-10s on %s: %zu of %zu proposals failed (%.1f%% of the space fails)\n",
               ops->name, what, failed, np1, 100.0 * (double)space_failed / (double)(n ? n : 1));
        /* the model learns where configs fail: it must not hit them more than blind picks */
        if (ops == &cutune_strategy_tpe && np1 < n && space_failed)
            CHECK_MSG((double)failed / (double)np1 <= (double)space_failed / (double)n,
                      "tpe on %s: %zu of %zu proposals failed", what, failed, np1);
    }
out:
    free(o1), free(o2), free(o3);
}

/* Every strategy against random at budget b: median >= random's 75th percentile, and a
 * one-sided Mann-Whitney p < 0.01, with the result of each proposal known before the next
 * (window 1): with a pipeline, the first proposals are blind by necessity, and the default
 * is held to "never below random" at the tuner's window in default_holds(). Skipped where random sampling's median already reaches
 * 0.97 of the optimum (the target at 100 evaluations): a space that flat leaves
 * nothing to prove (the 72 configs of matmul_naive, for one). */
static void beats_random(const char *what, const CutuneRecording *r, size_t b)
{
    double rnd[SEEDS], x[SEEDS], tmp[SEEDS];
    if (fractions(&cutune_strategy_random, r, b, 1, rnd))
        return;
    memcpy(tmp, rnd, sizeof tmp);
    double rmed = sorted_quantile(tmp, SEEDS, 0.5), r75 = sorted_quantile(tmp, SEEDS, 0.75);
    printf("  %s at %zu evaluations: random median %.3f, 75th percentile %.3f\n", what, b, rmed,
           r75);
    if (rmed >= 0.97) {
        printf("  (random sampling already reaches 0.97 of the optimum: no room to compare)\n");
        return;
    }
    for (size_t s = 0; cutune_strategy_list[s]; s++) {
        const CutuneStrategyOps *ops = cutune_strategy_list[s];
        if (ops == &cutune_strategy_random || ops == &cutune_strategy_exhaustive)
            continue;
        if (fractions(ops, r, b, 1, x))
            continue;
        double p = mann_whitney_p(x, SEEDS, rnd, SEEDS);
        memcpy(tmp, x, sizeof tmp);
        double med = sorted_quantile(tmp, SEEDS, 0.5);
        printf("  %-10s median %.3f, Mann-Whitney p = %.2g\n", ops->name, med, p);
        CHECK_MSG(med >= r75 && p < 0.01,
                  "%s on %s at %zu evaluations: median %.3f vs random's 75th percentile %.3f, "
                  "p = %.3g",
                  ops->name, what, b, med, r75, p);
    }
}

/* The default strategy at the tuner's window (18 on a 16-core host) and one at a time: never below random
 * sampling's median at any budget from 25 to 400, and, on a space large enough for them to
 * mean something (10^3 configs or more), the targets: >= 0.98 of the optimum at 100
 * evaluations one at a time, >= 0.97 with 18 in flight (18 of the 100 are then blind, and
 * the rest see results 18 proposals late), >= 0.995 at 400 either way. */
static void default_holds(const char *what, const CutuneRecording *r)
{
    const CutuneStrategyOps *def = cutune_strategy_find(cutune_strategy_default_search);
    const size_t budgets[] = {25, 50, 100, 200, 400}, windows[] = {18, 1};
    double x[SEEDS], rnd[SEEDS];
    if (!def)
        return;
    for (size_t w = 0; w < 2; w++) {
        printf("  %s, window %2zu:", def->name, windows[w]);
        for (size_t k = 0; k < sizeof budgets / sizeof budgets[0]; k++) {
            size_t b = budgets[k];
            if (fractions(def, r, b, windows[w], x) ||
                fractions(&cutune_strategy_random, r, b, windows[w], rnd))
                return;
            double m = sorted_quantile(x, SEEDS, 0.5), mr = sorted_quantile(rnd, SEEDS, 0.5);
            printf(" %.3f (random %.3f) at %zu", m, mr, b);
            CHECK_MSG(m >= mr,
                      "%s on %s, window %zu: median %.3f at %zu evaluations, below "
                      "random's %.3f",
                      def->name, what, windows[w], m, b, mr);
            if (r->configs.nconfigs >= 1000 && (b == 100 || b == 400)) {
                double want = b == 400 ? 0.995 : windows[w] > 1 ? 0.97 : 0.98;
                CHECK_MSG(m >= want,
                          "%s on %s, window %zu: median %.3f at %zu evaluations, "
                          "under %.3f",
                          def->name, what, windows[w], m, b, want);
            }
        }
        printf("\n");
    }
}

/* ---- the synthetic landscape ------------------------------------------------------------ */

static void landscape(void)
{
    CutuneRecording a, b, c;
    CHECK_EQ_INT(cutune_landscape_generate(1, &a), 0);
    CHECK_EQ_INT(cutune_landscape_generate(1, &b), 0);
    CHECK_EQ_INT(cutune_landscape_generate(2, &c), 0);
    size_t n = a.configs.nconfigs;
    CHECK_MSG(n >= 5000 && n <= 30000, "%zu configs", n);
    CHECK(b.configs.nconfigs == n &&
          memcmp(a.median_ms, b.median_ms, n * sizeof *a.median_ms) == 0);
    CHECK(c.configs.nconfigs == n &&
          memcmp(a.median_ms, c.median_ms, n * sizeof *a.median_ms) != 0);
    size_t kinds[CUTUNE_STATUS_COUNT] = {0};
    double best = 0;
    for (size_t i = 0; i < n; i++) {
        kinds[a.status[i]]++;
        if (a.status[i] == CUTUNE_STATUS_OK && (best == 0 || a.median_ms[i] < best))
            best = a.median_ms[i];
    }
    CHECK(best == a.best_ms && best > 0);
    CHECK(kinds[CUTUNE_STATUS_SKIPPED_RESOURCES] > 0 && kinds[CUTUNE_STATUS_COMPILE_ERROR] > 0 &&
          kinds[CUTUNE_STATUS_WRONG_RESULT] > 0);
    CHECK(kinds[CUTUNE_STATUS_OK] == a.nok && a.nok + a.nfailed == n);

    properties("the synthetic landscape", &a);
    beats_random("the synthetic landscape", &a, 100);

    /* the speed target: 400 evaluations of a 10^4-config space well under a second */
    for (size_t s = 0; cutune_strategy_list[s]; s++) {
        const CutuneStrategyOps *ops = cutune_strategy_list[s];
        double found, t0 = cutune_now();
        size_t np;
        CHECK(cutune_replay_once(ops, &a, 3, 400, 34, NULL, 0, &found, &np, NULL, NULL, NULL) == 0);
        double dt = cutune_now() - t0;
        printf("  %-10s 400 evaluations of %zu configs replayed in %.1f ms\n", ops->name, n,
               1e3 * dt);
        CHECK_MSG(dt < 1.0, "%s took %.3f s", ops->name, dt);
    }
    cutune_recording_free(&a);
    cutune_recording_free(&b);
    cutune_recording_free(&c);
}

/* ---- the recorded data sets ------------------------------------------------------------- */

static void recordings(void)
{
    const char *dir = getenv("CUTUNE_TEST_DATA");
    char path[1024];
    snprintf(path, sizeof path, "%s/recordings", dir ? dir : "tests/data");
    DIR *d = opendir(path);
    CHECK_MSG(d != NULL, "no folder %s", path);
    if (!d)
        return;
    int count = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        size_t len = strlen(de->d_name);
        if (len < 5 || strcmp(de->d_name + len - 4, ".csv") != 0)
            continue;
        char file[2048];
        snprintf(file, sizeof file, "%s/%s", path, de->d_name);
        CutuneRecording r;
        CutuneError e = {0};
        int rc = cutune_recording_load(file, NULL, NULL, NULL, NULL, &r, &e);
        CHECK_MSG(rc == 0, "%s: %s", file, e.msg);
        if (rc)
            continue;
        count++;
        printf("%s: %s %s on %s (%s), %zu configs, %zu ok, optimum %.4g ms\n", de->d_name,
               r.variant, r.size, r.device, r.date, r.configs.nconfigs, r.nok, r.best_ms);
        CHECK_MSG(r.device[0] && r.date[0], "%s does not name its device and date", file);
        CHECK(r.nok > 0 && r.best_ms > 0);
        properties(de->d_name, &r);
        /* "a few percent of the space": 15% of a small space, 100 evaluations of a big one;
         * a space under 50 configs is not searched but measured whole, so not compared */
        size_t b = r.configs.nconfigs * 15 / 100;
        b = b < 10 ? 10 : b > 100 ? 100 : b;
        if (r.configs.nconfigs >= 50)
            beats_random(de->d_name, &r, b);
        if (r.configs.nconfigs >= 50)
            default_holds(de->d_name, &r);
        cutune_recording_free(&r);
    }
    closedir(d);
    CHECK_MSG(count > 0, "no recording in %s", path);
}

/* ---- loading recordings ----------------------------------------------------------------- */

static CutuneDeviceInfo device(const char *uuid, const char *name)
{
    CutuneDeviceInfo dv = fixture_device(uuid, name);
    dv.sm_count = 132;
    return dv;
}

static void add(CutuneDb *db, int64_t run, int64_t dev, int64_t var, int64_t prob,
                const char *config, CutuneStatus status, double ms)
{
    CutuneTrialRecord t = fixture_trial(run, dev, var, prob, config, status);
    t.median_ms = ms;
    t.samples = 5;
    t.compile_ms = 10 + ms; /* a compile time per trial: the recording keeps their mean */
    CutuneError e = {0};
    CHECK_MSG(cutune_db_trial_insert(db, &t, NULL, NULL, &e) == 0, "%s", e.msg);
}

static void load_from_db(void)
{
    char dir[] = "/tmp/cutune-search-XXXXXX", path[256], csv[256];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/t.db", dir);
    snprintf(csv, sizeof csv, "%s/t.csv", dir);
    CutuneDb *db = NULL;
    CutuneError e = {0};
    int64_t d1, d2, var, prob, run;
    CutuneDeviceInfo h200 = device("GPU-aaaa", "NVIDIA H200"),
                     h100 = device("GPU-bbbb", "NVIDIA H100");
    CutuneRunInfo ri = {.argv = "test", .op = "matmul", .strategy = "exhaustive"};
    CHECK_MSG(cutune_db_open(path, 0, &db, &e) == 0, "%s", e.msg);
    if (!db)
        return;
    CHECK(cutune_db_device(db, &h200, &d1, &e) == 0 && cutune_db_device(db, &h100, &d2, &e) == 0);
    int64_t old;
    CHECK(cutune_db_variant(db, "matmul", "matmul_tiled", "0", "oldhash", &old, &e) == 0);
    CHECK(cutune_db_variant(db, "matmul", "matmul_tiled", "1", "hash", &var, &e) == 0);
    CHECK(cutune_db_problem(db, "matmul", "64x64x64", &prob, &e) == 0);
    ri.device_id = d1;
    CHECK(cutune_db_run_begin(db, &ri, &run, &e) == 0);
    const char *a = "TILE=16,PAD=0,WPT=1,UNROLL=1", *b = "TILE=16,PAD=0,WPT=1,UNROLL=2",
               *c = "TILE=16,PAD=0,WPT=1,UNROLL=4", *x = "TILE=16,PAD=1,WPT=1,UNROLL=1";
    add(db, run, d1, var, prob, a, CUTUNE_STATUS_OK, 1.0);
    add(db, run, d1, var, prob, a, CUTUNE_STATUS_OK, 3.0); /* measured twice: median 2 */
    add(db, run, d1, var, prob, a, CUTUNE_STATUS_OK, 2.5); /* three times: median 2.5 */
    add(db, run, d1, var, prob, b, CUTUNE_STATUS_OK, 0.5);
    add(db, run, d1, var, prob, b, CUTUNE_STATUS_WRONG_RESULT, 0); /* once wrong: failed */
    add(db, run, d1, var, prob, c, CUTUNE_STATUS_COMPILE_ERROR, 0);
    add(db, run, d2, var, prob, x, CUTUNE_STATUS_OK, 0.1);  /* another device */
    add(db, run, d1, old, prob, a, CUTUNE_STATUS_OK, 0.01); /* an older kernel: not read */
    cutune_db_close(&db);

    CutuneRecording r;
    cutune_error_clear(&e);
    CHECK(cutune_recording_load(path, "matmul_tiled", "64x64x64", NULL, NULL, &r, &e) ==
          CUTUNE_ERR_INVALID);
    CHECK_STR_CONTAINS(e.msg, "several devices");
    cutune_error_clear(&e);
    CHECK(cutune_recording_load(path, "matmul_naive", "64x64x64", NULL, NULL, &r, &e) ==
          CUTUNE_ERR_NOT_FOUND);
    CHECK_STR_CONTAINS(e.msg, "no trial of variant matmul_naive");
    cutune_error_clear(&e);
    int rc = cutune_recording_load(path, "matmul_tiled", "64x64x64", "h200", NULL, &r, &e);
    CHECK_MSG(rc == 0, "%s", e.msg);
    if (rc == 0) {
        CHECK_EQ_INT(r.configs.nconfigs, 3);
        CHECK_EQ_INT(r.nok, 1);
        CHECK_EQ_INT(r.nfailed, 2);
        CHECK(r.best_ms == 2.5);
        CHECK(strcmp(r.device, "NVIDIA H200") == 0 && strlen(r.date) == 10);
        CHECK(strcmp(r.param_names[3], "UNROLL") == 0);
        /* compile times: a's the mean of 11, 13 and 12.5, b's of 10.5 and 10, c's 10; and a
         * replay of the whole space adds up those of its proposals */
        double sum = 0, found = 0, compiled = 0;
        for (size_t i = 0; i < 3; i++)
            sum += r.compile_ms[i];
        CHECK_MSG(fabs(sum - ((11 + 13 + 12.5) / 3 + 10.25 + 10)) < 1e-9,
                  "compile times add up to %g", sum);
        size_t np = 0;
        CHECK(cutune_replay_once(&cutune_strategy_random, &r, 1, 3, 2, NULL, 0, &found, &np, NULL,
                                 &compiled, NULL) == 0);
        CHECK_MSG(np == 3 && fabs(compiled - sum) < 1e-9, "%zu proposals, %g ms", np, compiled);
        /* CSV round trip */
        CHECK_MSG(cutune_recording_write_csv(&r, csv, &e) == 0, "%s", e.msg);
        CutuneRecording q;
        rc = cutune_recording_load(csv, NULL, NULL, NULL, NULL, &q, &e);
        CHECK_MSG(rc == 0, "%s", e.msg);
        if (rc == 0) {
            CHECK(q.configs.nconfigs == 3 && q.nok == 1 && q.best_ms == 2.5);
            CHECK(strcmp(q.variant, "matmul_tiled") == 0 && strcmp(q.size, "64x64x64") == 0);
            CHECK(memcmp(q.configs.values, r.configs.values, 3 * 4 * sizeof(int64_t)) == 0);
            CHECK(q.compile_ms[0] == 0 && q.compile_ms[1] == 0); /* a CSV has none */
            cutune_recording_free(&q);
        }
        cutune_recording_free(&r);
    }
    /* with the space: every valid config of the space is searched; unrecorded = missing */
    const char *src = getenv("CUTUNE_SOURCE_ROOT");
    char ini[1024];
    snprintf(ini, sizeof ini, "%s/tuning_spaces/matmul_tiled.ini", src ? src : ".");
    CutuneSpace *sp = NULL;
    CHECK_MSG(cutune_space_load(ini, "M,N,K", &sp, &e) == 0, "%s", e.msg);
    if (sp) {
        rc = cutune_recording_load(path, "matmul_tiled", "64x64x64", "GPU-aaaa", sp, &r, &e);
        CHECK_MSG(rc == 0, "%s", e.msg);
        if (rc == 0) {
            CHECK_EQ_INT(r.configs.nconfigs, 132);
            CHECK_EQ_INT(r.nmissing, 129);
            CHECK_EQ_INT(r.nok + r.nfailed, 3);
            CHECK(r.best_ms == 2.5);
            properties("a space with 3 of 132 configs recorded", &r);
            cutune_recording_free(&r);
        }
        /* the shipped H200 recording covers its space exactly */
        snprintf(ini, sizeof ini, "%s/tests/data/recordings/h200-matmul_tiled-4096.csv",
                 src ? src : ".");
        rc = cutune_recording_load(ini, NULL, NULL, NULL, sp, &r, &e);
        CHECK_MSG(rc == 0, "%s", e.msg);
        if (rc == 0) {
            CHECK(r.nmissing == 0 && r.nunmatched == 0 && r.configs.nconfigs == 132);
            cutune_recording_free(&r);
        }
        cutune_space_free(sp);
    }
    /* a CSV with a bad header names the file and line */
    FILE *f = fopen(csv, "w");
    if (f) {
        fputs("# device: x\nTILE,PAD,median_ms\n", f);
        fclose(f);
    }
    cutune_error_clear(&e);
    CHECK(cutune_recording_load(csv, NULL, NULL, NULL, NULL, &r, &e) == CUTUNE_ERR_PARSE);
    CHECK_STR_CONTAINS(e.msg, "t.csv:2: expected the header line");
    /* every field counts, empty ones too (strtok read "TILE,,PAD" as two columns, and a
     * config's missing value shifted its status into its parameters) */
    static const struct {
        const char *text, *phrase;
    } empty[] = {
        {"TILE,,PAD,status,median_ms\n16,,0,ok,2.5\n",
         "t.csv:1: the name of parameter 2 '' is empty"},
        {"TILE,PAD,status,median_ms\n16,0,ok,2.5\n16,,ok,3.5\n",
         "t.csv:3: the value of parameter PAD is empty"},
        {"TILE,PAD,status,median_ms\n16,0,ok,2.5,\n", "t.csv:2: expected 4 fields, found 5"},
        {"TILE,PAD,status,median_ms\n\"16,0\",0,ok,2.5\n",
         "t.csv:2: the value of parameter TILE holds ',' or '='"},
        {"TILE,PAD,status,median_ms\n\"16,0,ok,2.5\n", "t.csv:2: a quoted field is not closed"},
    };
    for (size_t i = 0; i < sizeof empty / sizeof empty[0]; i++) {
        if ((f = fopen(csv, "w"))) {
            fputs(empty[i].text, f);
            fclose(f);
        }
        cutune_error_clear(&e);
        rc = cutune_recording_load(csv, NULL, NULL, NULL, NULL, &r, &e);
        CHECK_MSG(rc == CUTUNE_ERR_PARSE && strstr(e.msg, empty[i].phrase),
                  "case %zu: %d '%s', want '%s'", i, rc, e.msg, empty[i].phrase);
        if (rc == 0)
            cutune_recording_free(&r);
    }
    /* a failed config's empty median, or none at all, is still read */
    if ((f = fopen(csv, "w"))) {
        fputs("TILE,PAD,status,median_ms\n16,0,ok,2.5\n16,1,compile_error,\n8,1,crashed\n", f);
        fclose(f);
    }
    cutune_error_clear(&e);
    rc = cutune_recording_load(csv, NULL, NULL, NULL, NULL, &r, &e);
    CHECK_MSG(rc == 0, "%s", e.msg);
    if (rc == 0) {
        CHECK(r.configs.nconfigs == 3 && r.nok == 1 && r.nfailed == 2 && r.best_ms == 2.5);
        cutune_recording_free(&r);
    }
    unlink(csv);
    cutune_db_file_remove(path);
    rmdir(dir);
}

/* ---- the replay checks the strategy ----------------------------------------------------- */

static int bad_create(const CutuneStrategyArgs *a, void **st)
{
    (void)a;
    *st = malloc(1);
    return *st ? 0 : CUTUNE_ERR_NOMEM;
}

static int bad_next(void *st, size_t *index)
{
    (void)st;
    *index = 0; /* the same config, again and again */
    return CUTUNE_NEXT_READY;
}

static void bad_feedback(void *st, size_t i, CutuneStatus s, double ms)
{
    (void)st, (void)i, (void)s, (void)ms;
}

static void replay_catches_repeats(void)
{
    const CutuneStrategyOps bad = {"bad",    "repeats itself", bad_create,
                                   bad_next, bad_feedback,     free};
    CutuneRecording r;
    CHECK_EQ_INT(cutune_landscape_generate(5, &r), 0);
    double found;
    size_t np;
    CutuneError e = {0};
    CHECK(cutune_replay_once(&bad, &r, 1, 10, 4, NULL, 0, &found, &np, NULL, NULL, &e) ==
          CUTUNE_ERR_INVALID);
    CHECK_STR_CONTAINS(e.msg, "proposed config 0 a second time");
    cutune_recording_free(&r);
}

/* Sizes from the command line that would overflow an allocation: a window larger than the
 * budget is clamped, and a seed count whose array cannot exist fails cleanly. */
static void huge_sizes(void)
{
    CutuneRecording r;
    CHECK_EQ_INT(cutune_landscape_generate(6, &r), 0);
    double found = 0;
    size_t np = 0;
    CHECK(cutune_replay_once(&cutune_strategy_random, &r, 1, 50, (size_t)1 << 61, NULL, 0, &found,
                             &np, NULL, NULL, NULL) == 0);
    CHECK(np == 50 && found > 0);
    size_t budget = 10;
    CutuneReplayStat st;
    CutuneError e = {0};
    CHECK(cutune_replay_stats(&cutune_strategy_random, &r, 1, (size_t)1 << 61, &budget, 1, 4, NULL,
                              0, &st, &e) == CUTUNE_ERR_NOMEM);
    CHECK(cutune_replay_stats(&cutune_strategy_random, &r, 1, SIZE_MAX, &budget, 1, SIZE_MAX, NULL,
                              0, &st, NULL) == CUTUNE_ERR_NOMEM);
    cutune_recording_free(&r);
}

/* The default keeps the pipeline full: 34 proposals ahead of any result, then one new one
 * per result, never a wait, over a whole replay; and its proposals depend on its seed. */
static void pipeline(void)
{
    CutuneRecording r;
    CHECK_EQ_INT(cutune_landscape_generate(4, &r), 0);
    const CutuneStrategyOps *def = cutune_strategy_find(cutune_strategy_default_search);
    size_t n = r.configs.nconfigs;
    CutuneStrategyArgs a = {.configs = &r.configs, .seed = 11, .budget = 400, .parallel = 34};
    void *st = NULL;
    unsigned char *seen = calloc(n, 1);
    size_t ring[34], head = 0, inflight = 0, waits = 0, proposed = 0, idx;
    CHECK(def && seen && def->create(&a, &st) == 0);
    if (!def || !seen || !st)
        goto out;
    while (proposed < 400) {
        while (inflight < 34 && proposed < 400) {
            int k = def->next(st, &idx);
            if (k != CUTUNE_NEXT_READY) {
                waits++;
                break;
            }
            CHECK_MSG(idx < n && !seen[idx], "proposal %zu: config %zu again", proposed, idx);
            if (idx < n)
                seen[idx] = 1;
            ring[(head + inflight++) % 34] = idx;
            proposed++;
        }
        if (proposed == 34)
            CHECK_MSG(inflight == 34, "%zu proposals before the first result", inflight);
        if (inflight == 0)
            break;
        size_t i = ring[head];
        head = (head + 1) % 34;
        inflight--;
        def->feedback(st, i, (CutuneStatus)r.status[i],
                      r.status[i] == CUTUNE_STATUS_OK ? r.median_ms[i] : 0);
    }
    CHECK_MSG(waits == 0 && proposed == 400, "%zu waits, %zu proposals", waits, proposed);
    double f1, f2;
    size_t o1[100], o2[100], np;
    CHECK(cutune_replay_once(def, &r, 1, 100, 34, NULL, 0, &f1, &np, o1, NULL, NULL) == 0);
    CHECK(cutune_replay_once(def, &r, 2, 100, 34, NULL, 0, &f2, &np, o2, NULL, NULL) == 0);
    CHECK(memcmp(o1, o2, sizeof o1) != 0);
out:
    if (st)
        def->destroy(st);
    free(seen);
    cutune_recording_free(&r);
}

/* The warm start: every strategy proposes its configs first, in order, skipping what is out
 * of range or repeated, never twice; and a search learns from them: started next to the
 * optimum (one parameter one level away), it finds the optimum within 40 evaluations in at
 * least 9 of 20 seeds, and in at least 6 seeds more than without that start (a search
 * that moves on as soon as a neighbour is faster may leave before it meets the optimum;
 * the default spends at least 15% of its proposals exploring, which costs it a seed
 * here: 9, where 5% of random configs made at least 10). */
static void warm_start(void)
{
    CutuneRecording r;
    CHECK_EQ_INT(cutune_landscape_generate(6, &r), 0);
    size_t n = r.configs.nconfigs, opt = 0;
    for (size_t i = 0; i < n; i++)
        if (r.status[i] == CUTUNE_STATUS_OK && r.median_ms[i] == r.best_ms)
            opt = i;
    SearchGrid g;
    size_t nb[2 * SEARCH_MAX_PARAMS], near = opt;
    CHECK_EQ_INT(search_grid_build(&r.configs, &g), 0);
    size_t m = search_grid_neighbours(&g, opt, nb);
    for (size_t k = 0; k < m && near == opt; k++)
        if (r.status[nb[k]] == CUTUNE_STATUS_OK)
            near = nb[k];
    search_grid_free(&g);
    CHECK(near != opt);
    const size_t start[] = {17, n + 5, 3, 17, 99}, want[] = {17, 3, 99};
    size_t order[400];
    for (size_t s = 0; cutune_strategy_list[s]; s++) {
        const CutuneStrategyOps *ops = cutune_strategy_list[s];
        for (size_t w = 1; w <= 34; w += 33) {
            double f;
            size_t np;
            CutuneError e = {0};
            int rc = cutune_replay_once(ops, &r, 5, 400, w, start, 5, &f, &np, order, NULL, &e);
            CHECK_MSG(rc == 0 && np == 400, "%s with a warm start: %s", ops->name, e.msg);
            CHECK_MSG(rc == 0 && memcmp(order, want, sizeof want) == 0,
                      "%s does not propose its warm start first (window %zu)", ops->name, w);
        }
        if (ops != &cutune_strategy_annealing && ops != &cutune_strategy_ils &&
            ops != &cutune_strategy_portfolio)
            continue;
        int with = 0, without = 0;
        for (uint64_t seed = 1; seed <= 20; seed++) {
            double f;
            size_t np;
            CHECK(cutune_replay_once(ops, &r, seed, 40, 1, &near, 1, &f, &np, NULL, NULL, NULL) ==
                  0);
            with += f == r.best_ms;
            CHECK(cutune_replay_once(ops, &r, seed, 40, 1, NULL, 0, &f, &np, NULL, NULL, NULL) ==
                  0);
            without += f == r.best_ms;
        }
        printf("  %-10s finds the optimum within 40 evaluations in %d of 20 seeds from a "
               "neighbour of it, %d without\n",
               ops->name, with, without);
        CHECK_MSG(with >= 9 && with >= without + 6, "%s: %d of 20 from the start, %d without",
                  ops->name, with, without);
    }
    cutune_recording_free(&r);
}

/* A warm start for replays from another recording of the same space: its fastest configs,
 * fastest first, found in the replayed one by parameter values; another space is refused. */
static void best_of_other(void)
{
    const char *dir = getenv("CUTUNE_TEST_DATA");
    char a[1024], b[1024], c[1024];
    snprintf(a, sizeof a, "%s/recordings/h200-matmul_tiled-1024.csv", dir ? dir : "tests/data");
    snprintf(b, sizeof b, "%s/recordings/h200-matmul_tiled-4096.csv", dir ? dir : "tests/data");
    snprintf(c, sizeof c, "%s/recordings/h200-matmul_naive-1024.csv", dir ? dir : "tests/data");
    CutuneRecording from, to, other;
    CutuneError e = {0};
    CHECK(cutune_recording_load(a, NULL, NULL, NULL, NULL, &from, &e) == 0);
    CHECK(cutune_recording_load(b, NULL, NULL, NULL, NULL, &to, &e) == 0);
    CHECK(cutune_recording_load(c, NULL, NULL, NULL, NULL, &other, &e) == 0);
    size_t idx[4], p = to.nparams;
    long m = cutune_recording_best_of(&from, &to, 4, idx, &e);
    CHECK_MSG(m == 4, "%ld: %s", m, e.msg);
    double last = 0;
    for (long k = 0; k < m; k++) { /* the same config in from, and the times rising */
        const int64_t *v = to.configs.values + idx[k] * p;
        long f = -1;
        for (size_t i = 0; i < from.configs.nconfigs && f < 0; i++)
            if (memcmp(from.configs.values + i * p, v, p * sizeof *v) == 0)
                f = (long)i;
        CHECK(f >= 0 && from.status[f] == CUTUNE_STATUS_OK && from.median_ms[f] >= last);
        if (f >= 0)
            last = from.median_ms[f];
        size_t faster = 0;
        for (size_t i = 0; f >= 0 && i < from.configs.nconfigs; i++)
            faster += from.status[i] == CUTUNE_STATUS_OK && from.median_ms[i] < from.median_ms[f];
        CHECK_MSG(faster <= (size_t)k, "start config %ld has %zu faster configs", k, faster);
    }
    cutune_error_clear(&e);
    CHECK(cutune_recording_best_of(&other, &to, 4, idx, &e) == CUTUNE_ERR_INVALID);
    CHECK_STR_CONTAINS(e.msg, "has no parameter");
    cutune_recording_free(&from);
    cutune_recording_free(&to);
    cutune_recording_free(&other);
}

static void choosing(void)
{
    char why[512];
    CHECK(strcmp(cutune_strategy_choose("random", 10, 0, 100, why, sizeof why), "random") == 0);
    CHECK(why[0] == '\0');
    CHECK(strcmp(cutune_strategy_choose(NULL, 0, 0, 100, why, sizeof why), "exhaustive") == 0);
    CHECK(strcmp(cutune_strategy_choose(NULL, 100, 0, 100, why, sizeof why), "exhaustive") == 0);
    CHECK(why[0] == '\0');
    const char *s = cutune_strategy_choose(NULL, 99, 0, 100, why, sizeof why);
    CHECK(strcmp(s, cutune_strategy_default_search) == 0 && cutune_strategy_find(s));
    CHECK_STR_CONTAINS(why, "budget of 99 evaluations is less than the 100 valid configs");
    s = cutune_strategy_choose(NULL, 0, 60, 100, why, sizeof why);
    CHECK(strcmp(s, cutune_strategy_default_timed) == 0 && cutune_strategy_find(s));
    CHECK_STR_CONTAINS(why, "time limit");
}

int main(void)
{
    choosing();
    setvbuf(stdout, NULL, _IOLBF, 0);
    grid_neighbours();
    replay_catches_repeats();
    huge_sizes();
    pipeline();
    warm_start();
    best_of_other();
    load_from_db();
    landscape();
    recordings();
    return check_result("search");
}
