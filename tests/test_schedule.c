/* How a run spends its budget (core/src/tuning/schedule.c), finding configs by their values
 * (config_index.c) and the shipped known-good lists (known.c): no GPU needed. */
#include "check.h"
#include "registry.h"
#include "schedule.h"
#include "space.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int near(double a, double b)
{
    return fabs(a - b) <= 1e-9 * fmax(1, fabs(b));
}

/* Evaluations of a bigger problem cost more; compiles dominate only tiny problems. */
static void cost_model(void)
{
    CutuneCostModel m;
    cutune_cost_init(&m, 16);
    double small = cutune_cost_eval_s(&m, 2e9, 0, 0), big = cutune_cost_eval_s(&m, 1.1e12, 0, 0);
    CHECK_MSG(big > 10 * small, "8192^3 %.3f s against 1000^3 %.3f s", big, small);
    double cold = cutune_cost_eval_s(&m, 2e3, 0, 1), warm = cutune_cost_eval_s(&m, 2e3, 0, 0);
    CHECK_MSG(cold > warm, "a cold compile costs nothing: %.4f against %.4f", cold, warm);
    /* a faster config raises the rate, so the same work is expected to take less */
    double before = cutune_cost_eval_s(&m, 1.1e12, 0, 0);
    cutune_cost_observe(&m, 0, 500, 20, 1.1e12, 0); /* 55 TFLOP/s, 25 launch-times */
    CHECK_MSG(m.flop_rate > 5e13, "rate %.3g", m.flop_rate);
    CHECK(cutune_cost_eval_s(&m, 1.1e12, 0, 0) < before);
    /* compile times are learned from cache misses only */
    double c0 = m.compile_s;
    cutune_cost_observe(&m, 0, 10, 0.05, 2e9, 0);
    CHECK(near(m.compile_s, c0));
    cutune_cost_observe(&m, 2000, 10, 0.05, 2e9, 0);
    CHECK(m.compile_s > c0);
    /* bandwidth-bound work is timed by its bytes */
    CHECK(cutune_cost_eval_s(&m, 0, 4e9, 0) > cutune_cost_eval_s(&m, 0, 4e6, 0));
}

static void size_shares(void)
{
    /* no deadline: no limit */
    CHECK(cutune_schedule_size_share(0, 1, 1, 3, 3) == 0);
    /* one of three equal sizes gets a third, on one lane */
    CHECK(near(cutune_schedule_size_share(600, 1, 1, 3, 3), 200));
    /* a size that costs twice as much an evaluation gets twice the time of each other one */
    CHECK(near(cutune_schedule_size_share(400, 1, 2, 4, 3), 200));
    /* two lanes: each size may take twice as long, but never past the run's end */
    CHECK(near(cutune_schedule_size_share(600, 2, 1, 3, 3), 400));
    CHECK(near(cutune_schedule_size_share(600, 8, 1, 3, 3), 600));
    /* the last size takes what is left */
    CHECK(near(cutune_schedule_size_share(123, 1, 5, 5, 1), 123));
    /* a size whose launches cost almost nothing still gets half an equal split, for its
     * warm start's compiles: 1000^3 before 8192^3 */
    CHECK(near(cutune_schedule_size_share(600, 1, 0.025, 1.6, 7), 0.5 * 600 / 7));
}

/* Several GPUs judge a size's share as one GPU would: the budget less what the others hold,
 * split over the sizes not judged yet, those running without a share among them. */
static void judged_shares(void)
{
    /* four GPUs take their first sizes of eight at once: each of those gets what one GPU
     * gives its first size, a cost-weighted part of the whole budget (the running ones
     * without a share counted, as one GPU counts the sizes after its first) */
    CutuneJudgedSize s[8];
    for (int i = 0; i < 8; i++)
        s[i] = (CutuneJudgedSize){.cost = i < 2 ? 4 : 1, .open = 1};
    double total = 2 * 4 + 6 * 1;
    CHECK(near(cutune_schedule_judge(s, 8, 0, 600), 600 * 4 / total));
    CHECK(near(cutune_schedule_judge(s, 8, 3, 600), 600 * 1 / total));
    /* one judged (it holds 150 s), one done (it took 40 s): the rest split over the others */
    s[0] = (CutuneJudgedSize){.cost = 4, .taken = 150};
    s[2] = (CutuneJudgedSize){.cost = 1, .taken = 40};
    CHECK(near(cutune_schedule_judge(s, 8, 1, 600), 410 * 4 / (4 + 5.0)));
    /* a size tuned before costs nothing and is no open size */
    s[7] = (CutuneJudgedSize){.cost = 0, .open = 1};
    CHECK(near(cutune_schedule_judge(s, 8, 1, 600), 410 * 4 / (4 + 4.0)));
    /* nothing of the budget left */
    s[0].taken = 600;
    CHECK(cutune_schedule_judge(s, 8, 1, 600) == -1);
}

