/* Kernel Tuner's cache files (see ktcache.h). */
#include "ktcache.h"
#include "json.h"
#include "jsonread.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const struct {
    const char *name;
    CutuneStatus status;
} kt_errors[] = {
    {"InvalidConfig", CUTUNE_STATUS_SKIPPED_RESOURCES},
    {"CompilationFailedConfig", CUTUNE_STATUS_COMPILE_ERROR},
    {"RuntimeFailedConfig", CUTUNE_STATUS_LAUNCH_ERROR},
    {"ErrorConfig", CUTUNE_STATUS_LAUNCH_ERROR},
};

/* Kernel Tuner's failure names, in the error message of a time that is none of them. */
#define KT_ERROR_NAMES "InvalidConfig, CompilationFailedConfig, RuntimeFailedConfig or ErrorConfig"

static const char help_version[] =
    "; Kernel Tuner 0.4 and later write it: is this a cache of another version or tool?";

/* The file, made whole as Kernel Tuner makes a cache whose tuning stopped before it closed
 * it: without its closing "}\n}", perhaps with a trailing comma. *text is malloc'ed. */
static int read_cache_text(const char *path, char **text, size_t *len, CutuneError *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return cutune_error(err, CUTUNE_ERR_NOT_FOUND, "cannot open %s: %s", path, strerror(errno));
    struct stat st;
    char *buf = NULL;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f);
        return cutune_error(err, CUTUNE_ERR_IO, "%s is not a regular file", path);
    }
    size_t n = (size_t)st.st_size;
    if (!(buf = malloc(n + 4))) {
        fclose(f);
        return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory reading %s", path);
    }
    size_t got = fread(buf, 1, n, f);
    fclose(f);
    if (got != n) {
        free(buf);
        return cutune_error(err, CUTUNE_ERR_IO, "reading %s failed", path);
    }
    while (got && (buf[got - 1] == ' ' || buf[got - 1] == '\n' || buf[got - 1] == '\r' ||
                   buf[got - 1] == '\t'))
        got--;
    if (got >= 3 && memcmp(buf + got - 3, "}\n}", 3) != 0 && memcmp(buf + got - 3, "}}}", 3) != 0) {
        if (buf[got - 1] == ',')
            got--;
        memcpy(buf + got, "}\n}", 3);
        got += 3;
    }
    buf[got] = '\0';
    *text = buf;
    *len = got;
    return 0;
}

static int kt_fail(const CutuneKtCache *c, CutuneError *err, int line, const char *fmt,
                   const char *a, const char *b)
{
    char what[512];
    snprintf(what, sizeof what, fmt, a, b);
    return cutune_error(err, CUTUNE_ERR_PARSE, "%s:%d: %s; nothing was imported", c->path, line,
                        what);
}

/* The text of a scalar, as Python's str() writes it in the cache's keys. */
static void scalar_text(const CutuneJv *v, char *buf, size_t len)
{
    if (v->type == CUTUNE_JV_NUMBER && v->is_integer)
        snprintf(buf, len, "%lld", (long long)v->integer);
    else if (v->type == CUTUNE_JV_NUMBER)
        snprintf(buf, len, "%.17g", v->number);
    else if (v->type == CUTUNE_JV_STRING)
        snprintf(buf, len, "%s", v->string);
    else if (v->type == CUTUNE_JV_BOOL)
        snprintf(buf, len, "%s", v->boolean ? "True" : "False");
    else
        snprintf(buf, len, "%s", cutune_jv_type_name(v->type));
}

static int same_value(const CutuneJv *a, const CutuneJv *b)
{
    if (a->type == CUTUNE_JV_NUMBER && b->type == CUTUNE_JV_NUMBER)
        return a->number == b->number;
    char x[256], y[256];
    scalar_text(a, x, sizeof x);
    scalar_text(b, y, sizeof y);
    return a->type == b->type && strcmp(x, y) == 0;
}

