/* Variants as data: an INI file whose [variant] names an op, and its kernel file. Opening
 * one reads the space with the op's dimensions, joins the headers and the kernel file into
 * the source NVRTC compiles, and checks what can be checked without a compiler: the kernel
 * is named in the source, the [launch] expressions compile, the default sizes are valid
 * for the op. Every message names the file, the line and a fix. */
#include "geometry.h"
#include "names.h"
#include "op_plugin.h"
#include "variant.h"
#include "variant_data.h"
#include "variant_plugin.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define SOURCE_MAX (16u << 20) /* no kernel file is this large */

static int is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* A file named in the INI: beside it, then in each folder of the space path. */
static int resolve(const char *ini, const char *name, char *const *dirs, size_t ndirs, char *buf,
                   size_t len)
{
    if (name[0] == '/')
        return (size_t)snprintf(buf, len, "%s", name) < len && is_file(buf) ? 0 : -1;
    const char *slash = strrchr(ini, '/');
    int n = slash ? snprintf(buf, len, "%.*s/%s", (int)(slash - ini), ini, name)
                  : snprintf(buf, len, "%s", name);
    if (n > 0 && (size_t)n < len && is_file(buf))
        return 0;
    for (size_t i = 0; i < ndirs; i++)
        if ((size_t)snprintf(buf, len, "%s/%s", dirs[i], name) < len && is_file(buf))
            return 0;
    return -1;
}

/* Append the whole file to *src (of *n bytes). */
static int append_file(const char *path, char **src, size_t *n, CutuneError *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return cutune_error(err, CUTUNE_ERR_IO, "cannot read %s: %s", path, strerror(errno));
    int rc = 0;
    for (;;) {
        char chunk[8192];
        size_t got = fread(chunk, 1, sizeof chunk, f);
        if (got == 0)
            break;
        if (*n + got > SOURCE_MAX) {
            rc = cutune_error(err, CUTUNE_ERR_RANGE, "%s: the kernel source passes %u bytes", path,
                              SOURCE_MAX);
            break;
        }
        char *grown = realloc(*src, *n + got + 1);
        if (!grown) {
            rc = cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
            break;
        }
        memcpy(grown + *n, chunk, got);
        *n += got;
        grown[*n] = '\0';
        *src = grown;
    }
    if (rc == 0 && ferror(f))
        rc = cutune_error(err, CUTUNE_ERR_IO, "cannot read %s: %s", path, strerror(errno));
    fclose(f);
    if (rc == 0 && memchr(*src, '\0', *n))
        rc = cutune_error(err, CUTUNE_ERR_PARSE, "%s contains a NUL byte; a kernel file is text",
                          path);
    return rc;
}

static void list_dirs(char *const *dirs, size_t ndirs, char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t i = 0; i < ndirs; i++) {
        strncat(buf, i ? ", " : "", len - strlen(buf) - 1);
        strncat(buf, dirs[i], len - strlen(buf) - 1);
    }
}

int cutune_variant_source_path(const CutuneVariantDef *v, char *const *space_dirs,
                               size_t nspace_dirs, char *buf, size_t len)
{
    if (!v->space)
        return CUTUNE_ERR_NOT_FOUND; /* a C plugin: its source is in the plugin */
    const char *source = cutune_space_key(v->space, "variant", "source", NULL);
    char def[CUTUNE_NAME_MAX + 8];
    if (!source) {
        snprintf(def, sizeof def, "%s.cu", v->name);
        source = def;
    }
    return resolve(v->path, source, space_dirs, nspace_dirs, buf, len) == 0 ? 0
                                                                            : CUTUNE_ERR_NOT_FOUND;
}

