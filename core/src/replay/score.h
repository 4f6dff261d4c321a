/* The methodology score of Willemsen et al., "A methodology for comparing optimization
 * algorithms for auto-tuning" (FGCS 2024), over evaluation counts, as its reference
 * implementation (the AutoTuningAssociation's autotuning_methodology: baseline.py,
 * curves.py, report_experiments.py) computes it:
 *
 * - N is the number of ok configs of the recording; desc their times, slowest first; opt
 *   the fastest.
 * - The baseline R(M) is random search without replacement, calculated:
 *   desc[round(M (N + 1) / (M + 1))] (round half to even, as Python's round()).
 * - The range of budgets runs from the p = 0.5 cutoff to the p = 0.96 one. A cutoff's value
 *   is opt + (median - opt)(1 - p); its evaluation count is ceil(i / (N + 1 - i)), where i
 *   is the number of configs slower than that value.
 * - The range is sampled at 12 evenly spaced budgets (rounded, each once). At each budget
 *   M, S(M) is the median over seeds of the best time a replay with budget M found (the
 *   slowest ok time where it found none), and score(M) = (R(M) - S(M)) / (R(M) - opt):
 *   0 is as good as calculated random search, 1 is the optimum, below 0 worse than random.
 *   A budget where R(M) is the optimum already says nothing and is left out.
 * - The score is the mean of score(M) over the budgets. */
#ifndef CUTUNE_REPLAY_SCORE_H
#define CUTUNE_REPLAY_SCORE_H

#include <stddef.h>
#include <stdint.h>

#include "replay.h"

enum { CUTUNE_SCORE_POINTS = 12 };
#define CUTUNE_SCORE_P_START 0.5
#define CUTUNE_SCORE_P_END 0.96

/* A recording's side of the score: its ok times and the budgets to replay at. */
typedef struct CutuneScoreSpace {
    double *desc; /* the ok times, slowest first */
    size_t n;     /* how many */
    double opt, median;
    size_t first, last; /* the evaluation counts of the p = 0.5 and p = 0.96 cutoffs */
    size_t budgets[CUTUNE_SCORE_POINTS], nbudgets; /* increasing */
} CutuneScoreSpace;

/* The score's budgets for a recording. Fails (CUTUNE_ERR_INVALID, with a message naming the
 * file) when it has fewer than 2 ok configs or when some config of its space was not
 * recorded (the optimum and the baseline are then unknown). */
int cutune_score_space(const CutuneRecording *r, CutuneScoreSpace *s, CutuneError *err);
void cutune_score_space_free(CutuneScoreSpace *s);

/* R(M): the time calculated random search is expected to reach within m draws. */
double cutune_score_random(const CutuneScoreSpace *s, size_t m);

/* A strategy's score on that space. */
typedef struct CutuneScore {
    double score; /* the mean of point[] over the budgets where it is defined; NaN if none */
    size_t nbudgets;
    size_t budgets[CUTUNE_SCORE_POINTS];
    double found_ms[CUTUNE_SCORE_POINTS];  /* S(M) */
    double random_ms[CUTUNE_SCORE_POINTS]; /* R(M) */
    double point[CUTUNE_SCORE_POINTS];     /* score(M); NaN where R(M) is the optimum */
} CutuneScore;

/* The score from S(M) at the space's budgets (found_ms[k] for s->budgets[k]). */
void cutune_score_from(const CutuneScoreSpace *s, const double *found_ms, CutuneScore *out);

/* Replay ops at each of the space's budgets with seeds seed0 .. seed0 + nseeds - 1 (as
 * cutune_replay_stats does, the same window and warm start), and score it. */
int cutune_replay_score(const CutuneStrategyOps *ops, const CutuneRecording *r,
                        const CutuneScoreSpace *s, uint64_t seed0, size_t nseeds, size_t window,
                        const size_t *start, size_t nstart, CutuneScore *out, CutuneError *err);

#endif
