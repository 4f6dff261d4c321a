/* Op plugins (cutune/op.h): dlopen, the ABI checks and the fields every op must set; and
 * the contract of a self-contained C variant plugin, taken as an op of its own. */
#include "names.h"
#include "op_plugin.h"
#include "registry_files.h"
#include "variant_plugin.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An op descriptor must reach `bytes`; ops first exist at ABI 1.3. */
#define OP_SIZE_MIN (offsetof(CutuneOp, bytes) + sizeof(((CutuneOp *)0)->bytes))
#define OP_FIRST_MINOR 3

static int dims_ok(const char *dims)
{
    int n = 0;
    const char *p = dims;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == 0 || len >= CUTUNE_NAME_MAX || (p[0] >= '0' && p[0] <= '9'))
            return 0;
        for (size_t i = 0; i < len; i++)
            if (!((p[i] >= 'a' && p[i] <= 'z') || (p[i] >= 'A' && p[i] <= 'Z') ||
                  (p[i] >= '0' && p[i] <= '9') || p[i] == '_'))
                return 0;
        n++;
        if (!comma)
            return n <= CUTUNE_MAX_DIMS;
        p = comma + 1;
    }
}

int cutune_op_validate(const char *path, const CutuneOp *op, CutuneError *err)
{
    if (op->abi_major != CUTUNE_ABI_MAJOR)
        return cutune_error(err, CUTUNE_ERR_PLUGIN,
                            "%s: op ABI %u.%u, but this cutune speaks ABI %d.%d; rebuild the "
                            "op against this cutune's cutune/op.h",
                            path, op->abi_major, op->abi_minor, CUTUNE_ABI_MAJOR, CUTUNE_ABI_MINOR);
    if (op->abi_minor > CUTUNE_ABI_MINOR)
        return cutune_error(err, CUTUNE_ERR_PLUGIN,
                            "%s: op ABI %u.%u is newer than this cutune's ABI %d.%d; upgrade "
                            "cutune or build the op against the older header",
                            path, op->abi_major, op->abi_minor, CUTUNE_ABI_MAJOR, CUTUNE_ABI_MINOR);
    if (op->abi_minor < OP_FIRST_MINOR)
        return cutune_error(err, CUTUNE_ERR_PLUGIN,
                            "%s: op ABI %u.%u, but ops exist since ABI %d.%d; set .abi_minor = "
                            "CUTUNE_ABI_MINOR",
                            path, op->abi_major, op->abi_minor, CUTUNE_ABI_MAJOR, OP_FIRST_MINOR);
    if (op->struct_size < OP_SIZE_MIN)
        return cutune_error(err, CUTUNE_ERR_PLUGIN,
                            "%s: op descriptor struct_size is %u bytes but ABI %u.%u needs at "
                            "least %zu; set .struct_size = sizeof(CutuneOp)",
                            path, op->struct_size, op->abi_major, op->abi_minor, OP_SIZE_MIN);
    const CutuneField required[] = {
        {"name", op->name},           {"summary", op->summary},   {"dim_names", op->dim_names},
        {"signature", op->signature}, CUTUNE_CONTRACT_FIELDS(op),
    };
    int rc = cutune_fields_required(required, sizeof required / sizeof required[0], path, "op",
                                    "an op sets name, summary, dim_names, signature, nargs and "
                                    "every callback from check_problem to bytes (cutune/op.h)",
                                    err);
    if (rc)
        return rc;
    if (!cutune_is_name(op->name))
        return cutune_error(err, CUTUNE_ERR_PLUGIN,
                            "%s: op name '%s' must be made of letters, digits and '_'", path,
                            op->name);
    if (!dims_ok(op->dim_names))
        return cutune_error(err, CUTUNE_ERR_PLUGIN,
                            "%s: op %s: dim_names '%s' must be 1 to %d identifiers separated by "
                            "commas, e.g. \"M,N,K\"",
                            path, op->name, op->dim_names, CUTUNE_MAX_DIMS);
    if (op->nargs < 1 || op->nargs > CUTUNE_MAX_KERNEL_ARGS)
        return cutune_error(err, CUTUNE_ERR_PLUGIN,
                            "%s: op %s: nargs is %d; it must count the kernel arguments, 1 to %d",
                            path, op->name, op->nargs, CUTUNE_MAX_KERNEL_ARGS);
    return 0;
}

int cutune_op_from_variant(const char *path, const CutuneVariant *v, CutuneOpDef *d,
                           CutuneError *err)
{
    const CutuneField contract[] = {CUTUNE_CONTRACT_FIELDS(v)};
    char fix[256];
    snprintf(fix, sizeof fix,
             "no op plugin provides op '%s', so the variant plugin must define it: every field "
             "of CutuneVariant from check_problem to bytes",
             v->op);
    int rc = cutune_fields_required(contract, sizeof contract / sizeof contract[0], path,
                                    "descriptor", fix, err);
    if (rc)
        return rc;
    size_t end = offsetof(CutuneVariant, problem_distance) + sizeof v->problem_distance;
    d->own = (CutuneOp){
        .abi_major = CUTUNE_ABI_MAJOR,
        .abi_minor = CUTUNE_ABI_MINOR,
        .struct_size = sizeof(CutuneOp),
        .name = v->op,
        .summary = v->summary,
        .dim_names = v->dim_names,
        .size_help = v->dim_names,
        .signature = "(as the variant plugin's kernel_args passes them)",
        .nargs = 0, /* unknown: the plugin's kernel_args says at run time */
        .check_problem = v->check_problem,
        .setup = v->setup,
        .kernel_args = v->kernel_args,
        .poison_output = v->poison_output,
        .check = v->check,
        .teardown = v->teardown,
        .flops = v->flops,
        .bytes = v->bytes,
        .problem_distance = v->abi_minor >= 1 && v->struct_size >= end ? v->problem_distance : NULL,
    };
    d->op = &d->own;
    if (!(d->path = strdup(path)))
        return cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
    return 0;
}