/* A search ends after 1.2 pipeline windows without a gain, at least 50 measurements; a
 * variant behind the leader (promise under 1) after a quarter of that, at least 25. */
static void patience(void)
{
    CHECK_EQ_INT(cutune_schedule_patience(18, 1), 50);
    CHECK_EQ_INT(cutune_schedule_patience(10, 1), 50);
    CHECK_EQ_INT(cutune_schedule_patience(66, 1), 79);
    CHECK_EQ_INT(cutune_schedule_patience(130, 1), 156);
    CHECK_EQ_INT(cutune_schedule_patience(18, 0.25), 25);
    CHECK_EQ_INT(cutune_schedule_patience(130, 0.25), 39);
    CHECK_EQ_INT(cutune_schedule_patience(1, 0), 25);
    /* a whole search is late once its rest, at its rate, needs over twice its time left */
    CHECK(!cutune_schedule_late(35, 3.5, 1000, 1, 18));    /* under 2 windows: no rate yet */
    CHECK(cutune_schedule_late(36, 3.6, 110000, 500, 18)); /* 11000 s for 500: late */
    CHECK(!cutune_schedule_late(36, 3.6, 9000, 500, 18));  /* 900 s for 500: within 2x */
    CHECK(cutune_schedule_late(36, 3.6, 10100, 500, 18));  /* 1010 s for 500 */
    CHECK(!cutune_schedule_late(100, 0, 1000, 1, 18));     /* no time elapsed: no rate */
    CHECK(cutune_schedule_late(100, 10, 1, -1, 18));       /* past its deadline */
    CHECK(!cutune_schedule_late(100, 10, 0, 0, 18));       /* nothing left */
    /* a late phase takes up the search's patience where it has none or a longer one */
    CHECK(cutune_schedule_takes_late(0, 198));
    CHECK(cutune_schedule_takes_late(27626, 198)); /* a whole space's quarter */
    CHECK(!cutune_schedule_takes_late(198, 198));  /* once taken, once */
    CHECK(!cutune_schedule_takes_late(100, 198));
    CHECK(!cutune_schedule_takes_late(0, 0)); /* a strategy the user named */
}

static void promises(void)
{
    CHECK(cutune_schedule_promise(1.0, 1.0, 10) == 1);
    CHECK(cutune_schedule_promise(1.04, 1.0, 10) == 1);
    CHECK(cutune_schedule_promise(1.12, 1.0, 10) == 0.25);
    CHECK(cutune_schedule_promise(1.5, 1.0, 10) == 0);
    /* naive next to a tiled config 5x faster: it cannot win, it keeps its best */
    CHECK(cutune_schedule_promise(5.0, 1.0, 72) == 0);
    /* nothing left to measure, nothing to win */
    CHECK(cutune_schedule_promise(1.0, 1.0, 0) == 0);
    /* no verified config yet: a little, while configs are left */
    CHECK(cutune_schedule_promise(0, 1.0, 10) == 0.25);
}

/* a warm start past its first configs: on within 1.6x of the size's best after 4 of them,
 * within 1.5x after 8, or with nothing verified yet on either side */
static void warm_on(void)
{
    CHECK(cutune_schedule_warm_on(1.0, 1.0, CUTUNE_WARM_SHOWN));
    CHECK(cutune_schedule_warm_on(1.45, 1.0, CUTUNE_WARM_SHOWN));
    CHECK(!cutune_schedule_warm_on(1.55, 1.0, CUTUNE_WARM_SHOWN));
    CHECK(cutune_schedule_warm_on(1.55, 1.0, CUTUNE_WARM_EARLY));
    CHECK(!cutune_schedule_warm_on(1.66, 1.0, CUTUNE_WARM_EARLY));
    CHECK(!cutune_schedule_warm_on(5.0, 1.0, CUTUNE_WARM_SHOWN));
    CHECK(cutune_schedule_warm_on(0, 1.0, CUTUNE_WARM_EARLY));
    CHECK(cutune_schedule_warm_on(3.0, 0, CUTUNE_WARM_SHOWN));
}

