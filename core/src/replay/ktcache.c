/* Kernel Tuner's cache files (see ktcache.h). */
#include "ktcache.h"
#include "json.h"
#include "jsonread.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
    static const char what[] = "a Kernel Tuner cache file",
                      fix[] = "give the path of the JSON file that tune_kernel(cache=...) wrote";
    struct stat st;
    /* checked before the open, as a database is (cutune_db_file_check): opening a FIFO for
     * reading waits for a writer */
    if (stat(path, &st) != 0)
        return cutune_error(err, errno == ENOENT ? CUTUNE_ERR_NOT_FOUND : CUTUNE_ERR_IO,
                            "cannot open %s: %s", path, strerror(errno));
    int code = cutune_check_regular(path, &st, CUTUNE_ERR_IO, what, fix, err);
    if (code)
        return code;
    /* O_NONBLOCK: a FIFO put in its place since does not hang the open either */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return cutune_error(err, CUTUNE_ERR_IO, "cannot open %s: %s", path, strerror(errno));
    FILE *f = NULL;
    if (fstat(fd, &st) != 0 ||
        (code = cutune_check_regular(path, &st, CUTUNE_ERR_IO, what, fix, err)) != 0 ||
        !(f = fdopen(fd, "rb"))) {
        close(fd);
        return code ? code : cutune_error(err, CUTUNE_ERR_IO, "reading %s failed", path);
    }
    char *buf = NULL;
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

/* A float as Python's str() writes it (the shortest text that reads back the same,
 * positional from 1e-4 to 1e16, with ".0" when it is whole): Kernel Tuner's cache keys are
 * written so. */
static void py_float(double x, char *buf, size_t len)
{
    if (isnan(x) || isinf(x)) {
        snprintf(buf, len, "%s", isnan(x) ? "nan" : x < 0 ? "-inf" : "inf");
        return;
    }
    char e[48], digits[24], out[64];
    int p = 1;
    for (; p < 17; p++) {
        snprintf(e, sizeof e, "%.*e", p - 1, x);
        if (strtod(e, NULL) == x)
            break;
    }
    if (p == 17)
        snprintf(e, sizeof e, "%.16e", x);
    const char *m = e + (e[0] == '-');
    size_t nd = 0;
    for (; *m && *m != 'e' && nd + 1 < sizeof digits; m++)
        if (*m != '.')
            digits[nd++] = *m;
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    digits[nd] = '\0';
    int exp = *m == 'e' ? atoi(m + 1) : 0;
    size_t k = 0;
    if (e[0] == '-')
        out[k++] = '-';
    if (exp >= 16 || exp < -4) {
        k += (size_t)snprintf(out + k, sizeof out - k, "%c%s%s", digits[0], nd > 1 ? "." : "",
                              digits + 1);
        snprintf(out + k, sizeof out - k, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
    } else if (exp >= 0) {
        for (int i = 0; i <= exp; i++)
            out[k++] = (size_t)i < nd ? digits[i] : '0';
        snprintf(out + k, sizeof out - k, ".%s", nd > (size_t)exp + 1 ? digits + exp + 1 : "0");
    } else {
        k += (size_t)snprintf(out + k, sizeof out - k, "0.");
        for (int i = 0; i < -exp - 1; i++)
            out[k++] = '0';
        snprintf(out + k, sizeof out - k, "%s", digits);
    }
    snprintf(buf, len, "%s", out);
}

/* A value of tune_params as Python's str() writes it; a string is itself. */
static const char *py_str(const CutuneJv *v, char *buf, size_t len)
{
    if (v->type == CUTUNE_JV_STRING)
        return v->string;
    if (v->type == CUTUNE_JV_NUMBER && v->is_integer)
        snprintf(buf, len, "%lld", (long long)v->integer);
    else if (v->type == CUTUNE_JV_NUMBER)
        py_float(v->number, buf, len);
    else if (v->type == CUTUNE_JV_BOOL)
        snprintf(buf, len, "%s", v->boolean ? "True" : "False");
    else
        snprintf(buf, len, "%s", v->type == CUTUNE_JV_NULL ? "None" : "?");
    return buf;
}

/* The key Kernel Tuner files these values under (tune_params' values at idx[], in order,
 * joined with ","), into buf; 1 when it is `key`. */
static int kt_key(const CutuneJv *const *values, const size_t *idx, size_t n, const char *key,
                  char *buf, size_t len)
{
    const char *p = key;
    size_t k = 0;
    int same = 1;
    buf[0] = '\0';
    for (size_t j = 0; j < n; j++) {
        char num[64];
        const char *text = py_str(&values[j]->items[idx[j]], num, sizeof num);
        size_t tl = strlen(text);
        if (k < len)
            k += (size_t)snprintf(buf + k, len - k, "%s%s", j ? "," : "", text);
        if (same && j && *p++ != ',')
            same = 0;
        if (same && strncmp(p, text, tl) != 0)
            same = 0;
        p += same ? tl : 0;
    }
    return same && *p == '\0';
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
                      const CutuneJv *entry, CutuneKtEntry *e, size_t *idx, CutuneError *err)
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
        /* the listed value: an entry's 64.0 is tune_params' 64 */
        e->values[j] = c->integer[j] ? values[j]->items[i].integer : (int64_t)i;
        idx[j] = i;
    }
    char want[512];
    if (!kt_key(values, idx, c->nparams, key, want, sizeof want))
        return cutune_error(err, CUTUNE_ERR_PARSE,
                            "%s:%d: cache entry \"%.200s\" holds the values that Kernel Tuner "
                            "files under the key \"%.200s\": the key or the values were changed, "
                            "and which config was measured cannot be told; nothing was imported",
                            c->path, entry->line, key, want);
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

