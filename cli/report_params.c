/* The parameters' section of `cutune report --html`: which parameters matter (the share of
 * the variance of the log times that the medians of their values explain) and each one's
 * effect, only where a value has enough ok configs to say something (report_html.h). */
#include "report_html.h"
#include "report_svg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LEVELS 64

/* The value text of parameter name in config ("A=1,B=2"), or NULL; *len its length. */
static const char *param_value(const char *config, const char *name, size_t *len)
{
    size_t nl = strlen(name);
    for (const char *p = config; p; p = (p = strchr(p, ',')) ? p + 1 : NULL)
        if (strncmp(p, name, nl) == 0 && p[nl] == '=') {
            const char *v = p + nl + 1, *end = strchr(v, ',');
            *len = end ? (size_t)(end - v) : strlen(v);
            return v;
        }
    return NULL;
}

/* One parameter in one group: its values with enough configs, each one's median time. */
typedef struct Param {
    char name[64];
    struct {
        char value[64];
        double median_ms, *logs; /* logs: the natural logs of its configs' times */
        size_t n;
    } level[MAX_LEVELS];
    size_t nlevels, kept, dropped; /* kept: levels with REPORT_MIN_PER_LEVEL configs, first */
    double share;                  /* of the variance explained by the kept levels' medians */
} Param;

static int value_before(const char *a, const char *b)
{
    char *ea, *eb;
    double x = strtod(a, &ea), y = strtod(b, &eb);
    if (!*ea && !*eb && ea != a && eb != b)
        return x < y;
    return strcmp(a, b) < 0;
}

/* The value of parameter name in the group's config k (its length in *len), or NULL when that
 * trial has no ok time or no such parameter. */
static const char *ok_value(const Report *r, const ReportGroup *gr, size_t k, const char *name,
                            size_t *len)
{
    const ReportTrial *t = &r->trials[gr->trials[k]];
    return t->status == CUTUNE_STATUS_OK && t->ms > 0 ? param_value(t->config, name, len) : NULL;
}

/* The levels of parameter p->name among the group's ok times (logs[k] of config k); buf
 * holds 2 (gr->n + 1) doubles, for the levels' logs. */
static void analyse(Param *p, const Report *r, const ReportGroup *gr, const double *logs,
                    double *buf)
{
    p->nlevels = 0;
    for (size_t k = 0; k < gr->n; k++) {
        size_t len;
        const char *v = ok_value(r, gr, k, p->name, &len);
        if (!v || len >= sizeof p->level[0].value)
            continue;
        size_t i = 0;
        while (i < p->nlevels &&
               !(strlen(p->level[i].value) == len && strncmp(p->level[i].value, v, len) == 0))
            i++;
        if (i == p->nlevels) {
            if (i == MAX_LEVELS)
                continue;
            snprintf(p->level[i].value, sizeof p->level[i].value, "%.*s", (int)len, v);
            p->level[i].n = 0;
            p->nlevels++;
        }
    }
    /* each level's logs, gathered */
    size_t at = 0;
    for (size_t i = 0; i < p->nlevels; i++) {
        p->level[i].logs = buf + gr->n + at;
        for (size_t k = 0; k < gr->n; k++) {
            size_t len;
            const char *v = ok_value(r, gr, k, p->name, &len);
            if (v && strlen(p->level[i].value) == len && !strncmp(p->level[i].value, v, len))
                p->level[i].logs[p->level[i].n++] = logs[k];
        }
        at += p->level[i].n;
    }
    /* the levels with enough configs first, each part in the values' order */
    for (size_t i = 1; i < p->nlevels; i++)
        for (size_t j = i; j > 0; j--) {
            int ea = p->level[j - 1].n >= REPORT_MIN_PER_LEVEL,
                eb = p->level[j].n >= REPORT_MIN_PER_LEVEL;
            if (ea > eb || (ea == eb && !value_before(p->level[j].value, p->level[j - 1].value)))
                break;
            char tmp[sizeof p->level[0]];
            memcpy(tmp, &p->level[j], sizeof tmp);
            memcpy(&p->level[j], &p->level[j - 1], sizeof tmp);
            memcpy(&p->level[j - 1], tmp, sizeof tmp);
        }
    p->kept = 0;
    while (p->kept < p->nlevels && p->level[p->kept].n >= REPORT_MIN_PER_LEVEL)
        p->kept++;
    p->dropped = p->nlevels - p->kept;
    /* the share: sum over kept levels of n (median - mean)^2 over the total sum of squares,
     * all of log times (a ratio of times counts the same at any scale) */
    double sum = 0, ss = 0, between = 0;
    size_t n = 0;
    for (size_t i = 0; i < p->kept; i++)
        for (size_t k = 0; k < p->level[i].n; k++) {
            sum += p->level[i].logs[k];
            n++;
        }
    double mean = n ? sum / (double)n : 0;
    for (size_t i = 0; i < p->kept; i++) {
        for (size_t k = 0; k < p->level[i].n; k++)
            ss += (p->level[i].logs[k] - mean) * (p->level[i].logs[k] - mean);
        double *copy = malloc(p->level[i].n * sizeof *copy);
        for (size_t k = 0; copy && k < p->level[i].n; k++)
            copy[k] = exp(p->level[i].logs[k]);
        p->level[i].median_ms = copy ? report_median(copy, p->level[i].n) : 0;
        free(copy);
        double d = p->level[i].median_ms > 0 ? log(p->level[i].median_ms) - mean : 0;
        between += (double)p->level[i].n * d * d;
    }
    p->share = p->kept >= 2 && ss > 0 ? fmin(between / ss, 1.0) : 0;
}

