/* The registry: the plugin path and the space path, searched in order (registry.h). */
#include "registry.h"
#include "util.h"

#include <dirent.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- the registry ---- */

static int note(CutuneRegistryNote **list, size_t *n, const char *path, const char *text,
                const char *op, int is_variant)
{
    CutuneRegistryNote *x = realloc(*list, (*n + 1) * sizeof *x);
    if (!x)
        return CUTUNE_ERR_NOMEM;
    *list = x;
    memset(&x[*n], 0, sizeof x[*n]);
    x[*n].path = strdup(path);
    x[*n].text = strdup(text);
    x[*n].op = op ? strdup(op) : NULL;
    x[*n].is_variant = is_variant;
    if (!x[*n].path || !x[*n].text || (op && !x[*n].op)) {
        free(x[*n].path);
        free(x[*n].text);
        free(x[*n].op);
        return CUTUNE_ERR_NOMEM;
    }
    (*n)++;
    return 0;
}

static int reject(CutuneRegistry *r, const char *path, const char *why)
{
    return note(&r->rejected, &r->nrejected, path, why, NULL, 0);
}

/* A refused INI, and the op it names if it got that far. */
static int reject_variant(CutuneRegistry *r, const char *path, const char *why, const char *op)
{
    return note(&r->rejected, &r->nrejected, path, why, op, 1);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The files of a folder ending in `suffix`, sorted (a stable order: the same registry on
 * every run). */
static size_t list_files(const char *dir, const char *suffix, char ***out)
{
    *out = NULL;
    DIR *d = opendir(dir);
    if (!d)
        return 0; /* a folder in the search path that does not exist is not an error */
    char **names = NULL;
    size_t n = 0, sl = strlen(suffix);
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len <= sl || strcmp(e->d_name + len - sl, suffix) != 0 || e->d_name[0] == '.')
            continue;
        char **grown = realloc(names, (n + 1) * sizeof *grown);
        if (!grown)
            break;
        names = grown;
        if ((names[n] = malloc(strlen(dir) + len + 2))) {
            sprintf(names[n], "%s/%s", dir, e->d_name);
            n++;
        }
    }
    closedir(d);
    if (n > 1) /* a stable order: the same registry on every run (qsort takes no NULL array) */
        qsort(names, n, sizeof *names, cmp_str);
    *out = names;
    return n;
}

const CutuneVariantDef *cutune_registry_find(const CutuneRegistry *r, const char *variant)
{
    for (size_t i = 0; i < r->nvariants; i++)
        if (strcmp(r->variants[i]->name, variant) == 0)
            return r->variants[i];
    return NULL;
}

const CutuneOpDef *cutune_registry_op(const CutuneRegistry *r, const char *op)
{
    for (size_t i = 0; i < r->nops; i++)
        if (strcmp(r->ops[i]->op->name, op) == 0)
            return r->ops[i];
    return NULL;
}

size_t cutune_registry_variants_of(const CutuneRegistry *r, const char *op, const char *variant,
                                   const CutuneVariantDef **out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < r->nvariants && n < max; i++) {
        const CutuneVariantDef *v = r->variants[i];
        if (strcmp(v->op_name, op) == 0 && (!variant || strcmp(v->name, variant) == 0))
            out[n++] = v;
    }
    return n;
}

void cutune_registry_op_names(const CutuneRegistry *r, char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t i = 0; i < r->nops; i++) {
        const char *name = r->ops[i]->op->name;
        int seen = 0;
        for (size_t j = 0; j < i; j++)
            seen |= strcmp(r->ops[j]->op->name, name) == 0;
        if (seen)
            continue;
        strncat(buf, *buf ? ", " : "", len - strlen(buf) - 1);
        strncat(buf, name, len - strlen(buf) - 1);
    }
}

static int add_op(CutuneRegistry *r, CutuneOpDef *d)
{
    CutuneOpDef *copy = malloc(sizeof *copy);
    CutuneOpDef **grown = copy ? realloc(r->ops, (r->nops + 1) * sizeof *grown) : NULL;
    if (!grown) {
        free(copy);
        return CUTUNE_ERR_NOMEM;
    }
    *copy = *d;
    if (copy->op == &d->own)
        copy->op = &copy->own;
    r->ops = grown;
    r->ops[r->nops++] = copy;
    return 0;
}

