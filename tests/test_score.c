/* The methodology score of `cutune replay --score` (core/src/replay/score.h), on a small
 * recording whose every figure is worked out by hand below. Needs no GPU.
 *
 * The recording: parameter X = 10..21 (the configs in that order), X = 11 and X = 18 failed,
 * the others ok with the times 1..10 ms:
 *
 *     X    10 11 12 13 14 15 16 17 18 19 20 21
 *     ms    4  -  2  7  1  3  5  6  -  8  9 10
 *
 * N = 10 ok configs, desc = 10, 9, ..., 1, opt = 1, median = 5.5.
 * - p = 0.5: cutoff 1 + 4.5 * 0.5 = 3.25; 7 configs are slower (4..10); ceil(7 / 4) = 2.
 * - p = 0.96: cutoff 1 + 4.5 * 0.04 = 1.18; 9 are slower; ceil(9 / 2) = 5.
 * - Budgets: 2 + 3k/11 for k = 0..11, rounded: 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5 = {2, 3, 4, 5}.
 * - R(M) = desc[round(11M / (M + 1))]: R(2) = desc[7] = 3, R(3) = desc[8] = 2, R(4) = desc[9]
 *   = 1 and R(5) = desc[9] = 1: the last two are the optimum, and left out. */
#include "check.h"
#include "replay.h"
#include "score.h"
#include "strategy.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A strategy for the test: from config seed mod n on, in order. */
typedef struct Walk {
    size_t at, n;
} Walk;

static int walk_create(const CutuneStrategyArgs *a, void **st)
{
    Walk *w = malloc(sizeof *w);
    if (!w)
        return CUTUNE_ERR_NOMEM;
    w->n = a->configs->nconfigs;
    w->at = (size_t)(a->seed % w->n);
    *st = w;
    return 0;
}

static int walk_next(void *st, size_t *index)
{
    Walk *w = st;
    *index = w->at++ % w->n;
    return CUTUNE_NEXT_READY;
}

static void walk_feedback(void *st, size_t i, CutuneStatus s, double ms)
{
    (void)st, (void)i, (void)s, (void)ms;
}

static const CutuneStrategyOps walk = {"walk",    "a test walk", walk_create,
                                       walk_next, walk_feedback, free};

static int load(const char *text, CutuneRecording *r)
{
    char path[] = "/tmp/cutune-test-score-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
    CutuneError e = {0};
    int rc = cutune_recording_load(path, NULL, NULL, NULL, NULL, r, &e);
    CHECK_MSG(rc == 0, "%s", e.msg);
    unlink(path);
    return rc;
}

static const char hand[] = "# cutune recording\n# device: test\n# variant: t\n# size: 1\n"
                           "X,status,median_ms\n"
                           "10,ok,4\n11,compile_error,\n12,ok,2\n13,ok,7\n14,ok,1\n15,ok,3\n"
                           "16,ok,5\n17,ok,6\n18,wrong_result,\n19,ok,8\n20,ok,9\n21,ok,10\n";