/* The header: parameter names and which of them have integer values only. */
static int read_header(CutuneKtCache *c, const CutuneJv *root, const CutuneJv **values,
                       CutuneError *err)
{
    if (root->type != CUTUNE_JV_OBJECT)
        return kt_fail(c, err, root->line,
                       "the file holds a JSON %s, not a Kernel Tuner cache "
                       "(an object)%s",
                       cutune_jv_type_name(root->type), "");
    const CutuneJv *keys = cutune_jv_get(root, "tune_params_keys");
    const CutuneJv *params = cutune_jv_get(root, "tune_params");
    const CutuneJv *cache = cutune_jv_get(root, "cache");
    const char *missing = !keys     ? "tune_params_keys"
                          : !params ? "tune_params"
                          : !cache  ? "cache"
                                    : NULL;
    if (missing)
        return kt_fail(c, err, root->line, "the cache has no \"%s\"%s", missing, help_version);
    if (keys->type != CUTUNE_JV_ARRAY || keys->n == 0 || params->type != CUTUNE_JV_OBJECT ||
        cache->type != CUTUNE_JV_OBJECT)
        return kt_fail(c, err, keys->line,
                       "tune_params_keys must be a list of names, and "
                       "tune_params and cache objects%s%s",
                       help_version, "");
    const CutuneJv *v;
    if ((v = cutune_jv_get(root, "device_name")) && v->type == CUTUNE_JV_STRING)
        snprintf(c->device_name, sizeof c->device_name, "%s", v->string);
    if ((v = cutune_jv_get(root, "kernel_name")) && v->type == CUTUNE_JV_STRING)
        snprintf(c->kernel_name, sizeof c->kernel_name, "%s", v->string);
    if ((v = cutune_jv_get(root, "problem_size"))) {
        size_t k = 0;
        size_t nd = v->type == CUTUNE_JV_ARRAY ? v->n : 1;
        for (size_t i = 0; i < nd && k < sizeof c->problem_size; i++) {
            const CutuneJv *d = v->type == CUTUNE_JV_ARRAY ? &v->items[i] : v;
            if (d->type != CUTUNE_JV_NUMBER || !d->is_integer) {
                c->problem_size[0] = '\0';
                break;
            }
            k += (size_t)snprintf(c->problem_size + k, sizeof c->problem_size - k, "%s%lld",
                                  i ? "x" : "", (long long)d->integer);
        }
    }
    c->nparams = keys->n;
    c->params = calloc(c->nparams, sizeof *c->params);
    c->integer = calloc(c->nparams, sizeof *c->integer);
    if (!c->params || !c->integer)
        return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory reading %s", c->path);
    for (size_t j = 0; j < c->nparams; j++) {
        const CutuneJv *k = &keys->items[j];
        if (k->type != CUTUNE_JV_STRING || !k->string[0] || strlen(k->string) >= CUTUNE_NAME_MAX)
            return kt_fail(c, err, k->line,
                           "tune_params_keys holds something that is not a "
                           "parameter name%s%s",
                           "", "");
        snprintf(c->params[j], CUTUNE_NAME_MAX, "%s", k->string);
        values[j] = cutune_jv_get(params, k->string);
        if (!values[j] || values[j]->type != CUTUNE_JV_ARRAY || values[j]->n == 0)
            return kt_fail(c, err, params->line,
                           "tune_params has no list of values for "
                           "parameter %s%s",
                           k->string, help_version);
        c->integer[j] = 1;
        for (size_t i = 0; i < values[j]->n; i++)
            c->integer[j] &= values[j]->items[i].type == CUTUNE_JV_NUMBER &&
                             values[j]->items[i].is_integer;
    }
    return 0;
}