static int add_variant(CutuneRegistry *r, CutuneVariantDef *v)
{
    CutuneVariantDef *copy = malloc(sizeof *copy);
    CutuneVariantDef **grown = copy ? realloc(r->variants, (r->nvariants + 1) * sizeof *grown)
                                    : NULL;
    if (!grown) {
        free(copy);
        return CUTUNE_ERR_NOMEM;
    }
    *copy = *v;
    r->variants = grown;
    r->variants[r->nvariants++] = copy;
    return 0;
}

/* A second definition of a variant name: the first one wins. */
static int shadowed(CutuneRegistry *r, const CutuneVariantDef *winner, const char *path)
{
    char why[2 * PATH_MAX + 160];
    snprintf(why, sizeof why,
             "variant '%s' is defined by %s and by %s; %s wins (earlier on the "
             "path; C plugins come before data variants): rename one of them to keep both",
             winner->name, winner->path, path, winner->path);
    return note(&r->shadowed, &r->nshadowed, path, why, winner->op_name, 1);
}

/* Is the file <name>.ini where name is a variant of op? (It would have defined it.) */
static int names_variant_of(const CutuneRegistry *r, const char *path, const char *op)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    for (size_t i = 0; n > 4 && i < r->nvariants; i++) {
        const CutuneVariantDef *v = r->variants[i];
        if (!strcmp(v->op_name, op) && strlen(v->name) == n - 4 && !strncmp(v->name, base, n - 4))
            return 1;
    }
    return 0;
}

const CutuneRegistryNote *cutune_registry_refusal(const CutuneRegistry *r, const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; i < r->nrejected; i++) {
        const char *base = strrchr(r->rejected[i].path, '/');
        base = base ? base + 1 : r->rejected[i].path;
        if (!strncmp(base, name, n) && (!strcmp(base + n, ".ini") || !strcmp(base + n, ".so")))
            return &r->rejected[i];
    }
    return NULL;
}

/* Where a file comes in the order the registry loads files: the plugin path's folders, then
 * the space path's (SIZE_MAX for a file in neither). */
static size_t path_rank(const CutuneRegistry *r, const char *path)
{
    size_t n = strlen(path);
    int so = n > 3 && !strcmp(path + n - 3, ".so");
    char *const *dirs = so ? r->plugin_dirs : r->space_dirs;
    size_t ndirs = so ? r->nplugin_dirs : r->nspace_dirs;
    for (size_t i = 0; i < ndirs; i++) {
        size_t len = strlen(dirs[i]);
        if (!strncmp(path, dirs[i], len) && path[len] == '/' && !strchr(path + len + 1, '/'))
            return (so ? 0 : r->nplugin_dirs) + i;
    }
    return SIZE_MAX;
}

const CutuneRegistryNote *cutune_registry_blocked(const CutuneRegistry *r,
                                                  const CutuneVariantDef *v)
{
    const CutuneRegistryNote *x = cutune_registry_refusal(r, v->name);
    return x && path_rank(r, x->path) <= path_rank(r, v->path) ? x : NULL;
}

/* Could a refused file be a variant of op? It names the op, or could not be read far enough
 * to say, or has the file name of one of the op's variants. */
static int may_be_of(const CutuneRegistry *r, const CutuneRegistryNote *x, const char *op)
{
    return x->is_variant && (!x->op || !strcmp(x->op, op) || names_variant_of(r, x->path, op));
}

int cutune_registry_vet_op(const CutuneRegistry *r, const char *op, const char *variant, FILE *log,
                           size_t *refused, CutuneError *err)
{
    *refused = 0;
    for (size_t i = 0; log && i < r->nshadowed; i++)
        if (r->shadowed[i].op && !strcmp(r->shadowed[i].op, op))
            fprintf(log, "note: %s\n", r->shadowed[i].text);
    const CutuneVariantDef *named = variant ? cutune_registry_find(r, variant) : NULL;
    const CutuneRegistryNote *meant = named ? cutune_registry_blocked(r, named) : NULL;
    if (meant && may_be_of(r, meant, op))
        return cutune_error(err, CUTUNE_ERR_PARSE,
                            "the variant file that may be variant %s of op %s was refused; fix it "
                            "or move it off the space path:\n  %s",
                            variant, op, meant->text);
    if (variant)
        return 0; /* the others are not run */
    size_t runnable = 0;
    for (size_t i = 0; i < r->nvariants; i++)
        runnable += !strcmp(r->variants[i]->op_name, op) &&
                    !cutune_registry_blocked(r, r->variants[i]);
    char list[3000] = "";
    size_t n = 0;
    for (size_t i = 0; i < r->nrejected; i++) {
        const CutuneRegistryNote *x = &r->rejected[i];
        if (!may_be_of(r, x, op))
            continue;
        n++;
        if (runnable && log)
            fprintf(log,
                    "note: a variant file that may belong to op %s was refused, and is left out "
                    "of this run (the other variants are tuned): %s\n",
                    op, x->text);
        strncat(list, "\n  ", sizeof list - strlen(list) - 1);
        strncat(list, x->text, sizeof list - strlen(list) - 1);
    }
    *refused = n;
    if (n == 0 || runnable)
        return 0;
    return cutune_error(err, CUTUNE_ERR_PARSE,
                        "%zu variant file%s that may belong to op %s %s refused, and no other "
                        "variant of it is left to tune; fix %s or move %s off the space path:%s",
                        n, n == 1 ? "" : "s", op, n == 1 ? "was" : "were", n == 1 ? "it" : "them",
                        n == 1 ? "it" : "them", list);
}