static void by_hand(void)
{
    CutuneRecording r;
    if (load(hand, &r))
        return;
    CutuneScoreSpace s;
    CutuneError e = {0};
    CHECK_EQ_INT(cutune_score_space(&r, &s, &e), 0);
    CHECK(s.n == 10 && s.opt == 1 && s.median == 5.5 && s.desc[0] == 10 && s.desc[9] == 1);
    CHECK(s.first == 2 && s.last == 5);
    CHECK_MSG(s.nbudgets == 4 && s.budgets[0] == 2 && s.budgets[1] == 3 && s.budgets[2] == 4 &&
                  s.budgets[3] == 5,
              "%zu budgets: %zu %zu ...", s.nbudgets, s.budgets[0], s.budgets[1]);
    CHECK(cutune_score_random(&s, 2) == 3 && cutune_score_random(&s, 3) == 2 &&
          cutune_score_random(&s, 4) == 1 && cutune_score_random(&s, 5) == 1);

    /* exhaustive proposes X = 10, 11, 12, ... whatever the seed: S(2) = 4 (X = 11 failed,
     * and costs its evaluation), S(3) = 2; score (3 - 4) / 2 = -0.5 and (2 - 2) / 1 = 0 */
    CutuneScore x;
    CHECK_EQ_INT(cutune_replay_score(&cutune_strategy_exhaustive, &r, &s, 1, 3, 1, NULL, 0, &x, &e),
                 0);
    CHECK_MSG(x.nbudgets == 4 && x.found_ms[0] == 4 && x.found_ms[1] == 2, "S = %g, %g",
              x.found_ms[0], x.found_ms[1]);
    CHECK_MSG(x.point[0] == -0.5 && x.point[1] == 0 && isnan(x.point[2]) && isnan(x.point[3]),
              "score(M) = %g %g %g %g", x.point[0], x.point[1], x.point[2], x.point[3]);
    CHECK_MSG(x.score == -0.25, "score %g, want -0.25", x.score);

    /* the walk from seed mod 12: at budget 2, seed 1 finds 2 (X = 11, 12), seed 2 finds 2
     * (12, 13), seed 3 finds 1 (13, 14): S(2) = 2, score 0.5; at 3, 2 (11-13), 1, 1: S(3) = 1,
     * score 1; the score is 0.75 */
    CHECK_EQ_INT(cutune_replay_score(&walk, &r, &s, 1, 3, 1, NULL, 0, &x, &e), 0);
    CHECK_MSG(x.point[0] == 0.5 && x.point[1] == 1 && x.score == 0.75, "%g %g: %g", x.point[0],
              x.point[1], x.score);
    /* a fourth seed (X = 14, 15, ...: 1) makes the median of an even count the mean of the
     * middle two: S(2) = median(1, 1, 2, 2) = 1.5, score 0.75; S(3) = 1; the score 0.875 */
    CHECK_EQ_INT(cutune_replay_score(&walk, &r, &s, 1, 4, 1, NULL, 0, &x, &e), 0);
    CHECK_MSG(x.found_ms[0] == 1.5 && x.score == 0.875, "S(2) = %g: %g", x.found_ms[0], x.score);
    /* seed 8 starts on X = 18 (failed), then X = 19 (8): worse than random, (3 - 8) / 2 */
    CHECK_EQ_INT(cutune_replay_score(&walk, &r, &s, 8, 1, 1, NULL, 0, &x, &e), 0);
    CHECK_MSG(x.found_ms[0] == 8 && x.point[0] == -2.5, "S(2) = %g: %g", x.found_ms[0], x.point[0]);
    cutune_score_space_free(&s);

    /* a search that finds nothing ok within the budget is charged the slowest ok time */
    CutuneScoreSpace one;
    CHECK_EQ_INT(cutune_score_space(&r, &one, &e), 0);
    one.budgets[0] = 1; /* only X = 11 (failed), from seed 1 */
    one.nbudgets = 1;
    CHECK_EQ_INT(cutune_replay_score(&walk, &r, &one, 1, 1, 1, NULL, 0, &x, &e), 0);
    CHECK_MSG(x.found_ms[0] == 10, "nothing found counts as %g, want 10", x.found_ms[0]);
    cutune_score_space_free(&one);
    cutune_recording_free(&r);
}

/* round() in the baseline is Python's, half to even: with N = 4, R(1) = desc[round(2.5)] =
 * desc[2], where C's round() gives desc[3]; with N = 6, round(3.5) is 4 either way. */
static void half_to_even(void)
{
    double d4[] = {4, 3, 2, 1}, d6[] = {6, 5, 4, 3, 2, 1};
    CutuneScoreSpace s = {.desc = d4, .n = 4, .opt = 1};
    CHECK_MSG(cutune_score_random(&s, 1) == 2, "R(1) = %g over 4, want 2",
              cutune_score_random(&s, 1));
    s.desc = d6;
    s.n = 6;
    CHECK_MSG(cutune_score_random(&s, 1) == 2, "R(1) = %g over 6, want 2",
              cutune_score_random(&s, 1));
}

/* What the score refuses: fewer than 2 ok configs, and a recording that misses configs of
 * its space (no optimum known). */
static void refused(void)
{
    CutuneRecording r;
    if (load("# cutune recording\n# variant: t\n# size: 1\nX,status,median_ms\n"
             "1,ok,3\n2,compile_error,\n3,wrong_result,\n",
             &r))
        return;
    CutuneScoreSpace s;
    CutuneError e = {0};
    CHECK_EQ_INT(cutune_score_space(&r, &s, &e), CUTUNE_ERR_INVALID);
    CHECK_STR_CONTAINS(e.msg, "has 1 valid (ok) config:");
    cutune_recording_free(&r);
    if (load(hand, &r))
        return;
    r.status[3] = CUTUNE_REPLAY_MISSING; /* as a space config that the recording lacks */
    r.nmissing = 1;
    memset(&e, 0, sizeof e);
    CHECK_EQ_INT(cutune_score_space(&r, &s, &e), CUTUNE_ERR_INVALID);
    CHECK_STR_CONTAINS(e.msg, "is not an exhaustive recording: 1 of the 12 configs");
    cutune_recording_free(&r);
}

int main(void)
{
    by_hand();
    half_to_even();
    refused();
    return check_result("score");
}