static void times_stats(const CutuneJv *times, CutuneKtEntry *e)
{
    double sum = 0, sq = 0;
    int n = 0;
    e->min_ms = 0;
    for (size_t i = 0; times && times->type == CUTUNE_JV_ARRAY && i < times->n; i++) {
        const CutuneJv *t = &times->items[i];
        if (t->type != CUTUNE_JV_NUMBER || !isfinite(t->number))
            continue;
        e->min_ms = n == 0 || t->number < e->min_ms ? t->number : e->min_ms;
        sum += t->number;
        sq += t->number * t->number;
        n++;
    }
    e->samples = n;
    e->mean_ms = n ? sum / n : e->time_ms;
    e->stddev_ms = n > 1 ? sqrt(fmax(0, (sq - sum * sum / n) / (n - 1))) : 0;
    if (n == 0)
        e->min_ms = e->time_ms;
}

static double number_of(const CutuneJv *entry, const char *key)
{
    const CutuneJv *v = cutune_jv_get(entry, key);
    return v && v->type == CUTUNE_JV_NUMBER && isfinite(v->number) ? v->number : 0;
}

static int read_entry(CutuneKtCache *c, const CutuneJv *const *values, const char *key,
                      const CutuneJv *entry, CutuneKtEntry *e, CutuneError *err)
{
    e->key = key;
    e->line = entry->line;
    if (entry->type != CUTUNE_JV_OBJECT)
        return kt_fail(c, err, entry->line, "cache entry \"%s\" is not an object%s", key,
                       help_version);
    for (size_t j = 0; j < c->nparams; j++) {
        const CutuneJv *v = cutune_jv_get(entry, c->params[j]);
        if (!v)
            return kt_fail(c, err, entry->line,
                           "cache entry \"%s\" has no value for parameter "
                           "%s",
                           key, c->params[j]);
        size_t i = 0;
        while (i < values[j]->n && !same_value(&values[j]->items[i], v))
            i++;
        if (i == values[j]->n) {
            char text[256];
            scalar_text(v, text, sizeof text);
            return kt_fail(c, err, v->line,
                           "cache entry \"%s\": %s is not one of the values "
                           "tune_params lists for its parameter",
                           key, text);
        }
        e->values[j] = c->integer[j] ? v->integer : (int64_t)i;
    }
    /* a failure is named by any member, as Kernel Tuner reads it */
    int failed = -1;
    for (size_t m = 0; m < entry->n && failed < 0; m++)
        for (size_t k = 0;
             entry->items[m].type == CUTUNE_JV_STRING && k < sizeof kt_errors / sizeof kt_errors[0];
             k++)
            if (strcmp(entry->items[m].string, kt_errors[k].name) == 0)
                failed = (int)kt_errors[k].status;
    const CutuneJv *t = cutune_jv_get(entry, "time");
    if (failed >= 0) {
        e->status = (CutuneStatus)failed;
    } else if (!t) {
        return kt_fail(c, err, entry->line, "cache entry \"%s\" has no \"time\"%s", key,
                       help_version);
    } else if (t->type != CUTUNE_JV_NUMBER) {
        char text[256];
        scalar_text(t, text, sizeof text);
        return kt_fail(c, err, t->line,
                       "cache entry \"%s\": its time '%s' is neither a number "
                       "of milliseconds nor " KT_ERROR_NAMES,
                       key, text);
    } else if (!isfinite(t->number) || t->number <= 0 || t->number >= 1e20) {
        e->status = CUTUNE_STATUS_LAUNCH_ERROR; /* Kernel Tuner's old marks of a failure */
    } else {
        e->status = CUTUNE_STATUS_OK;
        e->time_ms = t->number;
        times_stats(cutune_jv_get(entry, "times"), e);
    }
    e->compile_ms = number_of(entry, "compile_time");
    e->measure_ms = number_of(entry, "benchmark_time");
    e->gflops = number_of(entry, "GFLOP/s");
    e->gbps = number_of(entry, "GB/s");
    return 0;
}