/* A C variant plugin joins the registry with the contract of its op: an op plugin's (its
 * dimensions must agree), or its own when no op plugin provides the op. */
static int add_variant_plugin(CutuneRegistry *r, CutuneVariantDef *v)
{
    const CutuneVariantDef *prev = cutune_registry_find(r, v->name);
    int rc = 0;
    if (prev) {
        rc = shadowed(r, prev, v->path);
        goto drop;
    }
    const CutuneOpDef *op = NULL;
    for (size_t i = 0; i < r->nops && !op; i++) /* op plugins, not another plugin's contract */
        if (r->ops[i]->handle && strcmp(r->ops[i]->op->name, v->op_name) == 0)
            op = r->ops[i];
    CutuneError e = {0};
    if (op && strcmp(op->op->dim_names, v->v->dim_names) != 0) {
        cutune_error(&e, CUTUNE_ERR_PLUGIN,
                     "%s: variant %s of op %s claims the dimensions \"%s\", but op %s (%s) has "
                     "\"%s\"; set .dim_names = \"%s\"",
                     v->path, v->name, v->op_name, v->v->dim_names, op->op->name, op->path,
                     op->op->dim_names, op->op->dim_names);
        rc = reject(r, v->path, e.msg);
        goto drop;
    }
    if (!op) {
        CutuneOpDef own;
        memset(&own, 0, sizeof own);
        if (cutune_op_from_variant(v->path, v->v, &own, &e) != 0) {
            free(own.path);
            rc = reject(r, v->path, e.msg);
            goto drop;
        }
        if ((rc = add_op(r, &own))) {
            free(own.path);
            goto drop;
        }
        op = r->ops[r->nops - 1];
    }
    v->op = op;
    if (cutune_variant_plugin_kinds(v, r->space_dirs, r->nspace_dirs, &e) != 0) {
        rc = reject(r, v->path, e.msg);
        goto drop;
    }
    if ((rc = add_variant(r, v)) == 0)
        return 0;
drop:
    cutune_variant_close(v);
    return rc;
}

static int exports_op(const char *path)
{
    void *h;
    void (*entry)(void);
    if (cutune_plugin_dlopen(path, CUTUNE_OP_SYMBOL, &h, &entry, NULL))
        return 0;
    dlclose(h);
    return entry != NULL;
}

static int load_plugin_dir(CutuneRegistry *r, const char *dir, CutuneVariantDef **pending,
                           size_t *npending)
{
    char **files = NULL;
    size_t n = list_files(dir, ".so", &files);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        CutuneError e = {0};
        struct stat st;
        if (stat(files[i], &st) != 0 || !S_ISREG(st.st_mode)) { /* dlopen would block on a FIFO */
            rc = reject(r, files[i],
                        "it is not a regular file (a FIFO, a device or a folder), "
                        "so not a plugin; remove it or rename it");
            continue;
        }
        if (exports_op(files[i])) {
            CutuneOpDef op;
            const CutuneOpDef *prev;
            if (cutune_op_open(files[i], &op, &e) != 0) {
                rc = reject(r, files[i], e.msg);
            } else if ((prev = cutune_registry_op(r, op.op->name))) {
                char why[2 * PATH_MAX + 96];
                snprintf(why, sizeof why,
                         "op '%s' is already provided by %s; this file is not "
                         "used",
                         op.op->name, prev->path);
                cutune_op_close(&op);
                rc = reject(r, files[i], why);
            } else if ((rc = add_op(r, &op))) {
                cutune_op_close(&op);
            }
            continue;
        }
        CutuneVariantDef v;
        if (cutune_variant_plugin_open(files[i], &v, &e) != 0) {
            rc = reject(r, files[i], e.msg);
            continue;
        }
        CutuneVariantDef *grown = realloc(*pending, (*npending + 1) * sizeof *grown);
        if (!grown) {
            cutune_variant_close(&v);
            rc = CUTUNE_ERR_NOMEM;
            break;
        }
        *pending = grown;
        grown[(*npending)++] = v;
    }
    for (size_t i = 0; i < n; i++)
        free(files[i]);
    free(files);
    return rc;
}

