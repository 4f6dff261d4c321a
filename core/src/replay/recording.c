/* Loading recordings for replay from a cutune database or a CSV file, and writing CSV.
 *
 * The CSV format (one file per variant and problem size):
 *
 *     # cutune recording
 *     # device: NVIDIA H200
 *     # date: 2026-11-21
 *     # variant: matmul_tiled
 *     # size: 4096x4096x4096
 *     TILE,PAD,WPT,UNROLL,status,median_ms
 *     64,0,8,4,ok,6.3519
 *     8,1,1,1,skipped_resources,
 *
 * Lines starting with '#' are comments; "# key: value" sets device, date, variant, size
 * or source. The first other line names the parameters, then status and median_ms. */
#include "csv.h"
#include "db.h"
#include "recording_int.h"
#include "space_limits.h"
#include "outfile.h"
#include "replay.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int cmp_entry(const void *a, const void *b)
{
    return strcmp(((const CutuneRecEntry *)a)->config, ((const CutuneRecEntry *)b)->config);
}

/* Merge trials of the same config: the median of the medians, ok only if all were ok. */
static int entries_merge(CutuneRecEntries *es)
{
    qsort(es->e, es->n, sizeof *es->e, cmp_entry);
    double *ms = cutune_malloc_array(es->n, sizeof *ms);
    if (!ms)
        return CUTUNE_ERR_NOMEM;
    size_t w = 0;
    for (size_t i = 0; i < es->n;) {
        size_t j = i, nok = 0, ncompiled = 0;
        double compiled = 0;
        int status = CUTUNE_STATUS_OK;
        for (; j < es->n && strcmp(es->e[j].config, es->e[i].config) == 0; j++) {
            if (es->e[j].compile_ms > 0) {
                compiled += es->e[j].compile_ms;
                ncompiled++;
            }
            if (es->e[j].status == CUTUNE_STATUS_OK && es->e[j].median_ms > 0)
                ms[nok++] = es->e[j].median_ms;
            else if (status == CUTUNE_STATUS_OK)
                status = es->e[j].status == CUTUNE_STATUS_OK ? CUTUNE_STATUS_LAUNCH_ERROR
                                                             : es->e[j].status;
        }
        double med = 0;
        if (status == CUTUNE_STATUS_OK) {
            qsort(ms, nok, sizeof *ms, cutune_cmp_double);
            med = nok % 2 ? ms[nok / 2] : 0.5 * (ms[nok / 2 - 1] + ms[nok / 2]);
        }
        CutuneRecEntry keep = {es->e[i].config, status, med,
                               ncompiled ? compiled / (double)ncompiled : 0};
        for (size_t k = i + 1; k < j; k++)
            free(es->e[k].config);
        es->e[w++] = keep;
        i = j;
    }
    es->n = w;
    free(ms);
    return 0;
}

