/* Reading one run for `cutune report` (see report.h). */
#include "report.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dup_col(sqlite3_stmt *st, int i)
{
    const unsigned char *s = sqlite3_column_text(st, i);
    return strdup(s ? (const char *)s : "");
}

static int prepare(CutuneDb *db, const char *sql, int64_t run_id, sqlite3_stmt **st,
                   CutuneError *err)
{
    int rc = sqlite3_prepare_v2(cutune_db_sqlite(db), sql, -1, st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(*st, 1, run_id);
    return rc == SQLITE_OK ? 0 : cutune_db_fail(db, err, rc, "reading the run");
}

/* The run's text fields, in the order load_run selects them (columns 1 to 8): the
 * initialiser of an array of char **. */
#define RUN_TEXTS(r) \
    { \
        &(r)->started, &(r)->finished, &(r)->status, &(r)->op, &(r)->strategy, &(r)->argv, \
            &(r)->device, &(r)->uuid \
    }

/* The run a report shows when none is named: a run that only re-timed the best configs
 * (the second run of the same command) has no search and no convergence to show, so the
 * latest run that searched, else the latest with trials, else the latest. *latest is the
 * newest run of all. */
static int default_run(CutuneDb *db, int64_t *run_id, int64_t *latest, CutuneError *err)
{
    int rc = cutune_db_last_run(db, latest, err);
    sqlite3_stmt *st = NULL;
    if (rc || (rc = prepare(db,
                            "SELECT coalesce((SELECT max(run_id) FROM searches"
                            " WHERE strategy <> 're-time'), (SELECT max(run_id) FROM trials),"
                            " ?1)",
                            *latest, &st, err)))
        return rc;
    int s = sqlite3_step(st);
    if (s == SQLITE_ROW)
        *run_id = sqlite3_column_int64(st, 0);
    else
        rc = cutune_db_fail(db, err, s, "finding the latest run that searched");
    sqlite3_finalize(st);
    return rc;
}

static int load_run(CutuneDb *db, int64_t *run_id, Report *r, CutuneError *err)
{
    sqlite3_stmt *st = NULL;
    int64_t latest = 0;
    int rc = *run_id ? 0 : default_run(db, run_id, &latest, err);
    r->latest_run = latest != *run_id ? latest : 0;
    if (rc || (rc = prepare(db,
                            "SELECT r.id, r.started_at, coalesce(r.finished_at, ''), r.status,"
                            " coalesce(r.op, ''), coalesce(r.strategy, ''), r.argv,"
                            " coalesce(d.name, ''), coalesce(d.uuid, ''), d.cc_major,"
                            " d.cc_minor, d.sm_count, d.driver_version, d.runtime_version,"
                            " d.total_mem, coalesce(d.sm_clock_khz, 0) FROM runs r"
                            " LEFT JOIN devices d ON d.id = r.device_id WHERE r.id = ?1",
                            *run_id, &st, err)))
        return rc;
    int s = sqlite3_step(st);
    if (s == SQLITE_ROW) {
        r->run_id = sqlite3_column_int64(st, 0);
        char **text[] = RUN_TEXTS(r);
        int nomem = 0;
        for (size_t i = 0; i < sizeof text / sizeof *text; i++)
            nomem |= !(*text[i] = dup_col(st, (int)i + 1));
        int *dev[] = {&r->cc_major, &r->cc_minor, &r->sm_count, &r->driver_version,
                      &r->runtime_version};
        for (size_t i = 0; i < sizeof dev / sizeof *dev; i++)
            *dev[i] = sqlite3_column_int(st, (int)i + 9);
        r->total_mem = sqlite3_column_int64(st, 14);
        r->sm_clock_khz = sqlite3_column_int(st, 15);
        rc = nomem ? cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory") : 0;
    } else if (s == SQLITE_DONE) {
        rc = cutune_error(err, CUTUNE_ERR_NOT_FOUND,
                          "%s has no run %lld; `cutune show` lists the trials of the latest, "
                          "and sqlite3 %s 'SELECT * FROM run_summary' every run",
                          cutune_db_path(db), (long long)*run_id, cutune_db_path(db));
    } else {
        rc = cutune_db_fail(db, err, s, "reading the run");
    }
    sqlite3_finalize(st);
    return rc;
}

static size_t find_or_add(char ***list, size_t *n, const char *s, int *nomem)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp((*list)[i], s) == 0)
            return i;
    char **grown = realloc(*list, (*n + 1) * sizeof *grown);
    char *copy = strdup(s);
    if (!grown || !copy) {
        free(copy);
        if (grown)
            *list = grown;
        *nomem = 1;
        return 0;
    }
    *list = grown;
    (*list)[*n] = copy;
    return (*n)++;
}