/* The parameters of a group that have 2 levels with enough configs; returns how many, in
 * ps[] (which holds max), sorted by share, largest first. */
static size_t group_params(const Report *r, const ReportGroup *gr, Param *ps, size_t max,
                           double *logs, double *buf)
{
    const ReportTrial *first = NULL;
    for (size_t k = 0; k < gr->n; k++) {
        const ReportTrial *t = &r->trials[gr->trials[k]];
        logs[k] = t->status == CUTUNE_STATUS_OK && t->ms > 0 ? log(t->ms) : 0;
        if (!first && t->status == CUTUNE_STATUS_OK && t->ms > 0)
            first = t;
    }
    size_t np = 0;
    for (const char *p = first ? first->config : NULL; p && np < max;
         p = (p = strchr(p, ',')) ? p + 1 : NULL) {
        const char *eq = strchr(p, '='), *comma = strchr(p, ',');
        if (!eq || (comma && eq > comma) || (size_t)(eq - p) >= sizeof ps[np].name)
            continue;
        snprintf(ps[np].name, sizeof ps[np].name, "%.*s", (int)(eq - p), p);
        analyse(&ps[np], r, gr, logs, buf + np * 2 * (gr->n + 1));
        if (ps[np].kept >= 2)
            np++;
    }
    for (size_t i = 1; i < np; i++)
        for (size_t j = i; j > 0 && ps[j - 1].share < ps[j].share; j--) {
            Param t = ps[j];
            ps[j] = ps[j - 1];
            ps[j - 1] = t;
        }
    return np;
}

static void importance_rows(FILE *f, const ReportGroup *gr, const Param *ps, size_t np)
{
    for (size_t i = 0; i < np; i++) {
        fputs("<tr>", f);
        if (i == 0) {
            fprintf(f, "<td rowspan=\"%zu\">", np);
            report_text(f, gr->variant);
            fprintf(f, "</td><td rowspan=\"%zu\">", np);
            report_text(f, gr->size);
            fputs("</td>", f);
        }
        report_td(f, ps[i].name);
        report_tdf(f, "%.0f%%", 100 * ps[i].share);
        report_tdf(f, "%.0f", (double)ps[i].kept);
        fputs("<td>", f);
        report_svg_bar(f, ps[i].share, 1, 160);
        fputs("</td></tr>\n", f);
    }
}