static int load_db(const char *path, const char *variant, const char *size, const char *device,
                   CutuneRecEntries *es, CutuneRecording *r, CutuneError *err)
{
    CutuneDb *cdb = NULL;
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    char uuid[64] = "";
    /* through the database layer: damage, foreign files, read-only folders and older
     * schemas are handled as for every other reader */
    int rc = cutune_db_open(path, CUTUNE_DB_READONLY, &cdb, err);
    if (rc)
        goto out;
    db = cutune_db_sqlite(cdb);
    static const char sql[] =
        "SELECT t.config, t.status, t.median_ms, d.name, d.uuid, t.created_at, t.compile_ms "
        "FROM trials t JOIN variants v ON v.id = t.variant_id "
        "JOIN problems p ON p.id = t.problem_id JOIN devices d ON d.id = t.device_id "
        "WHERE v.name = ?1 AND p.size = ?2 AND v.id = (SELECT max(t2.variant_id) FROM trials t2 "
        "JOIN variants v2 ON v2.id = t2.variant_id JOIN problems p2 ON p2.id = t2.problem_id "
        "WHERE v2.name = ?1 AND p2.size = ?2) ORDER BY t.id";
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        rc = cutune_error(err, CUTUNE_ERR_DB, "%s is not a cutune database (%s)", path,
                          sqlite3_errmsg(db));
        goto out;
    }
    sqlite3_bind_text(st, 1, variant, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, size, -1, SQLITE_STATIC);
    int s;
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        const char *config = (const char *)sqlite3_column_text(st, 0);
        const char *status = (const char *)sqlite3_column_text(st, 1);
        const char *name = (const char *)sqlite3_column_text(st, 3);
        const char *id = (const char *)sqlite3_column_text(st, 4);
        const char *when = (const char *)sqlite3_column_text(st, 5);
        if (!config || !status || !name || !id)
            continue;
        if (device && strcmp(id, device) != 0 && !strcasestr(name, device))
            continue;
        if (!uuid[0]) {
            snprintf(uuid, sizeof uuid, "%s", id);
            snprintf(r->device, sizeof r->device, "%s", name);
        } else if (strcmp(uuid, id) != 0) {
            rc = cutune_error(err, CUTUNE_ERR_INVALID,
                              "%s holds %s %s on several devices (%s and %s); choose one with "
                              "--device NAME|UUID",
                              path, variant, size, r->device, name);
            goto out;
        }
        if (when && strncmp(when, r->date, 10) > 0)
            snprintf(r->date, sizeof r->date, "%.10s", when);
        int code = cutune_status_parse(status);
        if ((rc = cutune_rec_entries_add(es, config, code < 0 ? CUTUNE_STATUS_CRASHED : code,
                                         sqlite3_column_double(st, 2),
                                         sqlite3_column_double(st, 6)))) {
            rc = cutune_error(err, rc, "out of memory");
            goto out;
        }
    }
    if (s != SQLITE_DONE) {
        rc = cutune_db_fail(cdb, err, s, "reading the recorded trials");
        goto out;
    }
    if (es->n == 0)
        rc = cutune_error(err, CUTUNE_ERR_NOT_FOUND,
                          "%s holds no trial of variant %s at size %s%s%s; `cutune show` and "
                          "`cutune query` list what it holds",
                          path, variant, size, device ? " on device " : "", device ? device : "");
out:
    sqlite3_finalize(st);
    cutune_db_close(&cdb);
    return rc;
}

/* "A=1,B=2" into values, its names those of r in order. Every comma ends a pair: "A=1,,B=2"
 * is three pairs, the second empty, and refused. */
static int parse_generic(const char *text, CutuneRecording *r, int64_t *values)
{
    size_t k = 0;
    for (const char *p = text;; k++) {
        size_t len = strcspn(p, ",");
        const char *eq = memchr(p, '=', len);
        if (!eq || k >= r->nparams || (size_t)(eq - p) != strlen(r->param_names[k]) ||
            strncmp(r->param_names[k], p, (size_t)(eq - p)) != 0 ||
            cutune_parse_i64(eq + 1, len - (size_t)(eq - p) - 1, &values[k]))
            return -1;
        if (!p[len])
            break;
        p += len + 1;
    }
    return k + 1 == r->nparams ? 0 : -1;
}