typedef struct KeyAt {
    const char *key;
    size_t i;
} KeyAt;

static int cmp_key_at(const void *a, const void *b)
{
    const KeyAt *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : x->i < y->i ? -1 : x->i > y->i;
}

/* One entry per key, the last of each, in the file's order (a key that comes again is one
 * config measured again: Kernel Tuner's JSON reader keeps the last). */
static int drop_duplicates(CutuneKtCache *c, CutuneError *err)
{
    KeyAt *k = cutune_malloc_array(c->n, sizeof *k);
    char *drop = calloc(c->n, 1);
    if (!k || !drop) {
        free(k);
        free(drop);
        return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory reading %s", c->path);
    }
    for (size_t i = 0; i < c->n; i++)
        k[i] = (KeyAt){c->e[i].key, i};
    qsort(k, c->n, sizeof *k, cmp_key_at);
    for (size_t i = 0; i + 1 < c->n; i++)
        if (strcmp(k[i].key, k[i + 1].key) == 0)
            drop[k[i].i] = 1;
    size_t w = 0;
    for (size_t i = 0; i < c->n; i++)
        if (!drop[i])
            c->e[w++] = c->e[i];
    c->duplicates = c->n - w;
    c->n = w;
    free(k);
    free(drop);
    return 0;
}

int cutune_kt_load(const char *path, CutuneKtCache *c, CutuneError *err)
{
    memset(c, 0, sizeof *c);
    snprintf(c->path, sizeof c->path, "%s", path);
    char *text = NULL;
    size_t len = 0, *idx = NULL;
    const CutuneJv **values = NULL;
    CutuneJv *root = NULL;
    int rc = read_cache_text(path, &text, &len, err);
    if (rc || (rc = cutune_jv_parse(text, len, path, &root, err)))
        goto out;
    c->root = root;
    const CutuneJv *keys = cutune_jv_get(root, "tune_params_keys");
    size_t nkeys = keys && keys->type == CUTUNE_JV_ARRAY && keys->n ? keys->n : 1;
    if (!(values = calloc(nkeys, sizeof *values)) || !(idx = calloc(nkeys, sizeof *idx))) {
        rc = cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory reading %s", path);
        goto out;
    }
    c->tune_values = values;
    if ((rc = read_header(c, root, values, err)))
        goto out;
    const CutuneJv *cache = cutune_jv_get(root, "cache");
    c->n = cache->n;
    c->e = calloc(c->n ? c->n : 1, sizeof *c->e);
    size_t cells = 0;
    if (cutune_size_mul(c->n, c->nparams, &cells) == 0 && cells)
        c->values = cutune_malloc_array(cells, sizeof *c->values);
    if (!c->e || (cells && !c->values)) {
        rc = cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory reading %s", path);
        goto out;
    }
    for (size_t i = 0; i < c->n; i++) {
        c->e[i].values = c->values + i * c->nparams;
        if ((rc = read_entry(c, values, cache->keys[i], &cache->items[i], &c->e[i], idx, err)))
            goto out;
    }
    if (c->n == 0) {
        rc = kt_fail(c, err, cache->line, "the cache holds no config%s%s", "", "");
        goto out;
    }
    if ((rc = drop_duplicates(c, err)))
        goto out;
    for (size_t i = 0; i < c->n; i++) {
        if (c->e[i].status != CUTUNE_STATUS_OK)
            continue;
        if (c->nok == 0 || c->e[i].time_ms < c->best_ms) {
            c->best_ms = c->e[i].time_ms;
            c->best = i;
        }
        c->nok++;
    }
out:
    free(idx);
    free(text);
    if (rc)
        cutune_kt_free(c);
    return rc;
}