/* Headers (comma-separated), then the kernel file, into v->source. */
static int read_sources(CutuneVariantDef *v, const CutuneSpace *sp, char *const *dirs, size_t ndirs,
                        CutuneError *err)
{
    int hline = 0, sline = 0;
    const char *headers = cutune_space_key(sp, "variant", "headers", &hline);
    const char *source = cutune_space_key(sp, "variant", "source", &sline);
    char def[CUTUNE_NAME_MAX + 8];
    if (!source) {
        snprintf(def, sizeof def, "%s.cu", v->name);
        source = def;
        sline = sp->variant_line;
    }
    size_t n = 0;
    char path[PATH_MAX], where[2048];
    int rc = 0;
    char *list = headers ? strdup(headers) : NULL, *save = NULL;
    if (headers && !list)
        return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
    for (char *h = list ? strtok_r(list, ",", &save) : NULL; h && rc == 0;
         h = strtok_r(NULL, ",", &save)) {
        while (isspace((unsigned char)*h))
            h++;
        for (size_t k = strlen(h); k && isspace((unsigned char)h[k - 1]); k--)
            h[k - 1] = '\0';
        if (!*h)
            continue;
        if (resolve(sp->path, h, dirs, ndirs, path, sizeof path) != 0) {
            list_dirs(dirs, ndirs, where, sizeof where);
            rc = cutune_error(err, CUTUNE_ERR_NOT_FOUND,
                              "%s:%d: header '%s' is not beside the file nor in the space path "
                              "(%s); fix the name in headers = ..., or put the file there",
                              sp->path, hline, h, where);
            break;
        }
        rc = append_file(path, &v->source, &n, err);
    }
    free(list);
    if (rc)
        return rc;
    if (resolve(sp->path, source, dirs, ndirs, path, sizeof path) != 0) {
        list_dirs(dirs, ndirs, where, sizeof where);
        return cutune_error(err, CUTUNE_ERR_NOT_FOUND,
                            "%s:%d: kernel source '%s' is not beside the file nor in the space "
                            "path (%s); write it there, or name it with source = FILE in "
                            "[variant]",
                            sp->path, sline, source, where);
    }
    if ((rc = append_file(path, &v->source, &n, err)))
        return rc;
    if (!v->source && !(v->source = strdup("")))
        return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
    return 0;
}

/* The kernel must appear as a function in the source: "NAME(" with only space between. */
static int names_kernel(const char *src, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = strstr(src, name); p; p = strstr(p + 1, name)) {
        if (p > src && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
            continue;
        const char *q = p + n;
        while (isspace((unsigned char)*q))
            q++;
        if (*q == '(')
            return 1;
    }
    return 0;
}

/* The value of a key, copied, or `def` when absent. */
static int take(const CutuneSpace *sp, const char *key, const char *def, char **out,
                CutuneError *err)
{
    const char *v = cutune_space_key(sp, "variant", key, NULL);
    if (!(*out = strdup(v ? v : def)))
        return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
    return 0;
}

/* grid and block are required; shared (dynamic shared memory) defaults to 0. */
static int check_launch_keys(const CutuneSpace *sp, CutuneError *err)
{
    static const char *const keys[] = {"grid", "block"};
    for (size_t i = 0; i < 2; i++)
        if (!cutune_space_key(sp, "launch", keys[i], NULL))
            return cutune_error(err, CUTUNE_ERR_PARSE,
                                "%s: no [launch] %s; add a [launch] section with grid = and "
                                "block = (1 to 3 expressions each, e.g. grid = ceil_div(N, "
                                "TILE), ceil_div(M, TILE))",
                                sp->path, keys[i]);
    return 0;
}

/* The kinds of a problem a [variant] key lists: dtypes, layouts, epilogues. */
static const struct {
    const char *key, *what;
    const char *(*name)(int);
    int count;
} kinds[] = {
    {"dtypes", "an element type (fp32, tf32, fp16, bf16)", cutune_dtype_name, CUTUNE_DTYPE_COUNT},
    {"layouts", "a layout (nn, nt)", cutune_layout_name, CUTUNE_LAYOUT_COUNT},
    {"epilogues", "an epilogue (none, bias)", cutune_epilogue_name, CUTUNE_EPILOGUE_COUNT},
};

static char **kind_field(CutuneVariantDef *v, int k)
{
    return k == 0 ? &v->dtypes : k == 1 ? &v->layouts : &v->epilogues;
}