static size_t group_of(Report *r, const char *variant, const char *version, const char *size,
                       int *nomem)
{
    for (size_t g = 0; g < r->ngroups; g++)
        if (!strcmp(r->groups[g].variant, variant) && !strcmp(r->groups[g].version, version) &&
            !strcmp(r->groups[g].size, size))
            return g;
    ReportGroup *grown = realloc(r->groups, (r->ngroups + 1) * sizeof *grown);
    if (!grown) {
        *nomem = 1;
        return 0;
    }
    r->groups = grown;
    ReportGroup *g = &r->groups[r->ngroups];
    memset(g, 0, sizeof *g);
    g->variant = strdup(variant);
    g->version = strdup(version);
    g->size = strdup(size);
    if (!g->variant || !g->version || !g->size)
        *nomem = 1;
    (void)find_or_add(&r->sizes, &r->nsizes, size, nomem);
    (void)find_or_add(&r->variants, &r->nvariants, variant, nomem);
    return r->ngroups++;
}

static int load_trials(CutuneDb *db, Report *r, CutuneError *err)
{
    sqlite3_stmt *st = NULL;
    int rc = prepare(db,
                     "SELECT v.name, v.version, p.size, t.config, t.status, t.median_ms,"
                     " (julianday(t.created_at) - julianday(r.started_at)) * 86400.0,"
                     " coalesce(t.message, ''), t.min_ms, t.stddev_ms, t.samples, t.gflops,"
                     " t.gbps FROM trials t JOIN variants v ON v.id = t.variant_id"
                     " JOIN problems p ON p.id = t.problem_id JOIN runs r ON r.id = t.run_id"
                     " WHERE t.run_id = ?1 ORDER BY t.id",
                     r->run_id, &st, err);
    int s = SQLITE_OK, nomem = 0;
    size_t cap = 0;
    while (rc == 0 && !nomem && (s = sqlite3_step(st)) == SQLITE_ROW) {
        if (r->ntrials == cap) {
            cap = cap ? 2 * cap : 256;
            ReportTrial *t = realloc(r->trials, cap * sizeof *t);
            if (!t) {
                nomem = 1;
                break;
            }
            r->trials = t;
        }
        const char *name = (const char *)sqlite3_column_text(st, 0);
        const char *version = (const char *)sqlite3_column_text(st, 1);
        const char *size = (const char *)sqlite3_column_text(st, 2);
        size_t g = group_of(r, name ? name : "", version ? version : "", size ? size : "", &nomem);
        ReportTrial *t = &r->trials[r->ntrials];
        t->group = g;
        t->config = dup_col(st, 3);
        int status = cutune_status_parse((const char *)sqlite3_column_text(st, 4));
        t->status = status < 0 ? CUTUNE_STATUS_CRASHED : status;
        t->ms = sqlite3_column_double(st, 5);
        if (!(isfinite(t->ms) && t->ms > 0)) {
            r->bad_trial_times += t->status == CUTUNE_STATUS_OK;
            t->ms = 0;
        }
        /* the commit times are whole seconds: julianday's rounding (99.99998) is not */
        t->t = round(sqlite3_column_double(st, 6) * 1e3) / 1e3;
        t->message = dup_col(st, 7);
        double *m[] = {&t->min_ms, &t->stddev_ms, NULL, &t->gflops, &t->gbps};
        for (int i = 0; i < 5; i++) /* a measure that is no number is not recorded */
            if (m[i] && !(isfinite(*m[i] = sqlite3_column_double(st, 8 + i)) && *m[i] >= 0))
                *m[i] = 0;
        t->samples = sqlite3_column_int64(st, 10);
        r->ntrials++;
        if (!t->config || !t->message)
            nomem = 1;
        if (t->status == CUTUNE_STATUS_OK && t->ms > 0 && !nomem) {
            ReportGroup *gr = &r->groups[g];
            if (!(gr->best_ms > 0) || t->ms < gr->best_ms) {
                gr->best_ms = t->ms;
                gr->best = r->ntrials - 1;
            }
        }
    }
    if (rc == 0 && nomem)
        rc = cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory reading the run");
    else if (rc == 0 && s != SQLITE_DONE)
        rc = cutune_db_fail(db, err, s, "reading the trials");
    sqlite3_finalize(st);
    for (size_t g = 0; rc == 0 && g < r->ngroups; g++) {
        ReportGroup *gr = &r->groups[g];
        if (!(gr->trials = malloc((r->ntrials + 1) * sizeof *gr->trials)))
            return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; rc == 0 && i < r->ntrials; i++) {
        ReportGroup *gr = &r->groups[r->trials[i].group];
        gr->trials[gr->n++] = i;
    }
    return rc;
}

/* Each row of sql (run_id bound to ?1) through row(): 0 goes on, else that error stops;
 * a step that fails is said as "reading <what>". */
static int each_row(CutuneDb *db, Report *r, const char *sql, const char *what,
                    int (*row)(sqlite3_stmt *st, Report *r, CutuneError *err), CutuneError *err)
{
    sqlite3_stmt *st = NULL;
    int rc = prepare(db, sql, r->run_id, &st, err);
    int s = SQLITE_OK;
    while (rc == 0 && (s = sqlite3_step(st)) == SQLITE_ROW)
        rc = row(st, r, err);
    if (rc == 0 && s != SQLITE_DONE)
        rc = cutune_db_fail(db, err, s, what);
    sqlite3_finalize(st);
    return rc;
}