static void splits(void)
{
    double share[4];
    /* a small space that fits is measured whole; the big search gets the rest */
    double need[] = {5, 1000, 300, 50}, promise[] = {1, 1, 0, 0.25};
    cutune_schedule_split(need, promise, 4, 100, share);
    CHECK_MSG(near(share[0], 5), "small space %.2f", share[0]);
    CHECK_MSG(share[2] == 0, "hopeless variant got %.2f", share[2]);
    CHECK_MSG(share[1] > 4 * share[3] - 1e-9 && share[3] > 0, "shares %.2f %.2f", share[1],
              share[3]);
    CHECK_MSG(near(share[0] + share[1] + share[2] + share[3], 100), "sum %.2f",
              share[0] + share[1] + share[2] + share[3]);
    /* when everything fits, everyone gets their need and time is left over */
    double need2[] = {10, 20}, promise2[] = {1, 0.25};
    cutune_schedule_split(need2, promise2, 2, 100, share);
    CHECK(near(share[0], 10) && near(share[1], 20));
    /* nobody can win: nothing is spent */
    double need3[] = {10, 20}, promise3[] = {0, 0};
    cutune_schedule_split(need3, promise3, 2, 100, share);
    CHECK(share[0] == 0 && share[1] == 0);
}

/* Only a leader's space (or one tied with it within 1%) is measured whole, and only where it
 * fits its share. */
static void whole(void)
{
    CHECK(cutune_schedule_whole(10, 20, 1.0, 1.0));
    CHECK(cutune_schedule_whole(10, 20, 1.0, 0)); /* the size has no best yet */
    CHECK(cutune_schedule_whole(10, 20, 1.009, 1.0));
    CHECK(!cutune_schedule_whole(30, 20, 1.0, 1.0));
    /* a trailing variant is searched even where its space fits: 1.13x and 1.035x behind
     * (schedule.h), though 1.035x still has the full search patience (promise 1) */
    CHECK(!cutune_schedule_whole(10, 20, 1.13, 1.0));
    CHECK(!cutune_schedule_whole(10, 20, 1.035, 1.0));
    CHECK(cutune_schedule_promise(1.035, 1.0, 1000) >= 1);
    /* a variant with nothing measured yet has no claim */
    CHECK(!cutune_schedule_whole(10, 20, 0, 1.0));
    CHECK(!cutune_schedule_whole(10, 20, 0, 0));
}

/* A whole space ends after a sixteenth of it, at least a search's patience, without a gain. */
static void whole_patience(void)
{
    CHECK(cutune_schedule_whole_patience(50, 820) == 51);
    CHECK(cutune_schedule_whole_patience(54, 820) == 54);
    CHECK(cutune_schedule_whole_patience(250, 820) == 250);
    CHECK(cutune_schedule_whole_patience(54, 2124) == 132);
    /* a space no larger than the patience is measured to its end */
    CHECK(cutune_schedule_whole_patience(100, 32) >= 32);
    CHECK(cutune_schedule_whole_patience(100, 400) >= 100);
}

/* Past its part of the threads a lane proposes only while a compile thread is idle. */
static void may_propose(void)
{
    CHECK(cutune_schedule_may_propose(5, 18, 66, 64, 64));   /* within its part */
    CHECK(!cutune_schedule_may_propose(18, 18, 66, 64, 64)); /* past it, every thread busy */
    CHECK(cutune_schedule_may_propose(18, 18, 66, 40, 64));  /* past it, threads idle */
    CHECK(!cutune_schedule_may_propose(66, 18, 66, 0, 64));  /* never past the window */
    CHECK(!cutune_schedule_may_propose(66, 66, 66, 0, 64));
}

/* Lanes searching at once share the compile threads; a lane alone has the whole window. */
static void lane_windows(void)
{
    CHECK(cutune_schedule_lane_window(66, 1) == 66);
    CHECK(cutune_schedule_lane_window(66, 0) == 66);
    CHECK(cutune_schedule_lane_window(66, 4) == 18);
    CHECK(cutune_schedule_lane_window(66, 2) == 34);
    /* never below 2 in flight (one measured while the next compiles), never above the window */
    CHECK(cutune_schedule_lane_window(4, 8) == 2);
    CHECK(cutune_schedule_lane_window(3, 1) == 3);
    size_t total = 0;
    for (int i = 0; i < 4; i++)
        total += cutune_schedule_lane_window(66, 4) - 2;
    CHECK(total <= 64); /* the lanes' compiles together fit the threads */
}