int cutune_kt_load(const char *path, CutuneKtCache *c, CutuneError *err)
{
    memset(c, 0, sizeof *c);
    snprintf(c->path, sizeof c->path, "%s", path);
    char *text = NULL;
    size_t len = 0;
    const CutuneJv **values = NULL;
    CutuneJv *root = NULL;
    int rc = read_cache_text(path, &text, &len, err);
    if (rc || (rc = cutune_jv_parse(text, len, path, &root, err)))
        goto out;
    c->root = root;
    const CutuneJv *keys = cutune_jv_get(root, "tune_params_keys");
    if (!(values = calloc(keys && keys->type == CUTUNE_JV_ARRAY && keys->n ? keys->n : 1,
                          sizeof *values))) {
        rc = cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory reading %s", path);
        goto out;
    }
    if ((rc = read_header(c, root, values, err)))
        goto out;
    const CutuneJv *cache = cutune_jv_get(root, "cache");
    c->n = cache->n;
    c->e = calloc(c->n ? c->n : 1, sizeof *c->e);
    int64_t *vals = c->n ? calloc(c->n * c->nparams, sizeof *vals) : NULL;
    if (!c->e || (c->n && !vals)) {
        free(vals);
        rc = cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory reading %s", path);
        goto out;
    }
    for (size_t i = 0; i < c->n; i++) {
        c->e[i].values = vals + i * c->nparams;
        if ((rc = read_entry(c, values, cache->keys[i], &cache->items[i], &c->e[i], err)))
            goto out;
        if (c->e[i].status == CUTUNE_STATUS_OK) {
            if (c->nok == 0 || c->e[i].time_ms < c->best_ms) {
                c->best_ms = c->e[i].time_ms;
                c->best = i;
            }
            c->nok++;
        }
    }
    if (c->n == 0)
        rc = kt_fail(c, err, cache->line, "the cache holds no config%s%s", "", "");
out:
    free(values);
    free(text);
    if (rc)
        cutune_kt_free(c);
    return rc;
}

void cutune_kt_free(CutuneKtCache *c)
{
    if (c->e && c->n)
        free(c->e[0].values);
    free(c->e);
    free(c->params);
    free(c->integer);
    cutune_jv_free(c->root);
    memset(c, 0, sizeof *c);
}

int cutune_kt_match_space(const CutuneKtCache *c, const CutuneSpace *s, size_t *map,
                          CutuneError *err)
{
    int ok = c->nparams == s->nparams;
    for (size_t j = 0; ok && j < s->nparams; j++) {
        size_t i = 0;
        while (i < c->nparams && strcmp(c->params[i], s->params[j].name) != 0)
            i++;
        ok = i < c->nparams && c->integer[i];
        map[j] = i;
    }
    if (ok)
        return 0;
    char have[1024] = "", want[1024] = "";
    size_t h = 0, w = 0;
    for (size_t i = 0; i < c->nparams && h < sizeof have; i++)
        h += (size_t)snprintf(have + h, sizeof have - h, "%s%s%s", i ? ", " : "", c->params[i],
                              c->integer[i] ? "" : " (not integers)");
    for (size_t j = 0; j < s->nparams && w < sizeof want; j++)
        w += (size_t)snprintf(want + w, sizeof want - w, "%s%s", j ? ", " : "", s->params[j].name);
    return cutune_error(err, CUTUNE_ERR_INVALID,
                        "%s: its parameters (%s) are not those of variant %s's space %s (%s)",
                        c->path, have, s->variant ? s->variant : "?", s->path, want);
}

static const char *kt_error_name(CutuneStatus s)
{
    switch (s) {
    case CUTUNE_STATUS_SKIPPED_RESOURCES: return "InvalidConfig";
    case CUTUNE_STATUS_COMPILE_ERROR: return "CompilationFailedConfig";
    default: return "RuntimeFailedConfig";
    }
}

