/* The additive ridge model (see model.h). */
#include "model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MODEL_RIDGE 1.0
/* The response is clipped at this quantile of the ok log-times (model.h says why). Replays
 * of the foreign recordings (bench/results/replay/search-eval-2026-11-26-clip.md) found
 * 0.25, 0.5 and 0.75 alike, and all of them better than no clip at 50 to 200 evaluations:
 * the median is the plain choice. */
#define MODEL_CLIP_QUANTILE 0.5

int search_model_init(SearchModel *m, const SearchGrid *g)
{
    memset(m, 0, sizeof *m);
    m->g = g;
    m->off = malloc((g->nparams + 1) * sizeof *m->off);
    if (!m->off)
        return CUTUNE_ERR_NOMEM;
    for (size_t j = 0; j < g->nparams; j++) {
        m->off[j] = m->d;
        m->d += g->nlevels[j];
    }
    m->off[g->nparams] = m->d;
    size_t d = m->d ? m->d : 1;
    m->ata = calloc(d * d, sizeof *m->ata);
    m->chol = malloc(d * d * sizeof *m->chol);
    m->obs = malloc((g->n + 1) * sizeof *m->obs);
    m->obs_t = malloc((g->n + 1) * sizeof *m->obs_t);
    m->ok_t = malloc((g->n + 1) * sizeof *m->ok_t);
    m->w = calloc(d, sizeof *m->w);
    m->rhs = malloc(d * sizeof *m->rhs);
    if (!m->ata || !m->chol || !m->obs || !m->obs_t || !m->ok_t || !m->w || !m->rhs) {
        search_model_free(m);
        return CUTUNE_ERR_NOMEM;
    }
    return 0;
}

void search_model_free(SearchModel *m)
{
    free(m->off);
    free(m->ata);
    free(m->chol);
    free(m->obs);
    free(m->obs_t);
    free(m->ok_t);
    free(m->w);
    free(m->rhs);
    memset(m, 0, sizeof *m);
}

void search_model_add(SearchModel *m, size_t i, double cost)
{
    const SearchGrid *g = m->g;
    size_t p = g->nparams, d = m->d, u[SEARCH_MAX_PARAMS];
    if (m->nobs > g->n) /* room for each config once (and one more) */
        return;
    for (size_t j = 0; j < p; j++)
        u[j] = m->off[j] + g->level[i * p + j];
    for (size_t a = 0; a < p; a++)
        for (size_t b = 0; b < p; b++)
            m->ata[u[a] * d + u[b]] += 1;
    double t = isfinite(cost) && cost > 0 ? log(cost) : INFINITY;
    m->obs[m->nobs] = i;
    m->obs_t[m->nobs++] = t;
    if (isfinite(t)) { /* insertion into the sorted ok log-times */
        size_t k = m->nok++;
        for (; k > 0 && m->ok_t[k - 1] > t; k--)
            m->ok_t[k] = m->ok_t[k - 1];
        m->ok_t[k] = t;
    }
}

int search_model_fit(SearchModel *m)
{
    const SearchGrid *g = m->g;
    size_t d = m->d, p = g->nparams;
    if (m->nok < 2)
        return -1;
    /* the clipped responses, centred: failures (+inf) clip to the cap too */
    double cap = m->ok_t[(size_t)(MODEL_CLIP_QUANTILE * (double)(m->nok - 1))], mean = 0;
    for (size_t o = 0; o < m->nobs; o++)
        mean += fmin(m->obs_t[o], cap);
    mean /= (double)m->nobs;
    memset(m->rhs, 0, d * sizeof *m->rhs);
    for (size_t o = 0; o < m->nobs; o++) {
        double y = fmin(m->obs_t[o], cap) - mean;
        for (size_t j = 0; j < p; j++)
            m->rhs[m->off[j] + g->level[m->obs[o] * p + j]] += y;
    }
    double *c = m->chol;
    for (size_t a = 0; a < d; a++)
        for (size_t b = 0; b < d; b++)
            c[a * d + b] = m->ata[a * d + b] + (a == b ? MODEL_RIDGE : 0);
    /* Cholesky, in place (lower triangle); the ridge keeps it positive definite */
    for (size_t j = 0; j < d; j++) {
        double s = c[j * d + j];
        for (size_t k = 0; k < j; k++)
            s -= c[j * d + k] * c[j * d + k];
        if (!(s > 0))
            return -1;
        double l = sqrt(s);
        c[j * d + j] = l;
        for (size_t i = j + 1; i < d; i++) {
            double v = c[i * d + j];
            for (size_t k = 0; k < j; k++)
                v -= c[i * d + k] * c[j * d + k];
            c[i * d + j] = v / l;
        }
    }
    for (size_t i = 0; i < d; i++) { /* forward */
        double v = m->rhs[i];
        for (size_t k = 0; k < i; k++)
            v -= c[i * d + k] * m->w[k];
        m->w[i] = v / c[i * d + i];
    }
    for (size_t i = d; i-- > 0;) { /* back */
        double v = m->w[i];
        for (size_t k = i + 1; k < d; k++)
            v -= c[k * d + i] * m->w[k];
        m->w[i] = v / c[i * d + i];
    }
    m->fitted = 1;
    return 0;
}

double search_model_predict(const SearchModel *m, size_t i)
{
    const SearchGrid *g = m->g;
    size_t p = g->nparams;
    double s = 0;
    for (size_t j = 0; j < p; j++)
        s += m->w[m->off[j] + g->level[i * p + j]];
    return s;
}