/* 10^5 configs: every row found by its values, a missing one not. */
static void config_index(void)
{
    enum { N = 100000, P = 5 };
    CutuneConfigList cl = {.nparams = P, .nconfigs = N};
    cl.values = malloc(sizeof(int64_t) * N * P);
    CHECK(cl.values != NULL);
    if (!cl.values)
        return;
    for (size_t r = 0; r < N; r++)
        for (size_t p = 0; p < P; p++)
            cl.values[r * P + p] = (int64_t)((r >> (4 * p)) & 15) * (p + 1);
    CutuneConfigIndex ix;
    CHECK(cutune_config_index_build(&cl, &ix) == 0);
    size_t wrong = 0;
    for (size_t r = 0; r < N; r++)
        wrong += cutune_config_index_find(&ix, cl.values + r * P) != (long)r;
    CHECK_EQ_INT(wrong, 0);
    int64_t absent[P] = {99, 0, 0, 0, 0};
    CHECK(cutune_config_index_find(&ix, absent) == -1);
    cutune_config_index_free(&ix);
    free(cl.values);
}

typedef struct {
    const CutuneSpace *sp;
    const CutuneConfigList *cl;
    const char *path;
    size_t lines, unmatched;
} KnownCheck;

static int known_line(const char *config, int line, void *user)
{
    KnownCheck *k = user;
    int64_t values[256];
    unsigned char named[256];
    CutuneError err = {0};
    k->lines++;
    if (k->sp->nparams > 256 || cutune_config_parse_partial(k->sp, config, values, named, &err)) {
        fprintf(stderr, "%s:%d: %s\n", k->path, line, err.msg);
        k->unmatched++;
        return 0;
    }
    for (size_t c = 0; c < k->cl->nconfigs; c++) {
        const int64_t *row = k->cl->values + c * k->cl->nparams;
        int match = 1;
        for (size_t i = 0; i < k->sp->nparams && match; i++)
            match = !named[i] || row[i] == values[i];
        if (match)
            return 0;
    }
    fprintf(stderr, "%s:%d: '%s' is no valid config of the space under sm_90 limits\n", k->path,
            line, config);
    k->unmatched++;
    return 0;
}

/* Every line of every shipped known-good list is a valid config of its space (the list is
 * found beside the variant's INI file, as the tuner finds it). */
static void shipped_known_lists(void)
{
    CutuneRegistry reg;
    CutuneError rerr = {0};
    CHECK_MSG(cutune_registry_load(&reg, &rerr) == 0, "%s", rerr.msg);
    size_t lists = 0;
    for (size_t i = 0; i < reg.nvariants; i++) {
        const CutuneVariantDef *p = reg.variants[i];
        if (!p->v && p->path) { /* a data variant: its INI */
            char known[PATH_MAX];
            const char *slash = strrchr(p->path, '/');
            snprintf(known, sizeof known, "%.*s/%s.known", slash ? (int)(slash - p->path) : 1,
                     slash ? p->path : ".", p->name);
            if (access(known, R_OK) != 0)
                continue;
            CutuneSpace *sp = NULL;
            CutuneError err = {0};
            CutuneLimits lim;
            cutune_limits_sm90(&lim);
            CutuneConfigList cl = {0};
            CHECK_MSG(cutune_variant_load_space(p, &sp, &err) == 0, "%s: %s", p->path, err.msg);
            if (!sp)
                continue;
            CHECK_MSG(cutune_space_enumerate(sp, &lim, NULL, &cl, &err) == 0, "%s", err.msg);
            KnownCheck k = {sp, &cl, known, 0, 0};
            CHECK_MSG(cutune_known_read(known, known_line, &k, &err) == 0, "%s", err.msg);
            CHECK_MSG(k.lines > 0 && k.unmatched == 0, "%s: %zu lines, %zu not valid", known,
                      k.lines, k.unmatched);
            lists++;
            cutune_config_list_free(&cl);
            cutune_space_free(sp);
        }
    }
    cutune_registry_free(&reg);
    CHECK_MSG(lists >= 6, "only %zu known-good lists beside the shipped variants", lists);
}

static int count_line(const char *config, int line, void *user)
{
    (void)config, (void)line;
    ++*(int *)user;
    return 0;
}

/* Comments, blank lines and trailing space are not configs; a missing list is empty. */
static void known_format(void)
{
    char path[] = "/tmp/cutune-known-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    FILE *f = fdopen(fd, "w");
    fputs("# a comment\n\nA=1,B=2   # the best at 1024\n  A=3\t\n#A=4\n", f);
    fclose(f);
    int n = 0;
    CHECK(cutune_known_read(path, count_line, &n, NULL) == 0);
    CHECK_EQ_INT(n, 2);
    unlink(path);
    n = 0;
    CHECK(cutune_known_read(path, count_line, &n, NULL) == 0 && n == 0);
}

int main(void)
{
    cost_model();
    size_shares();
    judged_shares();
    promises();
    warm_on();
    patience();
    splits();
    whole();
    lane_windows();
    may_propose();
    whole_patience();
    config_index();
    known_format();
    shipped_known_lists();
    return check_result("schedule");
}