int cutune_kt_write(FILE *f, const char *device_name, const char *kernel_name,
                    const CutuneProblem *size, const CutuneSpace *space, const CutuneKtOut *out,
                    size_t n, CutuneError *err)
{
    CutuneJson j;
    cutune_json_init(&j, f, 2);
    cutune_json_begin_object(&j);
    cutune_json_key(&j, "device_name");
    cutune_json_string(&j, device_name);
    cutune_json_key(&j, "kernel_name");
    cutune_json_string(&j, kernel_name);
    cutune_json_key(&j, "problem_size");
    if (size->ndims == 1) {
        cutune_json_int(&j, size->dim[0]);
    } else {
        cutune_json_begin_array(&j);
        for (int d = 0; d < size->ndims; d++)
            cutune_json_int(&j, size->dim[d]);
        cutune_json_end_array(&j);
    }
    cutune_json_key(&j, "tune_params_keys");
    cutune_json_begin_array(&j);
    for (size_t p = 0; p < space->nparams; p++)
        cutune_json_string(&j, space->params[p].name);
    cutune_json_end_array(&j);
    cutune_json_key(&j, "tune_params");
    cutune_json_begin_object(&j);
    for (size_t p = 0; p < space->nparams; p++) {
        cutune_json_key(&j, space->params[p].name);
        cutune_json_begin_array(&j);
        for (size_t v = 0; v < space->params[p].nvalues; v++)
            cutune_json_int(&j, space->params[p].values[v]);
        cutune_json_end_array(&j);
    }
    cutune_json_end_object(&j);
    cutune_json_key(&j, "objective");
    cutune_json_begin_array(&j);
    cutune_json_string(&j, "time");
    cutune_json_end_array(&j);
    cutune_json_key(&j, "cache");
    cutune_json_begin_object(&j);
    for (size_t i = 0; i < n; i++) {
        const CutuneKtOut *o = &out[i];
        char key[1024];
        size_t k = 0;
        key[0] = '\0';
        for (size_t p = 0; p < space->nparams && k < sizeof key; p++)
            k += (size_t)snprintf(key + k, sizeof key - k, "%s%lld", p ? "," : "",
                                  (long long)o->values[p]);
        cutune_json_key(&j, key);
        cutune_json_begin_object(&j);
        for (size_t p = 0; p < space->nparams; p++) {
            cutune_json_key(&j, space->params[p].name);
            cutune_json_int(&j, o->values[p]);
        }
        cutune_json_key(&j, "time");
        if (o->status == CUTUNE_STATUS_OK)
            cutune_json_number(&j, o->median_ms);
        else
            cutune_json_string(&j, kt_error_name(o->status));
        if (o->status == CUTUNE_STATUS_OK) {
            /* cutune keeps the samples' statistics, not the samples: the median stands for
             * them, so that Kernel Tuner's mean of "times" is cutune's time */
            cutune_json_key(&j, "times");
            cutune_json_begin_array(&j);
            cutune_json_number(&j, o->median_ms);
            cutune_json_end_array(&j);
            if (o->gflops > 0) {
                cutune_json_key(&j, "GFLOP/s");
                cutune_json_number(&j, o->gflops);
            }
        }
        cutune_json_key(&j, "compile_time");
        cutune_json_number(&j, o->compile_ms);
        cutune_json_key(&j, "verification_time");
        cutune_json_number(&j, 0);
        cutune_json_key(&j, "benchmark_time");
        cutune_json_number(&j, o->measure_ms);
        if (o->created_at && o->created_at[0]) {
            cutune_json_key(&j, "timestamp");
            char ts[64];
            snprintf(ts, sizeof ts, "%s+00:00", o->created_at);
            cutune_json_string(&j, ts);
        }
        cutune_json_end_object(&j);
    }
    cutune_json_end_object(&j);
    cutune_json_end_object(&j);
    int rc = cutune_json_finish(&j);
    return rc ? cutune_error(err, rc, "writing the Kernel Tuner cache failed") : 0;
}