int cutune_op_open(const char *path, CutuneOpDef *out, CutuneError *err)
{
    memset(out, 0, sizeof *out);
    void *h;
    void (*entry)(void);
    int rc = cutune_plugin_dlopen(path, CUTUNE_OP_SYMBOL, &h, &entry, err);
    if (rc)
        return rc;
    if (entry) {
        const CutuneOp *op = ((CutuneOpEntry)entry)();
        if (!op)
            rc = cutune_error(err, CUTUNE_ERR_PLUGIN, "%s: %s() returned NULL", path,
                              CUTUNE_OP_SYMBOL);
        else if ((rc = cutune_op_validate(path, op, err)) == 0 && !(out->path = strdup(path)))
            rc = cutune_error(err, CUTUNE_ERR_NOMEM, "out of memory");
        if (rc) {
            dlclose(h);
            return rc;
        }
        out->op = op;
        out->handle = h;
        return 0;
    }
    /* a self-contained variant plugin: its contract is the op */
    dlclose(h);
    CutuneVariantDef v;
    if ((rc = cutune_variant_plugin_open(path, &v, err)))
        return rc;
    if ((rc = cutune_op_from_variant(path, v.v, out, err)) == 0) {
        out->handle = v.handle; /* the op keeps the plugin loaded */
        v.handle = NULL;
    }
    cutune_variant_close(&v);
    return rc;
}

void cutune_op_close(CutuneOpDef *d)
{
    if (!d)
        return;
    if (d->handle)
        dlclose(d->handle);
    free(d->path);
    memset(d, 0, sizeof *d);
}

CutuneDistanceFn cutune_op_distance(const CutuneOpDef *d)
{
    return d && d->op ? CUTUNE_OP_FIELD(d->op, problem_distance) : NULL;
}

int cutune_op_ragged(const CutuneOpDef *d, const CutuneProblem *p, CutuneProblem *out, char *why,
                     size_t len)
{
    if (!d || !d->op || !p || !out)
        return CUTUNE_ERR_INVALID;
    int (*fn)(const CutuneProblem *, CutuneProblem *, char *,
              size_t) = CUTUNE_OP_FIELD(d->op, ragged_problem);
    if (len)
        why[0] = '\0';
    if (fn) {
        if (fn(p, out, why, len) != 0) {
            if (len && !why[0])
                snprintf(why, len, "op %s has no ragged size near this one", d->op->name);
            return CUTUNE_ERR_NOT_FOUND;
        }
    } else {
        *out = *p;
        for (int i = 0; i < p->ndims; i++)
            if (p->dim[i] > 1 && p->dim[i] % 2 == 0)
                out->dim[i] = p->dim[i] - 1;
    }
    /* whatever made it, it must be a problem of the op */
    char err[256] = "";
    CutuneProblem q = *out;
    if (out->ndims != p->ndims || d->op->check_problem(&q, err, sizeof err) != 0) {
        if (len)
            snprintf(why, len, "the ragged size near it is not a problem of op %s: %s", d->op->name,
                     err[0] ? err : "another number of dimensions");
        return CUTUNE_ERR_NOT_FOUND;
    }
    return 0;
}

/* Is `name` in the comma-separated `list` (NULL: only `dflt`)? */
static int listed(const char *list, const char *name, const char *dflt)
{
    if (!list)
        return strcmp(name, dflt) == 0;
    size_t n = strlen(name);
    for (const char *s = list; *s;) {
        while (*s == ' ' || *s == ',')
            s++;
        const char *e = s;
        while (*e && *e != ',' && *e != ' ')
            e++;
        if ((size_t)(e - s) == n && strncmp(s, name, n) == 0)
            return 1;
        s = e;
    }
    return 0;
}

int cutune_op_takes_kind(const CutuneOp *op, const CutuneProblem *p, char *why, size_t len)
{
    const char *dt = cutune_dtype_name(p->dtype), *lay = cutune_layout_name(p->layout);
    const char *dtypes = CUTUNE_OP_FIELD(op, dtypes), *layouts = CUTUNE_OP_FIELD(op, layouts);
    if (!dt || !listed(dtypes, dt, "fp32")) {
        snprintf(why, len, "op %s computes no %s (its element types: %s)", op->name,
                 dt ? dt : "such element type", dtypes ? dtypes : "fp32");
        return 0;
    }
    if (!lay || !listed(layouts, lay, "nn")) {
        snprintf(why, len, "op %s takes no layout %s (its layouts: %s)", op->name,
                 lay ? lay : "of that number", layouts ? layouts : "nn");
        return 0;
    }
    const char *ep = cutune_epilogue_name(p->epilogue);
    const char *epilogues = CUTUNE_OP_FIELD(op, epilogues);
    if (!ep || !listed(epilogues, ep, "none")) {
        snprintf(why, len, "op %s has no epilogue %s (its epilogues: %s)", op->name,
                 ep ? ep : "of that number", epilogues ? epilogues : "none");
        return 0;
    }
    return 1;
}

int cutune_op_problem_check(const CutuneOp *op, CutuneProblem *p, char *why, size_t len)
{
    if (!cutune_op_takes_kind(op, p, why, len))
        return -1;
    return op->check_problem(p, why, len) != 0 ? -1 : 0;
}

int cutune_kind_listed(const char *list, const char *name, const char *dflt)
{
    return listed(list, name, dflt);
}
