/* The additive ridge model (see model.h). */
#include "model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MODEL_RIDGE 1.0
#define MODEL_FAIL_PENALTY 0.7 /* a failure counts as the slowest ok time times e^0.7 */

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
    m->xt_ok = calloc(d, sizeof *m->xt_ok);
    m->x_fail = calloc(d, sizeof *m->x_fail);
    m->x_all = calloc(d, sizeof *m->x_all);
    m->w = calloc(d, sizeof *m->w);
    m->rhs = malloc(d * sizeof *m->rhs);
    if (!m->ata || !m->chol || !m->xt_ok || !m->x_fail || !m->x_all || !m->w || !m->rhs) {
        search_model_free(m);
        return CUTUNE_ERR_NOMEM;
    }
    m->max_t = -INFINITY;
    return 0;
}

void search_model_free(SearchModel *m)
{
    free(m->off);
    free(m->ata);
    free(m->chol);
    free(m->xt_ok);
    free(m->x_fail);
    free(m->x_all);
    free(m->w);
    free(m->rhs);
    memset(m, 0, sizeof *m);
}

void search_model_add(SearchModel *m, size_t i, double cost)
{
    const SearchGrid *g = m->g;
    size_t p = g->nparams, d = m->d, u[SEARCH_MAX_PARAMS];
    for (size_t j = 0; j < p; j++)
        u[j] = m->off[j] + g->level[i * p + j];
    for (size_t a = 0; a < p; a++)
        for (size_t b = 0; b < p; b++)
            m->ata[u[a] * d + u[b]] += 1;
    int ok = isfinite(cost) && cost > 0;
    double t = ok ? log(cost) : 0;
    for (size_t j = 0; j < p; j++) {
        m->x_all[u[j]] += 1;
        if (ok)
            m->xt_ok[u[j]] += t;
        else
            m->x_fail[u[j]] += 1;
    }
    if (ok) {
        m->nok++;
        m->sum_t += t;
        if (t > m->max_t)
            m->max_t = t;
    } else {
        m->nfail++;
    }
}

int search_model_fit(SearchModel *m)
{
    size_t d = m->d, n = m->nok + m->nfail;
    if (m->nok < 2)
        return -1;
    double tf = m->max_t + MODEL_FAIL_PENALTY;
    double mean = (m->sum_t + (double)m->nfail * tf) / (double)n;
    double *c = m->chol;
    for (size_t a = 0; a < d; a++) {
        m->rhs[a] = m->xt_ok[a] + m->x_fail[a] * tf - mean * m->x_all[a];
        for (size_t b = 0; b < d; b++)
            c[a * d + b] = m->ata[a * d + b] + (a == b ? MODEL_RIDGE : 0);
    }
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
