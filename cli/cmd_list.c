/* cutune list: ops, variants, spaces. Needs no GPU. */
#include "cli.h"
#include "registry.h"
#include "space.h"

#include <getopt.h>
#include <limits.h>
#include <string.h>

static const char help[] =
    "usage: cutune list [op]\n"
    "\n"
    "List the ops (their plugins and how a size is written), their variants and each\n"
    "variant's tuning space: the file it comes from, its parameters, the size of the full\n"
    "product, the configs that pass the constraints under sm_90 (H100) limits before any\n"
    "problem-size constraint, and the default problem sizes. Files that were found but\n"
    "refused are listed with the reason (then the exit code is 1), and so are names that two\n"
    "files define; a space in which no config passes its constraints gets a warning. Needs\n"
    "no GPU.\n";

/* Returns 1 when the space cannot be read (a C plugin's space: data variants' spaces were
 * read when they loaded). */
static int describe_space(const CutuneVariantDef *v)
{
    CutuneError err = {0};
    CutuneSpace *sp = NULL;
    if (cutune_variant_load_space(v, &sp, &err)) {
        printf("      space: ERROR: %s\n", err.msg);
        fprintf(stderr, "refused the space of %s: %s\n", v->name, err.msg);
        return 1;
    }
    CutuneLimits lim;
    cutune_limits_sm90(&lim);
    CutuneConfigList cl = {0};
    if (v->v)
        printf("      space: %s\n", sp->path);
    printf("      computes: %s; layouts %s; epilogues %s\n", v->dtypes ? v->dtypes : "fp32",
           v->layouts ? v->layouts : "nn", v->epilogues ? v->epilogues : "none");
    printf("      parameters:");
    for (size_t i = 0; i < sp->nparams; i++) {
        printf(" %s{", sp->params[i].name);
        for (size_t j = 0; j < sp->params[i].nvalues; j++)
            printf(j ? ",%lld" : "%lld", (long long)sp->params[i].values[j]);
        printf("}");
    }
    printf("\n");
    int bad = 0;
    if (cutune_space_enumerate(sp, &lim, NULL, &cl, &err) == 0) {
        printf("      configs: %zu valid of %zu\n", cl.nconfigs, cutune_space_cardinality(sp));
        if (cl.nconfigs == 0)
            fprintf(stderr,
                    "warning: %s: no config of %s passes its [constraints] under sm_90 "
                    "limits, so nothing of it can be tuned; `cutune check %s` says which "
                    "constraint rejects the most\n",
                    sp->path, v->name, v->name);
    } else {
        printf("      configs: ERROR: %s\n", err.msg);
        fprintf(stderr, "refused the space of %s: %s\n", v->name, err.msg);
        bad = 1;
    }
    printf("      sizes (%s):", v->op->op->dim_names);
    for (size_t i = 0; i < sp->nproblems; i++)
        printf(" %s", sp->problems[i]);
    printf("\n");
    cutune_config_list_free(&cl);
    cutune_space_free(sp);
    return bad;
}

static int describe_variant(const CutuneVariantDef *v)
{
    printf("  %-18s v%-4s %s\n", v->name, v->version, *v->summary ? v->summary : "(no summary)");
    if (v->v)
        printf("      plugin: %s (C variant plugin%s)\n", v->path,
               cutune_variant_library(v) ? "; its configs are calls into a library" : "");
    else
        printf("      variant: %s (kernel %s)\n", v->path, v->kernel_name);
    return describe_space(v);
}

int cmd_list(int argc, char **argv)
{
    int rc = cli_parse_options("list", help, argc, argv, NULL);
    if (rc >= 0)
        return rc;
    if (argc - optind > 1)
        return cli_usage_error("list", "expected at most one op");
    const char *only = optind < argc ? argv[optind] : NULL;

    CutuneRegistry reg;
    CutuneError err = {0};
    if (cutune_registry_load(&reg, &err))
        return cli_fail("list", &err);
    int shown = 0, bad = 0;
    for (size_t i = 0; i < reg.nops; i++) {
        const CutuneOp *op = reg.ops[i]->op;
        if (cutune_registry_op(&reg, op->name) != reg.ops[i] || (only && strcmp(only, op->name)))
            continue; /* a second contract of one name: a self-contained plugin's, listed below */
        printf("%s  %s\n", op->name, op->summary ? op->summary : "");
        printf("    op: %s\n", reg.ops[i]->path);
        printf("    size: %s\n", op->size_help ? op->size_help : op->dim_names);
        printf("    kernel: extern \"C\" __global__ void NAME(%s)\n", op->signature);
        shown++;
        for (size_t j = 0; j < reg.nvariants; j++)
            if (!strcmp(reg.variants[j]->op_name, op->name))
                bad += describe_variant(reg.variants[j]);
    }
    if (!shown) {
        if (only)
            fprintf(stderr, "cutune list: no plugin implements op '%s'\n", only);
        else
            fprintf(stderr, "cutune list: no ops found\n");
        fprintf(stderr, "searched for plugins in:");
        for (size_t i = 0; i < reg.nplugin_dirs; i++)
            fprintf(stderr, " %s", reg.plugin_dirs[i]);
        fprintf(stderr, "\nsearched for variants in:");
        for (size_t i = 0; i < reg.nspace_dirs; i++)
            fprintf(stderr, " %s", reg.space_dirs[i]);
        fprintf(stderr, "\n");
    }
    for (size_t i = 0; i < reg.nshadowed; i++)
        fprintf(stderr, "note: %s\n", reg.shadowed[i].text);
    for (size_t i = 0; i < reg.nrejected; i++)
        fprintf(stderr, "refused %s\n", reg.rejected[i].text);
    bad += (int)reg.nrejected;
    if (bad)
        fprintf(stderr, "cutune list: %d file%s refused (above); fix or move %s\n", bad,
                bad == 1 ? " was" : "s were", bad == 1 ? "it" : "them");
    cutune_registry_free(&reg);
    return !shown ? EXIT_NOT_FOUND : bad ? EXIT_FAILURE_ : EXIT_OK;
}