static void effect_table(FILE *f, const ReportGroup *gr, size_t g, const Param *ps, size_t np)
{
    fputs("<div class=\"pgroup\"><h3>", f);
    report_text(f, gr->variant);
    fputs(" at ", f);
    report_text(f, gr->size);
    fprintf(f,
            "</h3>\n<table class=\"params\" id=\"params-%zu\"><tr><th>parameter</th>"
            "<th>value</th><th>configs</th><th>median ms</th><th></th></tr>\n",
            g);
    for (size_t i = 0; i < np; i++) {
        double worst = 0;
        for (size_t l = 0; l < ps[i].kept; l++)
            worst = fmax(worst, ps[i].level[l].median_ms);
        for (size_t l = 0; l < ps[i].kept; l++) {
            fputs("<tr>", f);
            if (l == 0) {
                fprintf(f, "<td rowspan=\"%zu\">", ps[i].kept);
                report_text(f, ps[i].name);
                fputs("</td>", f);
            }
            report_td(f, ps[i].level[l].value);
            report_tdf(f, "%.0f", (double)ps[i].level[l].n);
            report_tdf(f, "%.6g", ps[i].level[l].median_ms);
            fputs("<td>", f);
            report_svg_bar(f, ps[i].level[l].median_ms, worst, 160);
            fputs("</td></tr>\n", f);
        }
        if (ps[i].dropped)
            fprintf(f,
                    "<tr><td></td><td colspan=\"4\" class=\"note\">and %zu value(s) with fewer "
                    "than %d configs</td></tr>\n",
                    ps[i].dropped, REPORT_MIN_PER_LEVEL);
    }
    fputs("</table></div>\n", f);
}

void report_params(FILE *f, const Report *r)
{
    fprintf(f,
            "<h2 id=\"params\">Parameters: importance and effects</h2>\n<p class=\"note\">Only "
            "where a parameter has at least %d ok configs at each of two values or more (a "
            "median of fewer, such as a warm start's handful, is mostly noise). Importance: "
            "the share of the variance of the log times that the medians of a parameter's "
            "values explain (1 would mean its value alone sets the time); the others vary "
            "meanwhile, so shares need not add up to 100%%.</p>\n",
            REPORT_MIN_PER_LEVEL);
    size_t maxn = 0;
    for (size_t g = 0; g < r->ngroups; g++)
        maxn = r->groups[g].n > maxn ? r->groups[g].n : maxn;
    enum { MAX_PARAMS = 32 };
    Param *ps = malloc(MAX_PARAMS * sizeof *ps);
    double *logs = malloc((maxn + 1) * sizeof *logs);
    double *buf = malloc(MAX_PARAMS * 2 * (maxn + 1) * sizeof *buf);
    size_t shown = 0;
    for (int pass = 0; ps && logs && buf && pass < 2; pass++) {
        if (pass == 0)
            fputs("<h3 id=\"importance\">Importance</h3>\n<table id=\"importance-table\"><tr>"
                  "<th>variant</th><th>size</th><th>parameter</th><th>variance explained</th>"
                  "<th>values</th><th></th></tr>\n",
                  f);
        for (size_t g = 0; g < r->ngroups; g++) {
            size_t np = group_params(r, &r->groups[g], ps, MAX_PARAMS, logs, buf);
            if (!np)
                continue;
            if (pass == 0) {
                importance_rows(f, &r->groups[g], ps, np);
                shown++;
            } else {
                effect_table(f, &r->groups[g], g, ps, np);
            }
        }
        if (pass == 0) {
            fputs("</table>\n", f);
            fprintf(f,
                    "<p class=\"note\" id=\"params-shown\">%zu of %zu variant and size "
                    "searches have enough configs for it.</p>\n<h3 "
                    "id=\"effects\">Effects</h3>\n",
                    shown, r->ngroups);
        }
    }
    free(ps);
    free(logs);
    free(buf);
}