static int load_space_dir(CutuneRegistry *r, const char *dir)
{
    char **files = NULL;
    size_t n = list_files(dir, ".ini", &files);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        CutuneSpace *sp = NULL;
        CutuneError e = {0};
        if (cutune_space_peek(files[i], &sp, &e) != 0) {
            rc = reject_variant(r, files[i], e.msg, NULL);
            continue;
        }
        int line = 0;
        const char *opname = cutune_space_key(sp, "variant", "op", &line);
        if (!opname) { /* the space of a C variant plugin, read when that plugin runs */
            cutune_space_free(sp);
            continue;
        }
        const CutuneVariantDef *prev = cutune_registry_find(r, sp->variant);
        const CutuneOpDef *op = cutune_registry_op(r, opname);
        if (prev) {
            rc = shadowed(r, prev, files[i]);
        } else if (!op) {
            char ops[512];
            cutune_registry_op_names(r, ops, sizeof ops);
            cutune_error(&e, CUTUNE_ERR_NOT_FOUND,
                         "%s:%d: op '%s' is unknown; the ops are %s (cutune list); install its op "
                         "plugin or set CUTUNE_PLUGIN_PATH to its folder",
                         files[i], line, opname, *ops ? ops : "none");
            rc = reject_variant(r, files[i], e.msg, opname);
        } else {
            CutuneVariantDef v;
            if (cutune_variant_data_open(files[i], op, r->space_dirs, r->nspace_dirs, &v, &e) != 0)
                rc = reject_variant(r, files[i], e.msg, opname);
            else if ((rc = add_variant(r, &v)))
                cutune_variant_close(&v);
        }
        cutune_space_free(sp);
    }
    for (size_t i = 0; i < n; i++)
        free(files[i]);
    free(files);
    return rc;
}

int cutune_registry_load(CutuneRegistry *r, CutuneError *err)
{
    memset(r, 0, sizeof *r);
    CutuneVariantDef *pending = NULL;
    size_t npending = 0;
    int rc = cutune_plugin_dirs(&r->plugin_dirs, &r->nplugin_dirs);
    if (rc == 0)
        rc = cutune_space_dirs(&r->space_dirs, &r->nspace_dirs, NULL);
    /* every op first, so that a variant anywhere finds its op */
    for (size_t i = 0; i < r->nplugin_dirs && rc == 0; i++)
        rc = load_plugin_dir(r, r->plugin_dirs[i], &pending, &npending);
    for (size_t i = 0; i < npending; i++) {
        if (rc == 0)
            rc = add_variant_plugin(r, &pending[i]);
        else
            cutune_variant_close(&pending[i]);
    }
    free(pending);
    for (size_t i = 0; i < r->nspace_dirs && rc == 0; i++)
        rc = load_space_dir(r, r->space_dirs[i]);
    if (rc) {
        cutune_registry_free(r);
        return cutune_error(err, rc, "loading plugins and variants: %s", cutune_strerror(rc));
    }
    return 0;
}

static void notes_free(CutuneRegistryNote *list, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(list[i].path);
        free(list[i].text);
        free(list[i].op);
    }
    free(list);
}

void cutune_registry_free(CutuneRegistry *r)
{
    /* variants first: a self-contained plugin's op points into the variant's library */
    for (size_t i = 0; i < r->nvariants; i++) {
        cutune_variant_close(r->variants[i]);
        free(r->variants[i]);
    }
    for (size_t i = 0; i < r->nops; i++) {
        cutune_op_close(r->ops[i]);
        free(r->ops[i]);
    }
    free(r->variants);
    free(r->ops);
    notes_free(r->rejected, r->nrejected);
    notes_free(r->shadowed, r->nshadowed);
    cutune_path_list_free(r->plugin_dirs, r->nplugin_dirs);
    cutune_path_list_free(r->space_dirs, r->nspace_dirs);
    memset(r, 0, sizeof *r);
}