static int build(CutuneRecEntries *es, const CutuneSpace *space, CutuneRecording *r,
                 CutuneError *err)
{
    CutuneConfigList *cl = &r->configs;
    int rc;
    if (space) {
        CutuneLimits lim;
        cutune_limits_sm90(&lim);
        CutuneProblem prob;
        int64_t dims[CUTUNE_MAX_DIMS] = {0};
        if ((rc = cutune_problem_parse(r->size, &prob, err)))
            return rc;
        for (int i = 0; i < prob.ndims; i++)
            dims[i] = prob.dim[i];
        if ((size_t)prob.ndims != space->ndims)
            return cutune_error(err, CUTUNE_ERR_INVALID,
                                "%s: size %s has %d dimensions, the "
                                "space names %zu",
                                space->path, r->size, prob.ndims, space->ndims);
        if ((rc = cutune_space_enumerate(space, &lim, dims, cl, err)))
            return rc;
        r->nparams = space->nparams;
    } else {
        /* the recorded configs are the space: parameter names from the first one */
        const char *first = es->e[0].config;
        for (const char *p = first; *p; p++)
            r->nparams += *p == '=';
        cl->nparams = r->nparams;
        cl->nconfigs = es->n;
        size_t cells;
        if (cutune_size_mul(es->n, r->nparams, &cells) == 0)
            cl->values = cutune_malloc_array(cells, sizeof *cl->values);
    }
    r->param_names = calloc(r->nparams + 1, sizeof *r->param_names);
    r->status = cutune_malloc_array(cl->nconfigs, sizeof *r->status);
    r->median_ms = cutune_malloc_array(cl->nconfigs, sizeof *r->median_ms);
    r->compile_ms = cutune_malloc_array(cl->nconfigs, sizeof *r->compile_ms);
    if (!cl->values || !r->param_names || !r->status || !r->median_ms || !r->compile_ms)
        return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
    if (space) {
        for (size_t j = 0; j < r->nparams; j++)
            snprintf(r->param_names[j], CUTUNE_NAME_MAX, "%s", space->params[j].name);
        size_t matched = 0;
        for (size_t i = 0; i < cl->nconfigs; i++) {
            char text[CUTUNE_REC_CONFIG_MAX];
            cutune_config_format(space, cl->values + i * cl->nparams, text, sizeof text);
            CutuneRecEntry key = {text, 0, 0, 0};
            CutuneRecEntry *e = bsearch(&key, es->e, es->n, sizeof *es->e, cmp_entry);
            r->status[i] = e ? e->status : CUTUNE_REPLAY_MISSING;
            r->median_ms[i] = e ? e->median_ms : 0;
            r->compile_ms[i] = e ? e->compile_ms : 0;
            matched += e != NULL;
        }
        r->nunmatched = es->n - matched;
    } else {
        const char *p = es->e[0].config;
        for (size_t j = 0; j < r->nparams; j++) {
            const char *eq = strchr(p, '=');
            snprintf(r->param_names[j], CUTUNE_NAME_MAX, "%.*s", (int)(eq - p), p);
            p = strchr(eq, ',');
            p = p ? p + 1 : eq + strlen(eq);
        }
        for (size_t i = 0; i < es->n; i++) {
            if (parse_generic(es->e[i].config, r, cl->values + i * r->nparams))
                return cutune_error(err, CUTUNE_ERR_PARSE,
                                    "recorded config '%s' does not have the parameters of '%s'",
                                    es->e[i].config, es->e[0].config);
            r->status[i] = es->e[i].status;
            r->median_ms[i] = es->e[i].median_ms;
            r->compile_ms[i] = es->e[i].compile_ms;
        }
    }
    for (size_t i = 0; i < cl->nconfigs; i++) {
        if (r->status[i] == CUTUNE_REPLAY_MISSING) {
            r->nmissing++;
        } else if (r->status[i] == CUTUNE_STATUS_OK && r->median_ms[i] > 0 &&
                   isfinite(r->median_ms[i])) {
            r->nok++;
            if (!(r->best_ms > 0) || r->median_ms[i] < r->best_ms)
                r->best_ms = r->median_ms[i];
        } else {
            r->status[i] = r->status[i] == CUTUNE_STATUS_OK ? CUTUNE_STATUS_LAUNCH_ERROR
                                                            : r->status[i];
            r->nfailed++;
        }
    }
    return 0;
}

int cutune_recording_load(const char *path, const char *variant, const char *size,
                          const char *device, const CutuneSpace *space, CutuneRecording *out,
                          CutuneError *err)
{
    memset(out, 0, sizeof *out);
    CutuneRecEntries es = {0};
    char magic[16] = "";
    int rc;
    FILE *f = fopen(path, "rb");
    if (!f)
        return cutune_error(err, CUTUNE_ERR_NOT_FOUND, "cannot open %s: %s", path, strerror(errno));
    size_t got = fread(magic, 1, sizeof magic, f);
    fclose(f);
    snprintf(out->source, sizeof out->source, "%s", path);
    if (got == sizeof magic && memcmp(magic, "SQLite format 3", 16) == 0) {
        if (!variant || !size) {
            rc = cutune_error(err, CUTUNE_ERR_INVALID,
                              "replaying database %s needs --variant and --size", path);
            goto out;
        }
        CutuneProblem prob;
        if ((rc = cutune_problem_parse(size, &prob, err)))
            goto out;
        cutune_problem_format(&prob, out->size, sizeof out->size);
        snprintf(out->variant, sizeof out->variant, "%s", variant);
        rc = load_db(path, variant, out->size, device, &es, out, err);
    } else {
        FILE *f = fopen(path, "r");
        if (!f) {
            rc = cutune_error(err, CUTUNE_ERR_NOT_FOUND, "cannot open %s: %s", path,
                              strerror(errno));
            goto out;
        }
        rc = cutune_recording_read_csv(f, path, &es, out, err);
        fclose(f);
        if (!rc && ((variant && strcmp(variant, out->variant) != 0) ||
                    (size && strcmp(size, out->size) != 0)))
            rc = cutune_error(err, CUTUNE_ERR_INVALID,
                              "%s records %s at %s, not what was asked (%s at %s)", path,
                              out->variant, out->size, variant ? variant : out->variant,
                              size ? size : out->size);
    }
    if (rc || (rc = entries_merge(&es)) || (rc = build(&es, space, out, err)))
        goto out;
out:
    cutune_rec_entries_free(&es);
    if (rc)
        cutune_recording_free(out);
    return rc;
}