static int *problem_field(CutuneProblem *p, int k)
{
    return k == 0 ? &p->dtype : k == 1 ? &p->layout : &p->epilogue;
}

/* [variant] dtypes, layouts and epilogues: known names that the op computes too. */
static int take_kinds(const CutuneSpace *sp, const CutuneOp *op, CutuneVariantDef *out,
                      CutuneError *err)
{
    for (int k = 0; k < (int)(sizeof kinds / sizeof kinds[0]); k++) {
        const char *key = kinds[k].key;
        int line = 0;
        const char *list = cutune_space_key(sp, "variant", key, &line);
        if (!list)
            continue;
        char name[32];
        int n = 0;
        for (const char *s = list;; n++) {
            while (*s == ' ' || *s == ',')
                s++;
            if (!*s)
                break;
            size_t len = strcspn(s, ", ");
            snprintf(name, sizeof name, "%.*s", (int)(len < 31 ? len : 31), s);
            s += len;
            CutuneProblem p = {.ndims = 1, .dim = {1}};
            int found = 0;
            for (int i = 0; i < kinds[k].count && !found; i++)
                if (!strcmp(name, kinds[k].name(i))) {
                    found = 1;
                    *problem_field(&p, k) = i;
                }
            char why[256] = "";
            if (!found)
                snprintf(why, sizeof why, "'%s' is not %s", name, kinds[k].what);
            else
                cutune_op_takes_kind(op, &p, why, sizeof why);
            if (why[0])
                return cutune_error(err, CUTUNE_ERR_PARSE, "%s:%d: %s %s; list those of %s only",
                                    sp->path, line, key, why, op->name);
        }
        if (n == 0)
            return cutune_error(err, CUTUNE_ERR_PARSE, "%s:%d: %s is empty; name one or more",
                                sp->path, line, key);
        if (!(*kind_field(out, k) = strdup(list)))
            return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
    }
    return 0;
}

/* [variant] target = sm_NNa: the arch-specific target it is compiled for. */
static int take_target(const CutuneSpace *sp, CutuneVariantDef *out, CutuneError *err)
{
    int line = 0, arch = 0, used = 0;
    const char *t = cutune_space_key(sp, "variant", "target", &line);
    if (!t)
        return 0;
    if (sscanf(t, "sm_%da%n", &arch, &used) != 1 || used != (int)strlen(t) || arch < 90 ||
        arch > 999)
        return cutune_error(err, CUTUNE_ERR_PARSE,
                            "%s:%d: target '%s' is not an arch-specific target; write sm_90a "
                            "(wgmma and the other sm_90a instructions), or leave target out",
                            sp->path, line, t);
    out->target = arch;
    return 0;
}

/* [variant] main_job = yes or no (default yes). */
static int take_main_job(const CutuneSpace *sp, CutuneVariantDef *out, CutuneError *err)
{
    int line = 0;
    const char *t = cutune_space_key(sp, "variant", "main_job", &line);
    out->opt_in = t && strcmp(t, "no") == 0;
    if (t && strcmp(t, "yes") != 0 && strcmp(t, "no") != 0)
        return cutune_error(err, CUTUNE_ERR_PARSE,
                            "%s:%d: main_job is '%s'; write main_job = no (its default sizes are "
                            "tuned only when it is named or its element type is asked for) or "
                            "main_job = yes",
                            sp->path, line, t);
    return 0;
}

