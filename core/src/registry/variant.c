/* What the rest of the core asks of a variant: its space, its sizes, its counts. */
#include "op_plugin.h"
#include "registry_files.h"
#include "variant.h"
#include "util.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

int cutune_space_check_sizes(const CutuneSpace *sp, const CutuneOp *op, CutuneError *err)
{
    const char *dtypes = cutune_space_key(sp, "variant", "dtypes", NULL);
    const char *layouts = cutune_space_key(sp, "variant", "layouts", NULL);
    const char *epilogues = cutune_space_key(sp, "variant", "epilogues", NULL);
    for (size_t i = 0; i < sp->nproblems; i++) {
        CutuneProblem p;
        CutuneError perr = {0};
        char why[sizeof perr.msg] = "";
        if (cutune_problem_parse(sp->problems[i], &p, &perr) != 0)
            memcpy(why, perr.msg, sizeof why);
        else if (cutune_op_problem_check(op, &p, why, sizeof why) == 0 &&
                 (!cutune_kind_listed(dtypes, cutune_dtype_name(p.dtype), "fp32") ||
                  !cutune_kind_listed(layouts, cutune_layout_name(p.layout), "nn") ||
                  !cutune_kind_listed(epilogues, cutune_epilogue_name(p.epilogue), "none")))
            snprintf(why, sizeof why,
                     "this variant computes %s in %s with epilogue %s (its [variant] dtypes, "
                     "layouts and epilogues)",
                     dtypes ? dtypes : "fp32", layouts ? layouts : "nn",
                     epilogues ? epilogues : "none");
        if (why[0])
            return cutune_error(err, CUTUNE_ERR_PARSE,
                                "%s:%d: default size '%s' is not a size of op %s: %s (a size is "
                                "written %s)",
                                sp->path, sp->problem_lines[i], sp->problems[i], op->name, why,
                                op->size_help ? op->size_help : op->dim_names);
    }
    return 0;
}

int cutune_variant_load_space(const CutuneVariantDef *v, CutuneSpace **out, CutuneError *err)
{
    *out = NULL;
    char path[PATH_MAX];
    int rc = 0;
    if (v->v) /* a C plugin: <name>.ini on the space path */
        rc = cutune_space_path(v->name, path, sizeof path, err);
    else
        snprintf(path, sizeof path, "%s", v->path);
    if (rc || (rc = cutune_space_load(path, v->op->op->dim_names, out, err)))
        return rc;
    if ((rc = cutune_space_check_sizes(*out, v->op->op, err))) {
        cutune_space_free(*out);
        *out = NULL;
        return rc;
    }
    if (strcmp((*out)->variant, v->name) != 0) {
        rc = cutune_error(err, CUTUNE_ERR_PARSE,
                          "%s:%d: the space is named '%s' but belongs to variant '%s' (%s); set "
                          "name = %s",
                          path, (*out)->variant_line, (*out)->variant, v->name, v->path, v->name);
        cutune_space_free(*out);
        *out = NULL;
    }
    return rc;
}

int cutune_variant_problem(const CutuneVariantDef *v, const char *size, CutuneProblem *p,
                           CutuneError *err)
{
    int rc = cutune_problem_parse(size, p, err);
    if (rc)
        return rc;
    char why[256] = "";
    if (cutune_op_problem_check(v->op->op, p, why, sizeof why) != 0)
        return cutune_error(err, CUTUNE_ERR_INVALID, "%s: problem size '%s' is not valid: %s",
                            v->name, size, why);
    return 0;
}

int cutune_variant_takes(const CutuneVariantDef *v, const CutuneProblem *p)
{
    return cutune_kind_listed(v->dtypes, cutune_dtype_name(p->dtype), "fp32") &&
           cutune_kind_listed(v->layouts, cutune_layout_name(p->layout), "nn") &&
           cutune_kind_listed(v->epilogues, cutune_epilogue_name(p->epilogue), "none");
}

double cutune_variant_flops(const CutuneVariantDef *v, const CutuneProblem *p)
{
    return v->op->op->flops(p);
}

double cutune_variant_bytes(const CutuneVariantDef *v, const CutuneProblem *p)
{
    return v->op->op->bytes(p);
}

/* The index of the first name of a comma-separated list among n names, 0 when none. */
static int first_of(const char *list, const char *(*name)(int), int n)
{
    if (!list)
        return 0;
    list += strspn(list, ", ");
    size_t len = strcspn(list, ", ");
    for (int i = 0; i < n; i++)
        if (strlen(name(i)) == len && !strncmp(list, name(i), len))
            return i;
    return 0;
}

static const char *dtype_name(int i)
{
    return cutune_dtype_name(i);
}

static const char *layout_name(int i)
{
    return cutune_layout_name(i);
}

static const char *epilogue_name(int i)
{
    return cutune_epilogue_name(i);
}

void cutune_variant_first_kind(const CutuneVariantDef *v, CutuneProblem *p)
{
    memset(p, 0, sizeof *p);
    p->dtype = first_of(v->dtypes, dtype_name, CUTUNE_DTYPE_COUNT);
    p->layout = first_of(v->layouts, layout_name, CUTUNE_LAYOUT_COUNT);
    p->epilogue = first_of(v->epilogues, epilogue_name, CUTUNE_EPILOGUE_COUNT);
}

int cutune_variant_arch(const CutuneVariantDef *v, int arch)
{
    if (!v->target)
        return arch;
    return arch == v->target ? arch | 0x10000 : -1; /* compile.h: CUTUNE_ARCH_SPECIFIC */
}