static int search_row(sqlite3_stmt *st, Report *r, CutuneError *err)
{
    (void)err;
    for (size_t g = 0; g < r->ngroups; g++) {
        ReportGroup *gr = &r->groups[g];
        const char *v = (const char *)sqlite3_column_text(st, 0);
        const char *ver = (const char *)sqlite3_column_text(st, 1);
        const char *size = (const char *)sqlite3_column_text(st, 2);
        if (!v || !ver || !size || strcmp(gr->variant, v) || strcmp(gr->version, ver) ||
            strcmp(gr->size, size))
            continue;
        /* a size searched in steps (a warm start, then a strategy): their strategies,
         * the largest space, the evaluations and seconds added up, the last ending */
        const char *strategy = (const char *)sqlite3_column_text(st, 3);
        size_t len = strlen(gr->strategy);
        if (strategy && !strstr(gr->strategy, strategy))
            snprintf(gr->strategy + len, sizeof gr->strategy - len, "%s%s",
                     gr->searched ? " + " : "", strategy);
        gr->searched = 1;
        int64_t nvalid = sqlite3_column_int64(st, 4);
        gr->nvalid = nvalid > gr->nvalid ? nvalid : gr->nvalid;
        gr->evaluated += sqlite3_column_int64(st, 5);
        gr->seconds += sqlite3_column_double(st, 6);
        snprintf(gr->status, sizeof gr->status, "%s", sqlite3_column_text(st, 7));
    }
    return 0;
}

static int load_searches(CutuneDb *db, Report *r, CutuneError *err)
{
    return each_row(db, r,
                    "SELECT v.name, v.version, p.size, s.strategy, s.nvalid, s.evaluated,"
                    " s.seconds, s.status FROM searches s JOIN variants v ON v.id = s.variant_id"
                    " JOIN problems p ON p.id = s.problem_id WHERE s.run_id = ?1 ORDER BY s.id",
                    "reading the searches", search_row, err);
}

static int yardstick_row(sqlite3_stmt *st, Report *r, CutuneError *err)
{
    const char *size = (const char *)sqlite3_column_text(st, 0);
    if (!size || (r->nyard && !strcmp(r->yard[r->nyard - 1].size, size)))
        return 0; /* the first row of a size is the one */
    double ms = sqlite3_column_double(st, 2);
    if (!(isfinite(ms) && ms > 0)) { /* no time: the size's next row, if any, is the one */
        r->bad_yardstick_times++;
        return 0;
    }
    ReportYardstick *y = realloc(r->yard, (r->nyard + 1) * sizeof *y);
    if (!y)
        return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
    r->yard = y;
    y[r->nyard].size = strdup(size);
    y[r->nyard].name = dup_col(st, 1);
    y[r->nyard].ms = ms;
    r->nyard++;
    return 0;
}

/* Per size, the fastest yardstick measured in this run (a run times it at the size's start,
 * and twice beside the best at its end: `run` reports the faster of those two), else the
 * newest on this device. */
static int load_yardsticks(CutuneDb *db, Report *r, CutuneError *err)
{
    return each_row(db, r,
                    "SELECT p.size, y.name, y.median_ms FROM yardsticks y"
                    " JOIN problems p ON p.id = y.problem_id JOIN runs r ON r.id = ?1"
                    " WHERE y.device_id = r.device_id AND p.op = r.op"
                    " ORDER BY p.size, y.run_id = ?1 DESC,"
                    " CASE WHEN y.run_id = ?1 THEN y.median_ms END, y.id DESC",
                    "reading the yardsticks", yardstick_row, err);
}

int report_load(CutuneDb *db, int64_t run_id, Report *r, CutuneError *err)
{
    memset(r, 0, sizeof *r);
    int rc = load_run(db, &run_id, r, err);
    if (rc == 0)
        rc = load_trials(db, r, err);
    if (rc == 0)
        rc = load_searches(db, r, err);
    if (rc == 0)
        rc = load_yardsticks(db, r, err);
    if (rc)
        report_free(r);
    return rc;
}

void report_free(Report *r)
{
    for (size_t i = 0; i < r->ntrials; i++) {
        free(r->trials[i].config);
        free(r->trials[i].message);
    }
    for (size_t g = 0; g < r->ngroups; g++) {
        free(r->groups[g].variant);
        free(r->groups[g].version);
        free(r->groups[g].size);
        free(r->groups[g].trials);
    }
    for (size_t i = 0; i < r->nsizes; i++)
        free(r->sizes[i]);
    for (size_t i = 0; i < r->nvariants; i++)
        free(r->variants[i]);
    free(r->variants);
    for (size_t i = 0; i < r->nyard; i++) {
        free(r->yard[i].size);
        free(r->yard[i].name);
    }
    free(r->trials);
    free(r->groups);
    free(r->sizes);
    free(r->yard);
    char **text[] = RUN_TEXTS(r);
    for (size_t i = 0; i < sizeof text / sizeof *text; i++)
        free(*text[i]);
    memset(r, 0, sizeof *r);
}