int cutune_variant_plugin_kinds(CutuneVariantDef *v, char *const *space_dirs, size_t nspace_dirs,
                                CutuneError *err)
{
    char path[PATH_MAX];
    struct stat st;
    for (size_t i = 0; i < nspace_dirs; i++) {
        if ((size_t)snprintf(path, sizeof path, "%s/%s.ini", space_dirs[i], v->name) >=
                sizeof path ||
            stat(path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        CutuneSpace *sp = NULL;
        int rc = cutune_space_peek(path, &sp, err);
        if (rc == 0)
            rc = take_kinds(sp, v->op->op, v, err);
        if (rc == 0)
            rc = take_main_job(sp, v, err);
        cutune_space_free(sp);
        return rc;
    }
    return 0; /* no space file: loading the space says so, when the variant is tuned */
}

int cutune_variant_data_open(const char *path, const CutuneOpDef *op, char *const *space_dirs,
                             size_t nspace_dirs, CutuneVariantDef *out, CutuneError *err)
{
    memset(out, 0, sizeof *out);
    CutuneSpace *sp = NULL;
    int rc = cutune_space_load(path, op->op->dim_names, &sp, err);
    if (rc)
        return rc;
    out->space = sp;
    out->op = op;
    /* the name is the file's: a second name would make two variants of one file */
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t blen = strlen(base) > 4 ? strlen(base) - 4 : 0;
    if (strlen(sp->variant) != blen || strncmp(sp->variant, base, blen) != 0) {
        rc = cutune_error(err, CUTUNE_ERR_PARSE,
                          "%s:%d: the variant is named '%s' but the file '%s'; a variant's file "
                          "is <name>.ini: rename the file or the variant",
                          path, sp->variant_line, sp->variant, base);
        goto fail;
    }
    int vline = 0;
    if (!cutune_space_key(sp, "variant", "version", &vline)) {
        rc = cutune_error(err, CUTUNE_ERR_PARSE,
                          "%s:%d: no version; add version = 1 to [variant] and bump it when the "
                          "kernel or the parameters change (trials are kept per version)",
                          path, sp->variant_line);
        goto fail;
    }
    if ((rc = take(sp, "version", "1", &out->version, err)) ||
        (rc = take(sp, "summary", "", &out->summary, err)) ||
        (rc = take(sp, "kernel", sp->variant, &out->kernel_name, err)) ||
        (rc = take(sp, "op", "", &out->op_name, err)))
        goto fail;
    if ((rc = take_kinds(sp, op->op, out, err)) || (rc = take_target(sp, out, err)) ||
        (rc = take_main_job(sp, out, err)))
        goto fail;
    if (!(out->name = strdup(sp->variant)) || !(out->path = strdup(path))) {
        rc = cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
        goto fail;
    }
    int kline = 0;
    cutune_space_key(sp, "variant", "kernel", &kline);
    if (!cutune_is_identifier(out->kernel_name)) {
        rc = cutune_error(err, CUTUNE_ERR_PARSE,
                          "%s:%d: kernel '%s' is not a function name (a C identifier: letters, "
                          "digits and '_', not a digit first, not a keyword); %s",
                          path, kline ? kline : sp->variant_line, out->kernel_name,
                          kline ? "write the name of the extern \"C\" __global__ function"
                                : "the kernel is named after the variant unless kernel = NAME "
                                  "in [variant] says otherwise");
        goto fail;
    }
    if ((rc = read_sources(out, sp, space_dirs, nspace_dirs, err)))
        goto fail;
    if (!names_kernel(out->source, out->kernel_name)) {
        rc = cutune_error(err, CUTUNE_ERR_PARSE,
                          "%s:%d: kernel '%s' is not in the source (no '%s(' in it); name the "
                          "extern \"C\" __global__ function with kernel = NAME in [variant]",
                          path, kline ? kline : sp->variant_line, out->kernel_name,
                          out->kernel_name);
        goto fail;
    }
    if ((rc = check_launch_keys(sp, err)))
        goto fail;
    /* the geometry compiles for the space's own parameters */
    const char **names = malloc((sp->nparams ? sp->nparams : 1) * sizeof *names);
    if (!names) {
        rc = cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
        goto fail;
    }
    for (size_t i = 0; i < sp->nparams; i++)
        names[i] = sp->params[i].name;
    CutuneGeometry *g = NULL;
    rc = cutune_geometry_open(out, names, sp->nparams, &g, err);
    cutune_geometry_free(&g);
    free(names);
    if (rc)
        goto fail;
    if ((rc = cutune_space_check_sizes(sp, op->op, err)))
        goto fail;
    cutune_variant_hash(out);
    return 0;
fail:
    cutune_variant_close(out);
    return rc;
}
