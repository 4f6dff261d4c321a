/* The methodology score (see score.h). The arithmetic follows the reference implementation
 * step by step (Python floats are C doubles, and Python's round() rounds half to even, as
 * rint() does in the default rounding mode), so that the two agree to rounding. */
#include "score.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void cutune_score_space_free(CutuneScoreSpace *s)
{
    free(s->desc);
    memset(s, 0, sizeof *s);
}

/* The evaluation count of the cutoff at p: how many random draws are expected to reach a
 * time of opt + (median - opt)(1 - p). */
static size_t cutoff(const CutuneScoreSpace *s, double p)
{
    double target = s->opt + (s->median - s->opt) * (1 - p);
    size_t i = 0; /* configs slower than the target: desc ends at opt <= target */
    while (i < s->n && s->desc[i] > target)
        i++;
    return (size_t)ceil((double)i / (double)(s->n + 1 - i));
}

int cutune_score_space(const CutuneRecording *r, CutuneScoreSpace *s, CutuneError *err)
{
    memset(s, 0, sizeof *s);
    if (r->nmissing)
        return cutune_error(err, CUTUNE_ERR_INVALID,
                            "%s is not an exhaustive recording: %zu of the %zu configs of its "
                            "space were not measured, so its optimum and the random baseline are "
                            "unknown; the score needs every config (record with "
                            "--strategy exhaustive, or replay with --no-space to take the "
                            "recorded configs as the space)",
                            r->source, r->nmissing, r->configs.nconfigs);
    if (r->nok < 2)
        return cutune_error(err, CUTUNE_ERR_INVALID,
                            "%s has %zu valid (ok) config%s: the score compares a search with "
                            "random search over the valid configs, and needs at least 2",
                            r->source, r->nok, r->nok == 1 ? "" : "s");
    if (!(s->desc = cutune_malloc_array(r->nok, sizeof *s->desc)))
        return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < r->configs.nconfigs; i++)
        if (r->status[i] == CUTUNE_STATUS_OK && r->median_ms[i] > 0 && s->n < r->nok)
            s->desc[s->n++] = r->median_ms[i];
    qsort(s->desc, s->n, sizeof *s->desc, cutune_cmp_double);
    size_t n = s->n, m = n / 2;
    s->opt = s->desc[0];
    s->median = n % 2 ? s->desc[m] : 0.5 * (s->desc[m - 1] + s->desc[m]);
    for (size_t i = 0; i < n / 2; i++) { /* slowest first */
        double t = s->desc[i];
        s->desc[i] = s->desc[n - 1 - i];
        s->desc[n - 1 - i] = t;
    }
    s->first = cutoff(s, CUTUNE_SCORE_P_START);
    s->last = cutoff(s, CUTUNE_SCORE_P_END);
    /* budgets from max(1, first) to max(last, first + 1), evenly spaced, rounded, each once */
    size_t a = s->first > 1 ? s->first : 1, b = s->last > s->first ? s->last : s->first + 1;
    for (size_t k = 0; k < CUTUNE_SCORE_POINTS; k++) {
        double x = (double)a + (double)((b - a) * k) / (double)(CUTUNE_SCORE_POINTS - 1);
        size_t v = (size_t)rint(x);
        if (s->nbudgets == 0 || v > s->budgets[s->nbudgets - 1])
            s->budgets[s->nbudgets++] = v;
    }
    return 0;
}

double cutune_score_random(const CutuneScoreSpace *s, size_t m)
{
    double at = rint((double)m * (double)(s->n + 1) / (double)(m + 1));
    size_t i = at < (double)(s->n - 1) ? (size_t)at : s->n - 1;
    return s->desc[i];
}

void cutune_score_from(const CutuneScoreSpace *s, const double *found_ms, CutuneScore *out)
{
    memset(out, 0, sizeof *out);
    out->nbudgets = s->nbudgets;
    double sum = 0;
    size_t defined = 0;
    for (size_t k = 0; k < s->nbudgets; k++) {
        double R = cutune_score_random(s, s->budgets[k]), S = found_ms[k];
        out->budgets[k] = s->budgets[k];
        out->found_ms[k] = S;
        out->random_ms[k] = R;
        out->point[k] = R - s->opt > 0 ? (R - S) / (R - s->opt) : NAN;
        if (!isnan(out->point[k])) {
            sum += out->point[k];
            defined++;
        }
    }
    out->score = defined ? sum / (double)defined : NAN;
}

int cutune_replay_score(const CutuneStrategyOps *ops, const CutuneRecording *r,
                        const CutuneScoreSpace *s, uint64_t seed0, size_t nseeds, size_t window,
                        const size_t *start, size_t nstart, CutuneScore *out, CutuneError *err)
{
    if (nseeds == 0)
        return cutune_error(err, CUTUNE_ERR_INVALID, "the score needs at least one seed");
    double *t = cutune_malloc_array(nseeds, sizeof *t), found_ms[CUTUNE_SCORE_POINTS];
    if (!t)
        return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
    int rc = 0;
    for (size_t k = 0; k < s->nbudgets && !rc; k++) {
        for (size_t j = 0; j < nseeds && !rc; j++) {
            size_t np;
            double found;
            rc = cutune_replay_once(ops, r, seed0 + j, s->budgets[k], window, start, nstart, &found,
                                    &np, NULL, NULL, err);
            t[j] = found > 0 ? found : s->desc[0]; /* none ok: the slowest ok time */
        }
        qsort(t, nseeds, sizeof *t, cutune_cmp_double);
        size_t m = nseeds / 2;
        found_ms[k] = nseeds % 2 ? t[m] : 0.5 * (t[m - 1] + t[m]);
    }
    if (!rc)
        cutune_score_from(s, found_ms, out);
    free(t);
    return rc;
}