int cutune_recording_write_csv(const CutuneRecording *r, const char *path, CutuneError *err)
{
    CutuneOutFile out;
    int rc = cutune_outfile_open(&out, path, err);
    if (rc)
        return rc;
    FILE *f = out.f;
    fprintf(f, "# cutune recording\n");
    cutune_csv_comment(f, "device", r->device);
    cutune_csv_comment(f, "date", r->date);
    cutune_csv_comment(f, "variant", r->variant);
    cutune_csv_comment(f, "size", r->size);
    cutune_csv_comment(f, "source", r->origin[0] ? r->origin : r->source);
    cutune_csv_comment(f, "median_ms", "the median of the medians of the config's trials");
    for (size_t j = 0; j < r->nparams; j++)
        cutune_csv_field(f, r->param_names[j], 0);
    fprintf(f, "status,median_ms\n");
    for (size_t i = 0; i < r->configs.nconfigs; i++) {
        if (r->status[i] == CUTUNE_REPLAY_MISSING)
            continue;
        for (size_t j = 0; j < r->nparams; j++)
            fprintf(f, "%lld,", (long long)r->configs.values[i * r->nparams + j]);
        cutune_csv_field(f, cutune_status_name((CutuneStatus)r->status[i]), 0);
        if (r->status[i] == CUTUNE_STATUS_OK)
            fprintf(f, "%.9g", r->median_ms[i]);
        fputc('\n', f);
    }
    return cutune_outfile_commit(&out, err);
}

long cutune_recording_best_of(const CutuneRecording *from, const CutuneRecording *to, size_t k,
                              size_t *out, CutuneError *err)
{
    size_t p = to->nparams, nf = from->configs.nconfigs, nt = to->configs.nconfigs;
    size_t *col = malloc((p + 1) * sizeof *col), *ok = malloc((nf + 1) * sizeof *ok);
    size_t nok = 0, m = 0;
    long rc;
    if (!col || !ok) {
        rc = cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
        goto out;
    }
    for (size_t j = 0; j < p; j++) {
        size_t c = 0;
        while (c < from->nparams && strcmp(from->param_names[c], to->param_names[j]) != 0)
            c++;
        if (c == from->nparams) {
            rc = cutune_error(err, CUTUNE_ERR_INVALID,
                              "%s has no parameter %s: it is not a recording of the space of %s",
                              from->source, to->param_names[j], to->source);
            goto out;
        }
        col[j] = c;
    }
    for (size_t i = 0; i < nf; i++)
        if (from->status[i] == CUTUNE_STATUS_OK && from->median_ms[i] > 0)
            ok[nok++] = i;
    /* selection of the fastest, k times: k is a handful */
    for (size_t r = 0; r < nok && m < k; r++) {
        size_t at = r;
        for (size_t i = r + 1; i < nok; i++)
            if (from->median_ms[ok[i]] < from->median_ms[ok[at]])
                at = i;
        size_t f = ok[at];
        ok[at] = ok[r];
        ok[r] = f;
        const int64_t *fv = from->configs.values + f * from->nparams;
        for (size_t t = 0; t < nt; t++) {
            const int64_t *tv = to->configs.values + t * p;
            size_t j = 0;
            while (j < p && tv[j] == fv[col[j]])
                j++;
            if (j == p) {
                out[m++] = t;
                break;
            }
        }
    }
    rc = (long)m;
out:
    free(col);
    free(ok);
    return rc;
}