void cutune_kt_free(CutuneKtCache *c)
{
    free(c->values);
    free(c->e);
    free(c->params);
    free(c->integer);
    free(c->tune_values);
    cutune_jv_free(c->root);
    memset(c, 0, sizeof *c);
}

/* Rows of [n, the entry's values of the space's n parameters, the entry's index], in the
 * order of the values: the entries of one config of the space side by side. */
static int cmp_row(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    for (int64_t j = 1; j <= x[0] + 1; j++)
        if (x[j] != y[j])
            return x[j] < y[j] ? -1 : 1;
    return 0;
}

/* The value of parameter p of an entry, as text. */
static void value_text(const CutuneKtCache *c, size_t p, const CutuneKtEntry *e, char *buf,
                       size_t len)
{
    char num[64];
    if (c->integer[p])
        snprintf(buf, len, "%lld", (long long)e->values[p]);
    else
        snprintf(buf, len, "%s", py_str(&c->tune_values[p]->items[e->values[p]], num, sizeof num));
}

/* The cache's parameters that the space lacks: each must have one value per config of the
 * space; they are named into ignored. */
static int check_extras(const CutuneKtCache *c, const CutuneSpace *s, const size_t *map,
                        const char *names, char *ignored, size_t len, CutuneError *err)
{
    size_t ns = s->nparams, width = ns + 2, k = 0, cells;
    char *used = calloc(c->nparams, 1);
    int64_t *rows = cutune_size_mul(c->n, width, &cells) == 0
                        ? cutune_malloc_array(cells, sizeof *rows)
                        : NULL;
    int rc = 0;
    if (!used || !rows) {
        rc = cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
        goto out;
    }
    for (size_t j = 0; j < ns; j++)
        used[map[j]] = 1;
    for (size_t i = 0; i < c->n; i++) {
        int64_t *r = rows + i * width;
        r[0] = (int64_t)ns;
        for (size_t j = 0; j < ns; j++)
            r[1 + j] = c->e[i].values[map[j]];
        r[ns + 1] = (int64_t)i;
    }
    qsort(rows, c->n, width * sizeof *rows, cmp_row);
    for (size_t p = 0; p < c->nparams && rc == 0; p++) {
        if (used[p])
            continue;
        int constant = 1;
        for (size_t i = 0; i < c->n; i++)
            constant &= c->e[i].values[p] == c->e[0].values[p];
        for (size_t i = 1; i < c->n && rc == 0; i++) {
            const int64_t *ra = rows + (i - 1) * width, *rb = rows + i * width;
            const CutuneKtEntry *a = &c->e[ra[ns + 1]], *b = &c->e[rb[ns + 1]];
            if (memcmp(ra + 1, rb + 1, ns * sizeof *ra) == 0 && a->values[p] != b->values[p])
                rc = cutune_error(err, CUTUNE_ERR_INVALID,
                                  "%s: parameter %s is not one of variant %s's space %s (%s), "
                                  "and the space does not determine it: cache keys \"%s\" and "
                                  "\"%s\" are one config of the space with two values of %s. "
                                  "The cache tunes what the space does not",
                                  c->path, c->params[p], s->variant ? s->variant : "?", s->path,
                                  names, a->key, b->key, c->params[p]);
        }
        char v[128];
        value_text(c, p, &c->e[0], v, sizeof v);
        if (rc == 0 && ignored && k < len)
            k += (size_t)snprintf(ignored + k, len - k, "%s%s (%s%s)", k ? ", " : "", c->params[p],
                                  constant ? "always " : "a function of ", constant ? v : names);
    }
out:
    free(used);
    free(rows);
    return rc;
}

int cutune_kt_match_space(const CutuneKtCache *c, const CutuneSpace *s, size_t *map, char *ignored,
                          size_t len, CutuneError *err)
{
    if (ignored && len)
        ignored[0] = '\0';
    int ok = c->nparams >= s->nparams;
    for (size_t j = 0; ok && j < s->nparams; j++) {
        size_t i = 0;
        while (i < c->nparams && strcmp(c->params[i], s->params[j].name) != 0)
            i++;
        ok = i < c->nparams && c->integer[i];
        map[j] = i;
    }
    char have[1024] = "", want[1024] = "";
    size_t h = 0, w = 0;
    for (size_t j = 0; j < s->nparams && w < sizeof want; j++)
        w += (size_t)snprintf(want + w, sizeof want - w, "%s%s", j ? ", " : "", s->params[j].name);
    if (ok)
        return c->nparams > s->nparams ? check_extras(c, s, map, want, ignored, len, err) : 0;
    for (size_t i = 0; i < c->nparams && h < sizeof have; i++)
        h += (size_t)snprintf(have + h, sizeof have - h, "%s%s%s", i ? ", " : "", c->params[i],
                              c->integer[i] ? "" : " (not integers)");
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
